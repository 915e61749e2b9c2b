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

  constructor(
    readonly kind: ProbeKind,
    private readonly pod: Pod,
    private readonly container: Container,
    private readonly probe: Probe,
    private readonly deps: WorkerDeps,
  ) {}

  start(): void {
    // Spread the first runs of many workers (a restarted kubelet) over one period.
    this.schedule(this.deps.random() * this.period());
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
    this.timer = this.deps.clock.setTimeout(() => {
      void this.doProbe().finally(() => this.schedule(this.period()));
    }, delay);
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
