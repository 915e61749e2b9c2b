import type { RuntimeService } from '../../cri/runtime-service.js';
import { CriError, GrpcCode } from '../../cri/errors.js';
import { KubeletLabels, type ContainerEvent } from '../../cri/types.js';
import type { Clock, Timer } from '../../util/clock.js';
import type { EventStream } from '../events.js';
import type { SyncOutcome, TerminatingRead } from '../pod-syncer.js';
import { NodeNameLabel } from '../kuberuntime/labels.js';
import type { GenericPLEG } from './generic.js';

export type PlegMode = 'evented' | 'generic';
type ModeState = PlegMode | 'starting';

/** Targeted relists (of different pods) at once: enough to keep the runtime busy, few enough that a full relist soon gets its turn. */
const MAX_TARGETED = 8;

/** How long to wait before opening the event stream again after it broke. */
const RECONNECT_DELAY_MS = 5_000;

/**
 * How long a pod whose sync ended waits for the events of the sync's changes
 * that have not come yet before it is read instead: containerd sends them
 * from another goroutine, so one may come just after the call's answer.
 */
const LATE_EVENT_WAIT_MS = 50;

/** What the runtime's events said of a pod while its sync ran (see afterSync). */
interface SyncWatch {
  /** The stamp of the pod's cached status as the sync began (a read since may have seen more than the events). */
  cachedAt: number;
  /** The stream the events came on: one that broke meanwhile may have lost some. */
  stream: number;
  /** Each event of the pod since, as `TYPE:id`. */
  seen: Set<string>;
  /** The newest of them: it carries the pod's sandbox and every container in it. */
  latest?: ContainerEvent;
  /** Once the sync ended: what it made, waiting for the events of it that have not come yet. */
  ended?: { runtimeEvents: string[]; name: string; namespace: string; syncedAt: number; timer: Timer };
}

/**
 * Runtime container events as hints (DESIGN.md): each event makes the PLEG
 * relist that pod at once, while the periodic relist stays the truth. After
 * a sync that did nothing but make the sandbox and start containers, the
 * events of those changes, once all have come, stand for the relist: the
 * newest shows the pod as the sync left it (knode's own; upstream's relists
 * on a container's stop alone). A runtime without the stream
 * (UNIMPLEMENTED, containerd 1.6) or a broken stream falls back to
 * relisting every second, and says so.
 */
export class EventedHints {
  private readonly abort = new AbortController();
  /** Pods waiting for a targeted relist; AT: when the latest hint for it came. */
  private readonly pending = new Map<string, { name: string; namespace: string; after: number; at: number }>();
  /** Pods whose targeted relist runs now. */
  private readonly running = new Set<string>();
  private scheduled = false;
  /** Relists that follow failed syncs, by pod, each waiting out its delay. */
  private readonly afterFailure = new Map<string, Timer>();
  /** Pods whose sync runs, each with when its hold ends: their hints wait for the sync's end (see syncStarted). */
  private readonly held = new Map<string, Timer>();
  /** Pods whose sync runs, with what the events said of each meanwhile. */
  private readonly watching = new Map<string, SyncWatch>();
  /** Counts the event streams opened: events of an earlier one do not vouch for a sync. */
  private stream = 0;
  mode: ModeState = 'starting';

  constructor(
    private readonly runtime: RuntimeService,
    private readonly pleg: GenericPLEG,
    private readonly clock: Clock,
    private readonly events: EventStream,
    private readonly nodeName: string,
    private readonly onModeChange: (mode: PlegMode) => void,
    /** How long after a failed sync its pod is relisted: the generic PLEG's period. */
    private readonly failedSyncRelistDelay: number,
    /** How long a sync may hold its pod's events: the full relist's period while events flow. */
    private readonly syncHoldLimit: number,
  ) {}

  start(): void {
    void this.run();
  }

  stop(): void {
    this.abort.abort();
    for (const timer of this.afterFailure.values()) timer.cancel();
    this.afterFailure.clear();
    for (const timer of this.held.values()) timer.cancel();
    this.held.clear();
    for (const watch of this.watching.values()) watch.ended?.timer.cancel();
    this.watching.clear();
  }

  private setMode(mode: PlegMode, message: string): void {
    if (mode === this.mode) return;
    this.mode = mode;
    this.events.emit({
      type: 'PLEGRelist',
      pod: '',
      uid: '',
      reason: mode === 'evented' ? 'EventedPLEG' : 'GenericPLEG',
      message,
      detail: { mode },
    });
    this.onModeChange(mode);
  }

