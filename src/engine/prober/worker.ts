import type { RuntimeService } from '../../cri/runtime-service.js';
import type { Clock, Timer } from '../../util/clock.js';
import { podRef } from '../api/pod-util.js';
import type { Container, Pod, Probe } from '../api/v1.js';
import type { ContainerInstance } from '../container/types.js';
import type { EventStream } from '../events.js';
import { runProbe, type ProbeResult } from './probe.js';

export type ProbeKind = 'liveness' | 'readiness' | 'startup';

/** The result a probe has before it first runs: live until shown otherwise, not ready, not yet started. */
const INITIAL: Record<ProbeKind, ProbeResult> = { liveness: 'success', readiness: 'failure', startup: 'unknown' };
const TITLE: Record<ProbeKind, string> = { liveness: 'Liveness', readiness: 'Readiness', startup: 'Startup' };

/** Probe results by container id. */
export class ResultsCache {
  private readonly results = new Map<string, ProbeResult>();

  get(containerId: string): ProbeResult | undefined {
    return this.results.get(containerId);
  }

  /** Returns whether the result changed. */
  set(containerId: string, result: ProbeResult): boolean {
    const changed = this.results.get(containerId) !== result;
    this.results.set(containerId, result);
    return changed;
  }

  remove(containerId: string): void {
    this.results.delete(containerId);
  }
}

export interface WorkerDeps {
  runtime: RuntimeService;
  clock: Clock;
  random: () => number;
  events: EventStream;
  /** The newest instance of a container in the runtime, and the pod's IP. */
  current: (uid: string, name: string) => ContainerInstance | undefined;
  podIP: (uid: string) => string;
  results: Record<ProbeKind, ResultsCache>;
  /** Told when a container's result for this kind of probe changes. */
  onChange: (uid: string, kind: ProbeKind, containerId: string, result: ProbeResult) => void;
  /** When the prober manager started (the node's start): a container that ran before it is probed first after a random part of a period. */
  startedAt: number;
}

/**
 * One probe of one container (the kubelet's probe worker): runs it every
 * periodSeconds after initialDelaySeconds, turns runs of results into a
 * result only at successThreshold/failureThreshold, follows the container
 * across restarts (a new instance starts from the initial result), and
 * holds off after a liveness or startup failure until the container is
 * replaced. Liveness and readiness wait for the startup probe to succeed.
 */
export class ProbeWorker {
  private timer: Timer | undefined;
  private stopped = false;
  private containerId = '';
  private lastResult: ProbeResult = 'unknown';
  private resultRun = 0;
  private onHold = false;
  /** A probe runs, or the first wait after a restart is on: a trigger then runs the probe again once it ends. */
  private busy = false;
  private triggered = false;

  constructor(
    readonly kind: ProbeKind,
    private readonly pod: Pod,
    private readonly container: Container,
    private readonly probe: Probe,
    private readonly deps: WorkerDeps,
  ) {}

  start(): void {
    // Spread over one period the first runs of the workers of containers that ran before the node started
    // (a restart): the kubelet sleeps that wait, so a trigger meanwhile runs the probe after it. The kubelet
    // waits so for any worker within a period of its start; a container started since needs no spreading.
    const current = this.deps.current(this.pod.metadata.uid!, this.container.name);
    const ranBefore = current?.state === 'running' && current.startedAt < this.deps.startedAt;
    if (ranBefore && this.kind === 'startup' && shownStarted(this.pod, this.container.name, current.id)) {
      // The kubelet keeps a running container's Started from the pod's status it had (see the
      // manager's isStarted): its startup probe does not run again, and its liveness and
      // readiness probes need not wait for one.
      this.containerId = current.id;
      this.deps.results.startup.set(current.id, 'success');
    }
    if (!ranBefore || this.deps.clock.now() - this.deps.startedAt >= this.period()) return this.schedule(0);
    this.busy = true;
    this.timer = this.deps.clock.setTimeout(() => this.run(), this.deps.random() * this.period());
  }

