import { ConfigHashAnnotation, ConfigMirrorAnnotation, ConfigSourceAnnotation, podFullName, podRef } from '../api/pod-util.js';
import type { Pod } from '../api/v1.js';
import type { PodManager } from '../pod-manager.js';
import { ClusterError, type ClusterClient } from './client.js';

export interface MirrorPodsDeps {
  client: ClusterClient;
  podManager: PodManager;
  nodeName: string;
  /** The Node's UID once registered (mirror pods are owned by their Node). */
  nodeUid: () => string | undefined;
  warn: (message: string) => void;
}

/**
 * Mirror pods, as the kubelet keeps them: for each static pod, a pod object
 * in the apiserver (same name, the static pod's annotations plus
 * `kubernetes.io/config.mirror` = its config hash, owned by the Node) so the
 * cluster sees what the node runs. A mirror pod that is being deleted or
 * whose hash no longer matches is replaced; one whose static pod is gone is
 * deleted. The apiserver's copy is never run: deleting it does not stop the
 * static pod, it only makes the node create it again.
 */
export class MirrorPods {
  /** Reconciles in flight, by the static pod's full name (one at a time per pod). */
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(private readonly deps: MirrorPodsDeps) {}

  /** reconcile() without waiting; a second call while one runs for the same pod is dropped. */
  reconcileInBackground(staticPod: Pod): void {
    const key = podFullName(staticPod);
    if (this.inFlight.has(key)) return;
    this.inFlight.set(
      key,
      this.reconcile(staticPod).finally(() => this.inFlight.delete(key)),
    );
  }

  /** Waits for the reconciles in flight. */
  async idle(): Promise<void> {
    await Promise.all(this.inFlight.values());
  }

  /** Makes the static pod's mirror pod current (the kubelet does this on every syncPod of a static pod). */
  async reconcile(staticPod: Pod): Promise<void> {
    const mirror = this.deps.podManager.getMirrorPodByPod(staticPod);
    let replaced = false;
    if (mirror && (mirror.metadata.deletionTimestamp || !isMirrorOf(mirror, staticPod))) {
      await this.delete(mirror);
      replaced = true;
    }
    if (mirror && !replaced) return;
    const nodeUid = this.deps.nodeUid();
    if (!nodeUid) return; // the Node is not registered yet: the next sync creates it
    try {
      await this.deps.client.createPod(mirrorPodOf(staticPod, this.deps.nodeName, nodeUid));
    } catch (err) {
      // A mirror already there with the right hash is what we wanted; the watch brings it.
      if (ClusterError.conflict(err)) return;
      this.deps.warn(`mirror pod of ${podRef(staticPod)}: ${(err as Error).message}`);
    }
  }

  /** Deletes mirror pods whose static pod no longer runs here (the kubelet's deleteOrphanedMirrorPods). */
  async deleteOrphans(): Promise<void> {
    for (const mirror of this.deps.podManager.getMirrorPods()) {
      const staticPod = this.deps.podManager.getPodByMirrorPod(mirror);
      if (!staticPod && !mirror.metadata.deletionTimestamp) await this.delete(mirror);
    }
  }

  private async delete(mirror: Pod): Promise<void> {
    try {
      await this.deps.client.deletePod(mirror.metadata.namespace!, mirror.metadata.name!, mirror.metadata.uid!, 0);
    } catch (err) {
      if (!ClusterError.notFound(err) && !ClusterError.conflict(err))
        this.deps.warn(`deleting mirror pod ${podRef(mirror)}: ${(err as Error).message}`);
    }
  }
}

/** Whether `mirror` stands for this version of the static pod (their config hashes match). */
export function isMirrorOf(mirror: Pod, staticPod: Pod): boolean {
  const hash = staticPod.metadata.annotations?.[ConfigHashAnnotation];
  return hash !== undefined && mirror.metadata.annotations?.[ConfigMirrorAnnotation] === hash;
}

/** The pod object the apiserver gets for a static pod. */
export function mirrorPodOf(staticPod: Pod, nodeName: string, nodeUid: string): Pod {
  const annotations = { ...staticPod.metadata.annotations };
  annotations[ConfigMirrorAnnotation] = annotations[ConfigHashAnnotation] ?? '';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: staticPod.metadata.name,
      namespace: staticPod.metadata.namespace,
      labels: staticPod.metadata.labels,
      annotations: { ...annotations, [ConfigSourceAnnotation]: annotations[ConfigSourceAnnotation] ?? 'file' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: nodeUid, controller: true }],
    },
    spec: { ...structuredClone(staticPod.spec), nodeName },
  };
}