  private async run(): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      this.stream++;
      try {
        for await (const event of this.runtime.getContainerEvents(signal)) {
          this.setMode('evented', 'runtime container events arrive: relisting pods as they change');
          const labels = event.podSandboxStatus?.labels ?? event.containersStatuses[0]?.labels ?? {};
          if (labels[NodeNameLabel] !== this.nodeName) continue;
          const uid = labels[KubeletLabels.podUid];
          if (!uid) continue;
          const watch = this.watching.get(uid);
          if (watch?.stream === this.stream) {
            watch.seen.add(`${event.containerEventType}:${event.containerId}`);
            watch.latest = event;
            // The event that completes an ended sync's changes shows the pod: it needs no relist.
            if (watch.ended && this.intact(uid, watch) && covers(watch, watch.ended.runtimeEvents)) {
              this.takeFromEvents(uid, watch);
              continue;
            }
          }
          this.hint(uid, labels[KubeletLabels.podName] ?? '', labels[KubeletLabels.podNamespace] ?? '');
        }
        if (signal.aborted) return;
        this.setMode('generic', 'the runtime closed its container event stream; relisting every period until it is back');
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof CriError && err.code === GrpcCode.UNIMPLEMENTED) {
          this.setMode('generic', 'the runtime has no GetContainerEvents (UNIMPLEMENTED); relisting every period');
          return;
        }
        this.setMode('generic', `the container event stream broke (${(err as Error).message}); relisting every period`);
      }
      await this.clock.sleep(RECONNECT_DELAY_MS, signal).catch(() => {});
    }
  }

  /**
   * Queues a targeted relist of the pod. Up to MAX_TARGETED run at once, for
   * different pods: a pod already waiting gets no second relist (the waiting
   * one reads the runtime when it runs, so it sees this change too), a pod
   * whose relist runs gets one more after it, and the periodic relist, which
   * queues behind at most the relists under way, is never starved by a burst
   * of them.
   */
  hint(uid: string, name: string, namespace: string, after = -Infinity): void {
    // AFTER: when the sync that asks ended; the relist's stamp must be newer (GenericPLEG.relistPod).
    this.pending.set(uid, {
      name,
      namespace,
      after: Math.max(after, this.pending.get(uid)?.after ?? -Infinity),
      at: this.clock.now(),
    });
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // Events that arrive together (a sandbox and its containers) land before the first relist.
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  /**
   * After a pod's sync: a relist of the pod, so its worker sees what the sync
   * did. A sync that did nothing to the runtime needs none while the events
   * flow: any change since the cached status was read comes as an event, so
   * the cached status stands as current (as the kubelet's evented PLEG takes
   * it), unless a relist of the pod is already on its way. A failed sync's
   * relist comes a period later, when the kubelet's relist would see what it
   * left: its error (RunContainerError, ErrImagePull) shows meanwhile, and the
   * retry, which waits for a status newer than the failure, comes no sooner
   * than on the kubelet. A sync that made the sandbox and started containers
   * (RUNTIME_EVENTS, the events those changes make) needs none either once
   * each of those events has come: the pod is taken from the newest
   * (takeFromEvents). One still missing is waited for a little, then the pod
   * is read. A terminating sync reads the pod itself once its containers
   * and sandbox are stopped (READ): that read stands as the pod's relist,
   * and the hints held meanwhile that came before it began are in it; a
   * terminated pod took a read after each event of its stop before.
   */
  afterSync(
    uid: string,
    name: string,
    namespace: string,
    syncedAt: number,
    outcome: SyncOutcome,
    runtimeEvents?: string[],
    read?: TerminatingRead,
  ): void {
    if (outcome === 'changed' && read && this.mode === 'evented') {
      this.watching.delete(uid);
      if ((this.pending.get(uid)?.at ?? Infinity) < read.readAt) this.pending.delete(uid);
      // Taken before any relist the release lets go, which runs after it (the pleg's turns for the pod).
      void this.pleg.statusFromRead(uid, name, namespace, read, syncedAt);
      this.release(uid);
      return;
    }
    const watch = this.watching.get(uid);
    if (outcome === 'changed' && runtimeEvents && watch && this.intact(uid, watch)) {
      const timer = this.clock.setTimeout(() => {
        if (this.watching.get(uid) !== watch) return;
        this.watching.delete(uid);
        this.release(uid);
        this.hint(uid, name, namespace, syncedAt);
      }, LATE_EVENT_WAIT_MS);
      watch.ended = { runtimeEvents, name, namespace, syncedAt, timer };
      if (covers(watch, runtimeEvents)) this.takeFromEvents(uid, watch);
      return;
    }
    this.watching.delete(uid);
    this.release(uid);
    if (outcome === 'failed') {
      if (this.afterFailure.has(uid) || this.abort.signal.aborted) return;
      this.afterFailure.set(
        uid,
        this.clock.setTimeout(() => {
          this.afterFailure.delete(uid);
          this.hint(uid, name, namespace, syncedAt);
        }, this.failedSyncRelistDelay),
      );
      return;
    }
    if (
      outcome === 'untouched' &&
      this.mode === 'evented' &&
      !this.pending.has(uid) &&
      !this.running.has(uid) &&
      this.pleg.confirm(uid, syncedAt)
    )
      return;
    this.hint(uid, name, namespace, syncedAt);
  }

  /**
   * The pod's sync starts: its hints wait until the sync ends (afterSync),
   * and are then one relist with the sync's own, or none (see afterSync). A
   * relist of a pod while its sync runs reads a status its worker cannot use
   * (the worker waits for one newer than the sync) and is read again right
   * after: in a burst of pods, the events of each pod's sandbox and
   * container, which arrive while its sync makes them, took one more relist
   * of the pod (four CRI calls). Nothing else waits on them: the pod's API
   * status is written at the start of its next sync, as the kubelet's is.
   * A sync that runs longer than a full relist period (a long image pull)
   * has its hints relisted then, as the full relist would see them anyway.
   */
  syncStarted(uid: string): void {
    this.watching.get(uid)?.ended?.timer.cancel();
    this.watching.set(uid, { cachedAt: this.pleg.cachedAt(uid), stream: this.stream, seen: new Set() });
    this.held.get(uid)?.cancel();
    this.held.set(
      uid,
      this.clock.setTimeout(() => {
        this.held.delete(uid);
        // Its held events are relisted now, so they no longer show the pod as the sync leaves it
        // (and a sync that never reports its end, its worker stopped, leaves nothing behind).
        const watch = this.watching.get(uid);
        this.watching.delete(uid);
        if (watch?.ended) {
          watch.ended.timer.cancel();
          this.hint(uid, watch.ended.name, watch.ended.namespace, watch.ended.syncedAt);
        }
        if (this.pending.has(uid)) this.schedule();
      }, this.syncHoldLimit),
    );
  }

  /** The events of the pod may still show it: the stream has not broken since its sync began, and no relist of it runs. */
  private intact(uid: string, watch: SyncWatch): boolean {
    return this.mode === 'evented' && watch.stream === this.stream && !this.running.has(uid);
  }

  /**
   * Every change of the ended sync has had its event: the newest event shows
   * the pod as the sync left it. The runtime makes a change's event once the
   * change is done and sends its events in order, so the newest is newer
   * than all of them; any later change comes as another event, and the
   * newest is newer than every hint held during the sync too.
   */
  private takeFromEvents(uid: string, watch: SyncWatch): void {
    const { name, namespace, syncedAt, timer } = watch.ended!;
    timer.cancel();
    this.watching.delete(uid);
    this.pending.delete(uid);
    this.release(uid);
    void this.pleg.statusFromEvent(uid, name, namespace, watch.latest!, syncedAt, watch.cachedAt);
  }

  /** The pod's sync ended: a hint held meanwhile is relisted now (with the sync's own, when one follows). */
  private release(uid: string): void {
    const timer = this.held.get(uid);
    if (!timer) return;
    timer.cancel();
    this.held.delete(uid);
    if (this.pending.has(uid)) this.schedule();
  }

  private pump(): void {
    for (const [uid, p] of this.pending) {
      if (this.running.size >= MAX_TARGETED || this.abort.signal.aborted) return;
      if (this.running.has(uid) || this.held.has(uid)) continue;
      this.pending.delete(uid);
      this.running.add(uid);
      void this.pleg.relistPod(uid, p.name, p.namespace, p.after).finally(() => {
        this.running.delete(uid);
        this.pump();
      });
    }
  }
}

/** Whether WATCH has seen the event of each of RUNTIME_EVENTS (and so has a newest one). */
function covers(watch: SyncWatch, runtimeEvents: string[]): boolean {
  return watch.latest !== undefined && runtimeEvents.every((e) => watch.seen.has(e));
}
