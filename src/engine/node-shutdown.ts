import type { Clock } from '../util/clock.js';
import type { AdmitResult } from './admission.js';
import { KubeletConstants } from './config/kubelet-config.js';
import { rfc3339, type Pod, type PodStatus } from './api/v1.js';
import type { EventStream } from './events.js';
import type { PodWorkers } from './pod-workers.js';

export const NODE_SHUTDOWN_REASON = 'Terminated';
export const NODE_SHUTDOWN_MESSAGE = 'Pod was terminated in response to imminent node shutdown.';
export const NODE_SHUTDOWN_NOT_ADMITTED_REASON = 'NodeShutdown';
const NOT_ADMITTED_MESSAGE = 'Pod was rejected as the node is shutting down.';
/** The node's Ready condition says this while it drains (the kubelet's ShutdownStatus). */
export const NODE_SHUTTING_DOWN = 'node is shutting down';

/** scheduling.DefaultPriorityWhenNoDefaultClassExists and scheduling.SystemCriticalPriority. */
const DEFAULT_PRIORITY = 0;
const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;
/**
 * Without a shutdown grace period a drain waits for every pod's own grace
 * period, and this much beyond the longest: the kill's SIGKILL and the
 * runtime's answer. A runtime that does not answer does not hold knode.
 */
const UNCAPPED_MARGIN_MS = 10_000;

export interface ShutdownGroup {
  /** The lowest priority of the group's pods. */
  priority: number;
  /** The group's time: no pod of it gets a longer grace period, and the drain waits no longer for it; undefined: each pod's own. */
  gracePeriodSeconds?: number;
  pods: Pod[];
}

/**
 * The pods to stop, in the order they go (the kubelet's migrateConfig and
 * groupByPriority): with a shutdown grace period, the pods below system-critical
 * priority get that period less the critical pods' one, then the critical pods
 * get theirs; without one, or with more for the critical pods than in all,
 * every pod goes at once with its own.
 */
export function shutdownGroups(shutdownGracePeriodMs: number, criticalPodsMs: number, pods: Pod[]): ShutdownGroup[] {
  const regular = shutdownGracePeriodMs - criticalPodsMs;
  if (shutdownGracePeriodMs <= 0 || regular < 0) return [{ priority: DEFAULT_PRIORITY, pods }];
  const groups: ShutdownGroup[] = [
    { priority: DEFAULT_PRIORITY, gracePeriodSeconds: Math.floor(regular / 1000), pods: [] },
    { priority: SYSTEM_CRITICAL_PRIORITY, gracePeriodSeconds: Math.floor(criticalPodsMs / 1000), pods: [] },
  ];
  for (const pod of pods) {
    const priority = pod.spec.priority ?? 0;
    // The last group at or below the pod's priority; below the lowest, the lowest.
    const group = groups.findLast((g) => g.priority <= priority) ?? groups[0];
    group.pods.push(pod);
  }
  return groups;
}

export interface NodeShutdownDeps {
  podWorkers: PodWorkers;
  /** The pods admitted and not finished: what a drain stops. */
  activePods: () => Pod[];
  events: EventStream;
  clock: Clock;
  shutdownGracePeriodMs: number;
  shutdownGracePeriodCriticalPodsMs: number;
  /** Called once the node is shutting down (its status says so at once) and once the drain is over (the pods' last statuses go out). */
  onShutdown?: () => Promise<void>;
  afterDrain?: () => Promise<void>;
}

/**
 * The kubelet's node shutdown manager, for `knode run --drain-on-exit`: once
 * asked to drain, the node admits no new pod (NodeShutdown) and reports
 * itself not ready, and stops its pods by priority, each marked Failed
 * (Terminated, DisruptionTarget) unless it had already succeeded.
 */
export class NodeShutdown {
  private drained: Promise<void> | undefined;

  constructor(private readonly deps: NodeShutdownDeps) {}

  get shuttingDown(): boolean {
    return this.drained !== undefined;
  }

  /** What admission says of a new pod while the node drains. */
  admit(): AdmitResult {
    return this.shuttingDown ? { admit: false, reason: NODE_SHUTDOWN_NOT_ADMITTED_REASON, message: NOT_ADMITTED_MESSAGE } : { admit: true };
  }

  /** Stops every active pod, group by group; resolves once they are stopped or their groups' time is up. */
  drain(): Promise<void> {
    this.drained ??= this.stopPods();
    return this.drained;
  }

  private async stopPods(): Promise<void> {
    const { events, clock } = this.deps;
    const pods = this.deps.activePods();
    events.emit({
      type: 'NodeShutdown',
      pod: '',
      uid: '',
      reason: 'Shutdown',
      message: `draining the node: stopping ${pods.length} pod${pods.length === 1 ? '' : 's'}`,
      detail: { pods: pods.length },
    });
    await this.deps.onShutdown?.();
    for (const group of shutdownGroups(this.deps.shutdownGracePeriodMs, this.deps.shutdownGracePeriodCriticalPodsMs, pods)) {
      if (group.pods.length === 0) continue;
      let longest = 0;
      const stopped = group.pods.map((pod) => {
        const own = pod.spec.terminationGracePeriodSeconds ?? KubeletConstants.defaultTerminationGracePeriodSeconds;
        const grace = group.gracePeriodSeconds === undefined ? own : Math.min(own, group.gracePeriodSeconds);
        longest = Math.max(longest, grace);
        return new Promise<void>((resolve) =>
          this.deps.podWorkers.updatePod({
            updateType: 'kill',
            pod,
            gracePeriodOverride: grace,
            statusFn: (s) => this.markShutdown(s),
            onTerminated: resolve,
          }),
        );
      });
      const waitMs = group.gracePeriodSeconds === undefined ? longest * 1000 + UNCAPPED_MARGIN_MS : group.gracePeriodSeconds * 1000;
      let timer: { cancel(): void } | undefined;
      await Promise.race([Promise.all(stopped), new Promise<void>((resolve) => (timer = clock.setTimeout(resolve, waitMs)))]);
      timer?.cancel();
    }
    await this.deps.afterDrain?.();
  }

  /** The status a pod stopped by the drain gets: Failed unless it had succeeded, its reason and message, and a DisruptionTarget condition. */
  private markShutdown(status: PodStatus): void {
    if (status.phase !== 'Succeeded') status.phase = 'Failed';
    status.reason = NODE_SHUTDOWN_REASON;
    status.message = NODE_SHUTDOWN_MESSAGE;
    const conditions = (status.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget');
    const previous = status.conditions?.find((c) => c.type === 'DisruptionTarget' && c.status === 'True');
    conditions.push({
      type: 'DisruptionTarget',
      status: 'True',
      reason: 'TerminationByKubelet',
      message: NODE_SHUTDOWN_MESSAGE,
      lastProbeTime: null,
      lastTransitionTime: previous?.lastTransitionTime ?? rfc3339(this.deps.clock.now()),
    });
    status.conditions = conditions;
  }
}
