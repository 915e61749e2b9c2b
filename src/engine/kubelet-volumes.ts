// The kubelet's volume manager as its pods use it, after upstream's kubelet_volumes.go.
import { join } from 'node:path';
import type { Clock } from '../util/clock.js';
import type { Pod } from './api/v1.js';
import type { ObjectManager } from './cluster/object-manager.js';
import type { EventStream } from './events.js';
import type { PodAddresses } from './kuberuntime/env.js';
import { podDir, VolumeManager } from './volume/volume-manager.js';

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
