import type { ContainerEvent } from '../../cri/types.js';
import type { Clock, Timer } from '../../util/clock.js';
import type { ContainerRuntimeState, RunningPod, RuntimePodStatus } from '../container/types.js';
import type { EventStream } from '../events.js';
import type { RuntimeManager } from '../kuberuntime/runtime-manager.js';
import type { TerminatingRead } from '../pod-syncer.js';
import type { PodCache } from './pod-cache.js';
import type { PodLifecycleEvent, PodLifecycleEventType } from './types.js';
import { eachLimited } from '../../util/each-limited.js';

type PlegState = ContainerRuntimeState | 'nonexistent';

/** How many changed pods a full relist reads from the runtime at once. */
const RELIST_READS_AT_ONCE = 8;

interface PodRecord {
  old?: RunningPod;
  current?: RunningPod;
}

export interface PlegOptions {
  runtime: RuntimeManager;
  cache: PodCache;
  clock: Clock;
  events: EventStream;
  /** Told about every container change, after the cache holds the pod's new status. */
  onEvent: (event: PodLifecycleEvent) => void;
  /** The current relist period (short without runtime events, long with them). */
  period: () => number;
  /** A relist that has not happened for this long makes the PLEG unhealthy. */
  relistThreshold: number;
}

/**
 * The generic PLEG: relists the runtime's pods every period, diffs every
 * container's state against the last relist, refreshes the pod cache for the
 * pods that changed and emits ContainerStarted/Died/Removed/Changed. A
 * targeted relist of one pod (a runtime event's hint, or a pod worker after
 * its sync) does the same for that pod at once. A full relist runs alone;
 * targeted relists of different pods run side by side (each touches only its
 * own pod's record), and those of one pod one after another, so the records
 * only move forward.
 */
export class GenericPLEG {
  private readonly records = new Map<string, PodRecord>();
  private readonly needsReinspection = new Set<string>();
  /** The last full relist asked for (it runs after the targeted relists under way when it was asked). */
  private full: Promise<void> = Promise.resolve();
  /** The latest targeted relist asked for, per pod. */
  private readonly targeted = new Map<string, Promise<void>>();
  private timer: Timer | undefined;
  private stopped = false;
  private lastRelist = 0;
  private started: number | undefined;
  /** When the scheduled full relist is due (Infinity while one runs or none is scheduled). */
  private due = Infinity;
  /** The period as start or reschedule last read it (reschedule compares the new one with it). */
  private period = 0;

  constructor(private readonly opts: PlegOptions) {}

  start(): void {
    this.started = this.opts.clock.now();
    this.period = this.opts.period();
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
  }

  /** Waits for the relists in flight (if any) to finish. */
  async idle(): Promise<void> {
    await Promise.all([this.full, ...this.targeted.values()]);
  }

  /**
   * Healthy unless no relist succeeded for the threshold past when the next
   * was due (the period, so the evented PLEG's slow relist is not late);
   * healthy before it starts.
   */
  healthy(): { ok: boolean; message: string } {
    if (this.started === undefined) return { ok: true, message: '' };
    const since = this.opts.clock.now() - (this.lastRelist || this.started);
    const threshold = this.opts.relistThreshold + this.opts.period();
    if (since > threshold) {
      return { ok: false, message: `pleg was last seen active ${Math.round(since / 1000)}s ago; threshold is ${threshold / 1000}s` };
    }
    return { ok: true, message: '' };
  }

  /**
   * The runtime's pods as the PLEG last saw each (its full relist, and the
   * targeted relists since); undefined before the first full relist.
   */
  runningPods(): RunningPod[] | undefined {
    if (this.lastRelist === 0) return undefined;
    return [...this.records.values()].flatMap((r) => (r.current ? [r.current] : []));
  }

  /**
   * The period changed. Shorter (the runtime's events stopped): the next
   * full relist comes a new period from now, unless it is due sooner.
   * Longer (the events began to flow): the relist already scheduled on the
   * short period is put off a new period too, or it would land in the burst
   * of pods that set the events off and read each of them in the middle of
   * its sync. The first relist, due at start, is never put off (pods wait for
   * it before their first sync).
   */
  reschedule(): void {
    const period = this.opts.period();
    const sooner = this.opts.clock.now() + period < this.due;
    const putOff = period > this.period && this.lastRelist > 0 && this.due !== Infinity;
    this.period = period;
    if (sooner || putOff) this.schedule(period);
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer?.cancel();
    this.due = this.opts.clock.now() + delay;
    this.timer = this.opts.clock.setTimeout(() => {
      this.due = Infinity;
      void this.relist().finally(() => this.schedule(this.opts.period()));
    }, delay);
  }

  /** Runs FN once every relist in AFTER is done (and not at all once stopped); never rejects. */
  private after(after: (Promise<void> | undefined)[], fn: () => Promise<void>): Promise<void> {
    return Promise.all(after)
      .then(() => (this.stopped ? undefined : fn()))
      .catch(() => {});
  }

