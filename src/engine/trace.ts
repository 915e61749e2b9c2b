import type { EventStream, LifecycleEvent } from './events.js';

/** One stage of a pod's start: a bar from `start` to `end` (ms since the epoch). */
export interface TraceStage {
  name: string;
  container?: string;
  start: number;
  end: number;
}

export interface PodTrace {
  pod: string;
  uid: string;
  /** 'start-up' for the first start, 'restart' when a container died and the pod runs again. */
  kind: 'start-up' | 'restart';
  startedAt: number;
  /** When every container was running (or the pod completed); undefined while in progress. */
  finishedAt?: number;
  outcome?: string;
  stages: TraceStage[];
}

/** The lifecycle events that are stages of a start, and the name each bar gets. */
const STAGES: Partial<Record<LifecycleEvent['type'], string>> = {
  PodSeen: 'seen by source',
  PodAdmitted: 'admitted',
  WorkerStarted: 'worker started',
  VolumesReady: 'volumes ready',
  SandboxCreated: 'sandbox created',
  ImagePulled: 'image pulled',
  ContainerCreated: 'container created',
  ContainerStarted: 'container started',
  PodRunning: 'status Running',
  PodReady: 'Ready',
  PodSucceeded: 'status Succeeded',
  PodFailed: 'status Failed',
};

/**
 * Records each pod's start-up (and each restart) as a waterfall of stages,
 * from the event stream alone, for `knode trace`. Keeps the newest `limit`
 * traces.
 */
export class TraceRecorder {
  private readonly traces: PodTrace[] = [];
  private readonly open = new Map<string, PodTrace>();
  private readonly pulling = new Map<string, number>();
  /** Per pod, container ids to names, to name the containers PLEG events speak of. */
  private readonly names = new Map<string, Map<string, string>>();
  /** Pods removed that still have traces (so no more than the traces). */
  private readonly removed = new Set<string>();

  constructor(
    events: EventStream,
    private readonly limit = 500,
  ) {
    events.subscribe((e) => this.observe(e));
  }

  /** Traces of one pod (`namespace/name`), newest first. */
  forPod(pod: string): PodTrace[] {
    return this.traces.filter((t) => t.pod === pod).reverse();
  }

  /** The pods there are traces for. */
  pods(): string[] {
    return [...new Set(this.traces.map((t) => t.pod))];
  }

  private observe(e: LifecycleEvent): void {
    if (!e.uid) return;
    // A static pod written again comes back with the same uid.
    if (e.type === 'PodSeen') this.removed.delete(e.uid);
    // What follows a removal (its containers killed) is no restart.
    if (this.removed.has(e.uid)) return;
    this.record(e);
    if (e.type === 'PodRemoved') this.forget(e.uid);
  }

  private record(e: LifecycleEvent): void {
    let trace = this.open.get(e.uid);
    if (e.type === 'PodSeen' && !trace) trace = this.begin(e, 'start-up');
    // A container dying after the pod ran starts the trace of its restart.
    const ranBefore = trace ? trace.finishedAt !== undefined : this.traces.some((t) => t.uid === e.uid && t.finishedAt);
    if (e.type === 'PLEGEvent' && e.reason === 'ContainerDied' && ranBefore) {
      trace = this.begin(e, 'restart');
      trace.stages.push({ name: 'container died (PLEG)', start: e.at, end: e.at });
      return;
    }
    if (!trace) return;
    if (trace.finishedAt !== undefined && e.type !== 'PodReady') return;
    // An image volume's pull names no container: its volume stands in.
    const volume = e.type === 'ImagePulling' || e.type === 'ImagePulled' ? e.detail?.volume : undefined;
    const pulled = e.container ?? (volume !== undefined ? `volume ${volume}` : undefined);
    if (e.type === 'ImagePulling') this.pulling.set(`${e.uid}/${pulled}`, e.at);
    const names = this.names.get(e.uid) ?? new Map<string, string>();
    this.names.set(e.uid, names);
    if (e.type === 'ContainerStarted' && e.detail?.containerId !== undefined) names.set(e.detail.containerId, e.container ?? '');
    const died = e.type === 'PLEGEvent' && e.reason === 'ContainerDied' ? names.get(e.detail?.containerId ?? '') : undefined;
    if (died !== undefined) this.push(trace, 'container exited', { ...e, container: died });
    if (e.type === 'PLEGEvent' && e.reason === 'ContainerStarted' && !trace.stages.some((s) => s.name === 'PLEG observed')) {
      this.push(trace, 'PLEG observed', e);
    }
    const name = STAGES[e.type];
    if (name) {
      const pullStart = e.type === 'ImagePulled' ? this.pulling.get(`${e.uid}/${pulled}`) : undefined;
      if (e.type === 'ImagePulled') this.pulling.delete(`${e.uid}/${pulled}`);
      this.push(trace, name, e.type === 'ImagePulled' ? { ...e, container: pulled } : e, pullStart);
    }
    if (
      e.type === 'PodRunning' ||
      e.type === 'PodSucceeded' ||
      e.type === 'PodFailed' ||
      e.type === 'PodRejected' ||
      e.type === 'PodRemoved'
    ) {
      trace.finishedAt = e.at;
      trace.outcome = e.type === 'PodRunning' ? 'Running' : e.type.replace(/^Pod/, '');
      // A Running pod's trace stays open for its Ready, which usually follows in the same sync.
      if (e.type !== 'PodRunning') this.open.delete(e.uid);
    }
    if (e.type === 'PodReady') {
      trace.finishedAt = e.at;
      trace.outcome = 'Ready';
      this.open.delete(e.uid);
    }
  }

  /** What is kept per pod besides its traces goes with the pod (its traces stay, up to the limit). */
  private forget(uid: string): void {
    this.names.delete(uid);
    for (const key of this.pulling.keys()) if (key.startsWith(`${uid}/`)) this.pulling.delete(key);
    if (this.traces.some((t) => t.uid === uid)) this.removed.add(uid);
  }

  /** Pods with per-pod state beside their traces, for tests. */
  get podsTracked(): number {
    return new Set([...this.names.keys(), ...[...this.pulling.keys()].map((k) => k.split('/')[0]), ...this.open.keys()]).size;
  }

  private begin(e: LifecycleEvent, kind: PodTrace['kind']): PodTrace {
    const trace: PodTrace = { pod: e.pod, uid: e.uid, kind, startedAt: e.at, stages: [] };
    this.open.set(e.uid, trace);
    this.traces.push(trace);
    if (this.traces.length > this.limit) {
      const dropped = this.traces.shift()!;
      if (this.open.get(dropped.uid) === dropped) this.open.delete(dropped.uid);
      if (!this.traces.some((t) => t.uid === dropped.uid)) this.removed.delete(dropped.uid);
    }
    return trace;
  }

  /** A stage's bar runs from where the previous one ended (or from its own start, for pulls) to the event. */
  private push(trace: PodTrace, name: string, e: LifecycleEvent, start?: number): void {
    const previous = trace.stages.at(-1)?.end ?? trace.startedAt;
    trace.stages.push({ name, container: e.container, start: start ?? Math.min(previous, e.at), end: e.at });
  }
}
