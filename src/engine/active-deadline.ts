import type { Clock } from '../util/clock.js';
import { podRef } from './api/pod-util.js';
import type { Pod } from './api/v1.js';
import type { EventStream } from './events.js';
import type { PodSyncHandler, PodSyncLoopHandler, ShouldEvictResponse } from './lifecycle.js';
import type { PodStatusProvider } from './status/status-manager.js';

export const DEADLINE_EXCEEDED_REASON = 'DeadlineExceeded';
export const DEADLINE_EXCEEDED_MESSAGE = 'Pod was active on the node longer than the specified deadline';

/**
 * Enforces spec.activeDeadlineSeconds, measured from status.startTime (the
 * kubelet's activeDeadlineHandler). As a sync loop handler it has a pod past
 * its deadline synced on the next tick; as a sync handler it makes that sync
 * fail the pod (Failed, DeadlineExceeded), so its worker kills it.
 */
export class ActiveDeadlineHandler implements PodSyncLoopHandler, PodSyncHandler {
  constructor(
    private readonly podStatusProvider: PodStatusProvider,
    private readonly events: EventStream,
    private readonly clock: Clock,
  ) {}

  shouldSync(pod: Pod): boolean {
    return this.pastActiveDeadline(pod);
  }

  /** Says so on the event stream each time it evicts, as the kubelet records an event each time. */
  shouldEvict(pod: Pod): ShouldEvictResponse {
    if (!this.pastActiveDeadline(pod)) return { evict: false };
    this.events.emit({
      type: 'PodDeadlineExceeded',
      pod: podRef(pod),
      uid: pod.metadata.uid ?? '',
      reason: DEADLINE_EXCEEDED_REASON,
      message: DEADLINE_EXCEEDED_MESSAGE,
    });
    return { evict: true, reason: DEADLINE_EXCEEDED_REASON, message: DEADLINE_EXCEEDED_MESSAGE };
  }

  private pastActiveDeadline(pod: Pod): boolean {
    const deadline = pod.spec.activeDeadlineSeconds;
    if (deadline === undefined || deadline === null) return false;
    // A pod that has not started yet (no start time) has no deadline to pass.
    const startTime = (this.podStatusProvider.getPodStatus(pod.metadata.uid ?? '') ?? pod.status)?.startTime;
    const start = startTime ? Date.parse(startTime) : NaN;
    if (Number.isNaN(start)) return false;
    return this.clock.now() - start >= deadline * 1000;
  }
}