  /** One full relist of every pod this node made. */
  relist(): Promise<void> {
    this.full = this.after([this.full, ...this.targeted.values()], async () => {
      const { runtime, cache, clock } = this.opts;
      const timestamp = clock.now();
      let pods: RunningPod[];
      try {
        pods = await runtime.getPods();
      } catch (err) {
        this.opts.events.emit({
          type: 'PLEGRelist',
          pod: '',
          uid: '',
          reason: 'RelistFailed',
          message: `GetPods failed: ${(err as Error).message}`,
        });
        return;
      }
      this.lastRelist = timestamp;
      const current = new Map(pods.map((p) => [p.uid, p]));
      for (const [uid, pod] of current) this.record(uid).current = pod;
      for (const [uid, rec] of this.records) if (!current.has(uid)) rec.current = undefined;

      const toSend: PodLifecycleEvent[] = [];
      const reinspect: RunningPod[] = [];
      for (const [uid, rec] of [...this.records]) {
        const events = computeEvents(uid, rec.old, rec.current);
        if (events.length > 0 || this.needsReinspection.has(uid)) {
          if (rec.current) reinspect.push(rec.current);
          else cache.delete(uid);
        }
        rec.old = rec.current;
        if (!rec.current) this.records.delete(uid);
        toSend.push(...events);
      }
      // The pods that changed are read a few at a time: one by one, a relist that finds hundreds
      // changed (a burst of starts) holds back every event, and every targeted relist, for as long.
      await eachLimited(reinspect, RELIST_READS_AT_ONCE, (pod) => this.updateCache(pod.uid, pod.name, pod.namespace, timestamp));
      cache.updateTime(timestamp);
      const durationMs = clock.now() - timestamp;
      const containers = pods.reduce((n, p) => n + p.containers.length, 0);
      this.opts.events.emit({
        type: 'PLEGRelist',
        pod: '',
        uid: '',
        message: `relisted ${pods.length} pods, ${containers} containers in ${durationMs.toFixed(1)}ms: ${toSend.length} events`,
        detail: { durationMs, pods: pods.length, containers, events: toSend.length },
      });
      for (const e of toSend) this.opts.onEvent(e);
    });
    return this.full;
  }

  /**
   * A targeted relist of one pod: refreshes its cache entry now and emits what
   * changed. AFTER is when the sync that asked for it ended: what this relist sees
   * is newer than that, and its stamp says so even within the same millisecond
   * (the clock's resolution), or the pod's worker, which waits for a status newer
   * than its last sync, would wait for the next full relist.
   */
  relistPod(uid: string, name: string, namespace: string, after = -Infinity): Promise<void> {
    return this.targetedRun(uid, async () => {
      const status = await this.updateCache(uid, name, namespace, this.targetedStamp(uid, after));
      if (status) this.advance(uid, status);
    });
  }

  /**
   * The pod's status from a runtime container event instead of a read: the
   * event shows the pod as its sync left it (EventedHints.afterSync). It
   * stands if nothing read the pod since UNCHANGED_SINCE (the stamp of the
   * cached status as the sync began: a later read may have seen later
   * changes) and the pod has no sandbox but the event's; otherwise the pod is
   * read as relistPod reads it. Stamped as relistPod stamps.
   */
  statusFromEvent(
    uid: string,
    name: string,
    namespace: string,
    event: ContainerEvent,
    after: number,
    unchangedSince: number,
  ): Promise<void> {
    return this.targetedRun(uid, async () => {
      const timestamp = this.targetedStamp(uid, after);
      const cached = this.opts.cache.get(uid);
      let status =
        cached.modified === unchangedSince && !this.needsReinspection.has(uid)
          ? await this.opts.runtime.podStatusFromEvent(event, uid, name, namespace)
          : undefined;
      if (status && cached.status.sandboxes.some((s) => s.id !== status!.sandboxes[0].id)) status = undefined;
      if (status) this.opts.cache.set(uid, status, undefined, timestamp);
      else status = await this.updateCache(uid, name, namespace, timestamp);
      if (status) this.advance(uid, status);
    });
  }

  /**
   * The pod's status as a terminating sync read it, after its kill
   * (EventedHints.afterSync): it stands if nothing read the pod since the
   * read began; otherwise the pod is read as relistPod reads it. Stamped as
   * relistPod stamps.
   */
  statusFromRead(uid: string, name: string, namespace: string, read: TerminatingRead, after: number): Promise<void> {
    return this.targetedRun(uid, async () => {
      const timestamp = this.targetedStamp(uid, after);
      let status: RuntimePodStatus | undefined = read.status;
      if (this.opts.cache.get(uid).modified > read.readAt || this.needsReinspection.has(uid))
        status = await this.updateCache(uid, name, namespace, timestamp);
      else this.opts.cache.set(uid, status, undefined, timestamp);
      if (status) this.advance(uid, status);
    });
  }

