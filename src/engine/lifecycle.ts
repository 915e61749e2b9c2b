import type { Pod } from './api/v1.js';

/**
 * Asked on every sync loop tick whether a pod needs a sync although no work
 * is queued for it (the kubelet's lifecycle.PodSyncLoopHandler).
 */
export interface PodSyncLoopHandler {
  shouldSync(pod: Pod): boolean;
}

/** A PodSyncHandler's verdict: whether the pod must fail, and why. */
export interface ShouldEvictResponse {
  evict: boolean;
  reason?: string;
  message?: string;
}

/**
 * Asked whenever a pod's status is generated whether the pod must fail; a
 * yes makes its phase Failed with the handler's reason and message (the
 * kubelet's lifecycle.PodSyncHandler).
 */
export interface PodSyncHandler {
  shouldEvict(pod: Pod): ShouldEvictResponse;
}
