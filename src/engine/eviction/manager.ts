// The kubelet's eviction manager (pkg/kubelet/eviction/eviction_manager.go):
// every monitoring period it reads the node's signals, decides which
// thresholds are met and for how long, reports the pressure conditions, and,
// once a threshold has been met for its grace period, reclaims what the node
// itself holds (dead containers, unused images) before it evicts one pod.
import type { Pod, PodStatus } from '../api/v1.js';
import { setDisruptionTarget } from '../api/pod-util.js';
import type { AdmitResult } from '../admission.js';
import type { EventStream } from '../events.js';
import { isCriticalPod } from '../preemption.js';
import { qosClassOf } from '../status/qos.js';
import type { PodStats } from '../stats/types.js';
import type { Clock, Timer } from '../../util/clock.js';
import { hasLocalStorageLimits, localStorageViolation } from './local-storage.js';
import { evictionMessage, rankForEviction } from './ranking.js';
import {
  byEvictionPriority,
  conditionsOf,
  firstObservedAt,
  mergeThresholds,
  metGracePeriod,
  observe,
  thresholdsMet,
  updatedStats,
  type NodeSignals,
  type Observations,
} from './signals.js';
import { SIGNAL_INFO, isHardThreshold, type PressureCondition, type Threshold } from './thresholds.js';

/** The kubelet's evictionMonitoringPeriod. */
export const EVICTION_MONITORING_PERIOD_MS = 10_000;
export const EVICTED_REASON = 'Evicted';
/** immediateEvictionGracePeriodSeconds: the grace a pod gets for a hard threshold or a local storage limit. */
export const IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS = 1;
const MEMORY_PRESSURE_TAINT = 'node.kubernetes.io/memory-pressure';

export interface EvictionDeps {
  thresholds: Threshold[];
  /** evictionPressureTransitionPeriod: how long a condition stays after its threshold is no longer met. */
  pressureTransitionPeriodMs: number;
  /** evictionMaxPodGracePeriod: the longest grace a pod evicted for a soft threshold gets. */
  maxPodGracePeriodSeconds: number;
  clock: Clock;
  events: EventStream;
  nodeName: string;
  /** The node's signals (memory, file systems, PIDs): cheap, read every period. */
  nodeSignals: () => Promise<NodeSignals>;
  /** Every pod's usage: read only when a pod must be chosen. */
  podStats: () => Promise<PodStats[]>;
  /** The pods that may still have running containers. */
  activePods: () => Pod[];
  /** Kills a pod with the status STATUS_FN writes; resolves once it is stopped. */
  killPod: (pod: Pod, gracePeriodSeconds: number, statusFn: (status: PodStatus) => void) => Promise<void>;
  /** Node-level reclaim for disk signals: dead containers, then unused images. */
  reclaim: { containers: () => Promise<void>; images: () => Promise<void> };
}

const CONDITION_REASONS: Record<PressureCondition, [pressure: string, fine: string]> = {
  MemoryPressure: ['NodeHasInsufficientMemory', 'NodeHasSufficientMemory'],
  DiskPressure: ['NodeHasDiskPressure', 'NodeHasNoDiskPressure'],
  PIDPressure: ['NodeHasInsufficientPID', 'NodeHasSufficientPID'],
};

export class EvictionManager {
  private conditions: PressureCondition[] = [];
  private observedAt = new Map<Threshold, number>();
  private conditionsSeenAt = new Map<PressureCondition, number>();
  private met: Threshold[] = [];
  private lastObservations: Observations = new Map();
  private timer?: Timer;
  private pass?: Promise<unknown>;
  private markObserved!: () => void;
  /** Resolves once the first pass has looked at the node, so its pressure conditions are known. */
  readonly observed = new Promise<void>((resolve) => (this.markObserved = resolve));

  constructor(private readonly deps: EvictionDeps) {}

  start(): void {
    const tick = () => {
      if (this.pass) return;
      this.pass = this.synchronize()
        .catch((err: Error) =>
          this.deps.events.emit({
            type: 'EvictionThresholdMet',
            pod: '',
            uid: '',
            reason: 'EvictionFailed',
            message: `eviction manager: ${err.message}`,
          }),
        )
        .finally(() => {
          this.pass = undefined;
          // A failed pass counts too: a node whose stats cannot be read would otherwise never take a pod.
          this.markObserved();
        });
    };
    tick();
    this.timer = this.deps.clock.setInterval(tick, EVICTION_MONITORING_PERIOD_MS);
  }

  async stop(): Promise<void> {
    this.timer?.cancel();
    await this.pass;
  }

  /** The pressure conditions now true (for the node's status and admission). */
  pressure(): readonly PressureCondition[] {
    return this.conditions;
  }

  /**
   * The eviction admit handler: no pod is admitted under disk or PID
   * pressure, and no BestEffort pod under memory pressure unless it
   * tolerates the memory-pressure taint; critical pods always are.
   */
  admit(pod: Pod): AdmitResult {
    if (this.conditions.length === 0 || isCriticalPod(pod)) return { admit: true };
    if (this.conditions.length === 1 && this.conditions[0] === 'MemoryPressure') {
      if (qosClassOf(pod) !== 'BestEffort') return { admit: true };
      // TolerationsTolerateTaint for the node.kubernetes.io/memory-pressure:NoSchedule taint.
      const tolerates = (pod.spec.tolerations ?? []).some(
        (t) =>
          (!t.effect || t.effect === 'NoSchedule') &&
          (t.key ? t.key === MEMORY_PRESSURE_TAINT : t.operator === 'Exists') &&
          (t.operator === 'Exists' || (t.value ?? '') === ''),
      );
      if (tolerates) return { admit: true };
    }
    return { admit: false, reason: EVICTED_REASON, message: `The node had condition: [${this.conditions.join(' ')}]. ` };
  }