  /** The stamp of a targeted relist: see relistPod. */
  private targetedStamp(uid: string, after: number): number {
    // Newer than what the cache holds, too: relists run one after another, so this one reads the
    // runtime after that entry was read, even within its millisecond, or after a confirm() that
    // stamped it a millisecond ahead (a worker waiting for a status newer than its sync needs it).
    return Math.max(this.opts.clock.now(), after + 1, this.opts.cache.get(uid).modified + 1);
  }

  /** Runs FN after the full relist and the pod's targeted relists asked for before it. */
  private targetedRun(uid: string, fn: () => Promise<void>): Promise<void> {
    const run = this.after([this.full, this.targeted.get(uid)], fn);
    this.targeted.set(uid, run);
    void run.then(() => {
      if (this.targeted.get(uid) === run) this.targeted.delete(uid);
    });
    return run;
  }

  /** The pod's record moves to STATUS, and what changed is told. */
  private advance(uid: string, status: RuntimePodStatus): void {
    const rec = this.record(uid);
    rec.current = status.containers.length + status.sandboxes.length > 0 ? toRunningPod(status) : undefined;
    const events = computeEvents(uid, rec.old, rec.current);
    rec.old = rec.current;
    if (!rec.current) this.records.delete(uid);
    for (const e of events) this.opts.onEvent(e);
  }

  /** When the pod's cached status was read (0: never). */
  cachedAt(uid: string): number {
    return this.opts.cache.get(uid).modified;
  }

  /**
   * Takes the pod's cached status as current after AFTER (nothing changed it
   * since it was read), unless a relist of the pod is under way or the
   * status is an error; returns whether it did.
   */
  confirm(uid: string, after: number): boolean {
    if (this.targeted.has(uid)) return false;
    return this.opts.cache.touch(uid, Math.max(this.opts.clock.now(), after + 1));
  }

  private record(uid: string): PodRecord {
    let rec = this.records.get(uid);
    if (!rec) {
      rec = {};
      this.records.set(uid, rec);
    }
    return rec;
  }

  private async updateCache(uid: string, name: string, namespace: string, timestamp: number): Promise<RuntimePodStatus | undefined> {
    try {
      const status = await this.opts.runtime.getPodStatus(uid, name, namespace);
      this.opts.cache.set(uid, status, undefined, timestamp);
      this.needsReinspection.delete(uid);
      return status;
    } catch (err) {
      this.needsReinspection.add(uid);
      this.opts.cache.set(uid, this.opts.cache.get(uid).status, err as Error, timestamp);
      return undefined;
    }
  }
}

function toRunningPod(status: RuntimePodStatus): RunningPod {
  return {
    uid: status.uid,
    name: status.name,
    namespace: status.namespace,
    sandboxes: status.sandboxes.map((s) => ({ id: s.id, state: s.state, createdAt: s.createdAt })),
    containers: status.containers.map((c) => ({
      id: c.id,
      name: c.name,
      state: c.state,
      createdAt: c.createdAt,
      hash: c.hash,
      sandboxId: '',
    })),
  };
}

/** Each container's (and sandbox's) state, as the PLEG compares them. */
function statesOf(pod: RunningPod | undefined): Map<string, PlegState> {
  const states = new Map<string, PlegState>();
  if (!pod) return states;
  for (const s of pod.sandboxes) states.set(s.id, s.state === 'ready' ? 'running' : 'exited');
  // The kubelet does not use "created" yet: it is reported as unknown.
  for (const c of pod.containers) states.set(c.id, c.state === 'created' ? 'unknown' : c.state);
  return states;
}

export function computeEvents(uid: string, old: RunningPod | undefined, current: RunningPod | undefined): PodLifecycleEvent[] {
  const before = statesOf(old);
  const after = statesOf(current);
  const events: PodLifecycleEvent[] = [];
  for (const id of new Set([...before.keys(), ...after.keys()])) {
    for (const type of generateEvents(before.get(id) ?? 'nonexistent', after.get(id) ?? 'nonexistent'))
      events.push({ id: uid, type, data: id });
  }
  return events;
}

/** The kubelet's generateEvents: what a container's state change means. */
export function generateEvents(oldState: PlegState, newState: PlegState): PodLifecycleEventType[] {
  if (oldState === newState) return [];
  switch (newState) {
    case 'running':
      return ['ContainerStarted'];
    case 'exited':
      return ['ContainerDied'];
    case 'unknown':
    case 'created':
      return ['ContainerChanged'];
    case 'nonexistent':
      return oldState === 'exited' ? ['ContainerRemoved'] : ['ContainerDied', 'ContainerRemoved'];
  }
}