  /**
   * Probes now and then a period on (the kubelet's manual trigger, which its
   * status sends while a readiness probe has not succeeded): a container
   * that just started is ready as soon as its probe says so, not a period
   * later. One trigger during a run or the first wait runs it again after.
   */
  trigger(): void {
    if (this.stopped) return;
    if (this.busy) {
      this.triggered = true;
      return;
    }
    this.timer?.cancel();
    this.run();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    if (this.containerId) this.deps.results[this.kind].remove(this.containerId);
  }

  private period(): number {
    return (this.probe.periodSeconds ?? 10) * 1000;
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = this.deps.clock.setTimeout(() => this.run(), delay);
  }

  private run(): void {
    this.busy = true;
    void this.doProbe().finally(() => {
      this.busy = false;
      if (!this.triggered) return this.schedule(this.period());
      this.triggered = false;
      this.trigger();
    });
  }

  private async doProbe(): Promise<void> {
    const uid = this.pod.metadata.uid!;
    const results = this.deps.results[this.kind];
    const current = this.deps.current(uid, this.container.name);
    // Not created yet, or created and not yet started (the runtime seen between
    // CreateContainer and StartContainer): wait for more information. Counting a
    // container about to start as failed would have the sync kill it for a failed
    // liveness or startup probe the moment it runs.
    if (!current || current.state === 'created') return;
    if (current.id !== this.containerId) {
      if (this.containerId) results.remove(this.containerId);
      this.containerId = current.id;
      results.set(current.id, INITIAL[this.kind]);
      this.onHold = false;
      this.resultRun = 0;
    }
    if (this.onHold) return;
    if (current.state !== 'running') {
      this.set('failure');
      return;
    }
    if (this.pod.metadata.deletionTimestamp && this.kind !== 'readiness') {
      this.set('success');
      return;
    }
    const startup = this.deps.results.startup.get(current.id);
    if (this.kind === 'startup' && startup === 'success') return;
    if (this.kind !== 'startup' && this.container.startupProbe && startup !== 'success') return;
    if (this.deps.clock.now() - current.startedAt < (this.probe.initialDelaySeconds ?? 0) * 1000) return;

    const outcome = await runProbe(
      this.probe,
      { container: this.container, containerId: current.id, podIP: this.deps.podIP(uid) },
      this.deps.runtime,
    );
    if (this.stopped || outcome.result === 'unknown') return;
    if (outcome.result === 'failure') {
      this.deps.events.emit({
        type: 'ProbeFailed',
        pod: podRef(this.pod),
        uid,
        container: this.container.name,
        reason: 'Unhealthy',
        message: `${TITLE[this.kind]} probe failed: ${outcome.output}`,
        detail: { probe: this.kind },
      });
    }
    if (outcome.result === this.lastResult) this.resultRun++;
    else {
      this.lastResult = outcome.result;
      this.resultRun = 1;
    }
    const threshold = outcome.result === 'failure' ? (this.probe.failureThreshold ?? 3) : (this.probe.successThreshold ?? 1);
    if (this.resultRun < threshold) return;
    this.set(outcome.result);
    if (outcome.result === 'failure' && this.kind !== 'readiness') {
      // The container will be restarted: nothing to probe until its replacement starts.
      this.onHold = true;
      this.resultRun = 0;
    }
  }

  private set(result: ProbeResult): void {
    if (this.deps.results[this.kind].set(this.containerId, result))
      this.deps.onChange(this.pod.metadata.uid!, this.kind, this.containerId, result);
  }
}

/** Whether POD's status shows its container NAME started, as the container ID. */
export function shownStarted(pod: Pod, name: string, id: string): boolean {
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const status = statuses.find((s) => s.name === name);
  // The kubelet copies it whatever the ID; knode only for the same container (one restarted meanwhile starts anew).
  return status?.started === true && status.containerID?.replace(/^[^:]*:\/\//, '') === id;
}
