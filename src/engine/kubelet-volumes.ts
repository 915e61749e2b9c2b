// The kubelet's volume manager as its pods use it, after upstream's kubelet_volumes.go.
import { join } from 'node:path';
import type { Clock } from '../util/clock.js';
import type { Pod } from './api/v1.js';
import type { ObjectManager } from './cluster/object-manager.js';
import type { EventStream } from './events.js';
import type { PodAddresses } from './kuberuntime/env.js';
import { podDir, VolumeError, VolumeManager, type PodVolumes } from './volume/volume-manager.js';

export interface PodVolumeManagerDeps {
  rootDir: string;
  /** The pod's addresses for downward API files (its IP, the host's, the node's allocatable). */
  addresses: (pod: Pod) => PodAddresses;
  events: EventStream;
  objects: ObjectManager;
  clock: Clock;
}

/** The volume manager of the pods: what it cannot do for a pod is a VolumeWarning on the pod's events. */
export function podVolumeManager(deps: PodVolumeManagerDeps): VolumeManager {
  const { rootDir, addresses, events, objects, clock } = deps;
  const warn = (pod: Pod, message: string) =>
    events.emit({
      type: 'SyncFailed',
      pod: `${pod.metadata.namespace}/${pod.metadata.name}`,
      uid: pod.metadata.uid!,
      reason: 'VolumeWarning',
      message,
    });
  return new VolumeManager(rootDir, addresses, warn, objects, () => clock.now());
}

/** Where the pod's volumes are mounted (upstream's getPodVolumesDir). */
export function podVolumesDir(rootDir: string, uid: string): string {
  return join(podDir(rootDir, uid), 'volumes');
}

/** The kubelet's first retry of a failed mount (its exponential back-off's initial delay), doubled each time after. */
const MOUNT_RETRY_FIRST_MS = 500;
/** The longest wait between two tries (the back-off's cap, 2m2s). */
const MOUNT_RETRY_MAX_MS = 122_000;
/** How long a sync waits for its pod's volumes before it fails (the kubelet's podAttachAndMountTimeout, 2m3s). */
const MOUNT_TIMEOUT_MS = 123_000;

/**
 * Sets up the pod's volumes, and while one fails tries again after 0.5 s,
 * 1 s, 2 s and so on, for up to 2m3s, as the kubelet's sync waits for its
 * reconciler, which retries a failed mount with exponential back-off. A
 * failure that passes (a ConfigMap created a moment later; a token the
 * apiserver's node authorizer refuses until it has seen the pod bound to
 * this node) then delays the pod by half a second, not by the pod worker's
 * 10 s back-off after a failed sync. Each failure goes to FAILED (the
 * FailedMount event); the last one is thrown, as is any error that is not a
 * volume's, and the wait ends when SIGNAL aborts (the pod is killed).
 */
export async function mountWithRetries(
  volumes: VolumeManager,
  pod: Pod,
  clock: Clock,
  failed: (err: Error) => void,
  signal?: AbortSignal,
): Promise<PodVolumes> {
  const deadline = clock.now() + MOUNT_TIMEOUT_MS;
  for (let delay = MOUNT_RETRY_FIRST_MS; ; delay = Math.min(delay * 2, MOUNT_RETRY_MAX_MS)) {
    try {
      return await volumes.waitForAttachAndMount(pod);
    } catch (err) {
      failed(err as Error);
      if (!(err instanceof VolumeError) || clock.now() + delay > deadline) throw err;
      await clock.sleep(delay, signal).catch(() => {
        throw err;
      });
    }
  }
}