  /** One pass (synchronize): the pods evicted (one for pressure; every one over a local storage limit). */
  async synchronize(): Promise<Pod[]> {
    const { clock } = this.deps;
    const observations = observe(await this.deps.nodeSignals());
    let thresholds = thresholdsMet(this.deps.thresholds, observations, false);
    if (this.met.length > 0) thresholds = mergeThresholds(thresholds, thresholdsMet(this.met, observations, true));
    const now = clock.now();
    const observedAt = firstObservedAt(thresholds, this.observedAt, now);
    for (const c of conditionsOf(thresholds)) this.conditionsSeenAt.set(c, now);
    for (const [c, at] of this.conditionsSeenAt) if (now - at >= this.deps.pressureTransitionPeriodMs) this.conditionsSeenAt.delete(c);
    this.setConditions([...this.conditionsSeenAt.keys()]);
    const ready = metGracePeriod(observedAt, now);
    this.observedAt = observedAt;
    this.met = ready;
    const fresh = updatedStats(ready, observations, this.lastObservations);
    this.lastObservations = observations;
    // Local storage over its limits is evicted whatever the thresholds say.
    const overLimit = await this.localStorageEviction();
    if (overLimit.length > 0) return overLimit;
    if (fresh.length === 0) return [];

    const threshold = byEvictionPriority(fresh)[0];
    const resource = SIGNAL_INFO[threshold.signal].resource;
    this.deps.events.emit({
      type: 'EvictionThresholdMet',
      pod: '',
      uid: '',
      reason: 'EvictionThresholdMet',
      message: `Attempting to reclaim ${resource}`,
    });
    if (await this.reclaimNodeLevel(threshold)) return [];

    const active = this.deps.activePods();
    if (active.length === 0) return [];
    const stats = new Map((await this.deps.podStats()).map((s) => [s.podRef.uid, s]));
    const statsFor = (pod: Pod) => stats.get(pod.metadata.uid ?? '');
    for (const pod of rankForEviction(active, threshold.signal, statsFor)) {
      if (isCriticalPod(pod)) continue;
      let grace = IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS;
      if (!isHardThreshold(threshold)) {
        grace = Math.min(this.deps.maxPodGracePeriodSeconds, pod.spec.terminationGracePeriodSeconds ?? this.deps.maxPodGracePeriodSeconds);
      }
      const message = evictionMessage(resource, pod, statsFor(pod), fresh, observations);
      await this.evict(pod, grace, message, true);
      return [pod];
    }
    return [];
  }

  /** Disk signals first free what the node holds; true when that brought every threshold back past its minimum reclaim. */
  private async reclaimNodeLevel(threshold: Threshold): Promise<boolean> {
    if (SIGNAL_INFO[threshold.signal].condition !== 'DiskPressure') return false;
    for (const step of [this.deps.reclaim.containers, this.deps.reclaim.images]) await step().catch(() => undefined);
    const after = observe(await this.deps.nodeSignals());
    return thresholdsMet(this.deps.thresholds, after, true).length === 0;
  }

  /**
   * localStorageEviction: every pod over an emptyDir sizeLimit or an
   * ephemeral-storage limit, evicted at once, in one pass as upstream. Usage
   * is read only when a pod has such a limit.
   */
  private async localStorageEviction(): Promise<Pod[]> {
    const limited = this.deps.activePods().filter((p) => !isCriticalPod(p) && hasLocalStorageLimits(p));
    if (limited.length === 0) return [];
    const stats = new Map((await this.deps.podStats()).map((s) => [s.podRef.uid, s]));
    const evicted: Pod[] = [];
    for (const pod of limited) {
      const podStats = stats.get(pod.metadata.uid ?? '');
      const message = podStats && localStorageViolation(pod, podStats);
      if (!message) continue;
      await this.evict(pod, IMMEDIATE_EVICTION_GRACE_PERIOD_SECONDS, message, false);
      evicted.push(pod);
    }
    return evicted;
  }

  /**
   * Kills the pod Failed with reason Evicted (and, for pressure, a
   * DisruptionTarget condition); the pass waits for the kill, as the
   * kubelet's killPodNow.
   */
  private async evict(pod: Pod, gracePeriodSeconds: number, message: string, disruption: boolean): Promise<void> {
    const { clock, events } = this.deps;
    events.emit({
      type: 'PodEvicted',
      pod: `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name}`,
      uid: pod.metadata.uid ?? '',
      reason: EVICTED_REASON,
      message,
    });
    const statusFn = (status: PodStatus) => {
      status.phase = 'Failed';
      status.reason = EVICTED_REASON;
      status.message = message;
      if (disruption) setDisruptionTarget(status, message, clock.now());
    };
    await this.deps.killPod(pod, gracePeriodSeconds, statusFn);
  }

  private setConditions(next: PressureCondition[]): void {
    const before = new Set(this.conditions);
    const after = new Set(next);
    for (const c of Object.keys(CONDITION_REASONS) as PressureCondition[]) {
      if (before.has(c) === after.has(c)) continue;
      const [pressure, fine] = CONDITION_REASONS[c];
      const reason = after.has(c) ? pressure : fine;
      this.deps.events.emit({
        type: 'NodePressureChanged',
        pod: '',
        uid: '',
        reason,
        message: `Node ${this.deps.nodeName} status is now: ${reason}`,
      });
    }
    this.conditions = next;
  }
}
