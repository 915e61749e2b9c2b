import type { PodSyncResult } from '../kuberuntime/sync-result.js';

export interface ContainerReason {
  reason: string;
  message: string;
}

/**
 * Why each container last failed to start (ErrImagePull, CrashLoopBackOff,
 * ...), per pod, from the last SyncPod result: the waiting reason the pod's
 * status shows until a start succeeds (the kubelet's ReasonCache).
 */
export class ReasonCache {
  private readonly reasons = new Map<string, Map<string, ContainerReason>>();

  update(uid: string, result: PodSyncResult): void {
    for (const r of result.results) {
      if (r.action !== 'StartContainer') continue;
      if (r.error) this.podReasons(uid).set(r.target, { reason: r.error.reason, message: r.error.message });
      else this.reasons.get(uid)?.delete(r.target);
    }
  }

  get(uid: string, container: string): ContainerReason | undefined {
    return this.reasons.get(uid)?.get(container);
  }

  remove(uid: string): void {
    this.reasons.delete(uid);
  }

  private podReasons(uid: string): Map<string, ContainerReason> {
    let m = this.reasons.get(uid);
    if (!m) {
      m = new Map();
      this.reasons.set(uid, m);
    }
    return m;
  }
}
