// The kubelet's sync loop: one reader of config updates, PLEG events, probe results and ticks.
import { AsyncQueue } from '../util/async-queue.js';
import type { Clock, Timer } from '../util/clock.js';
import type { Pod } from './api/v1.js';
import type { PodConfig } from './config/pod-config.js';
import type { PodUpdate } from './config/pod-storage.js';
import type { EventStream } from './events.js';
import type { Housekeeping } from './housekeeping.js';
import type { ContainerDeletor } from './kuberuntime/container-deletor.js';
import type { PodSyncLoopHandler } from './lifecycle.js';
import type { PodCache } from './pleg/pod-cache.js';
import type { PodLifecycleEvent } from './pleg/types.js';
import type { PodManager } from './pod-manager.js';
import type { PodWorkers } from './pod-workers.js';
import type { SyncHandler } from './sync-handler.js';
import type { WorkQueue } from './work-queue.js';

/** What reaches the sync loop: upstream's configCh, plegCh, the probe results channels, syncCh and housekeepingCh. */
export type LoopMessage =
  | { kind: 'config'; update: PodUpdate }
  | { kind: 'pleg'; event: PodLifecycleEvent }
  | { kind: 'probe'; uid: string }
  | { kind: 'sync' }
  | { kind: 'housekeeping' };

export interface SyncLoopDeps {
  events: EventStream;
  podManager: PodManager;
  workQueue: WorkQueue;
  /** Asked on each sync tick for pods to sync without queued work (the active deadline). */
  podSyncLoopHandlers: readonly PodSyncLoopHandler[];
  handler: SyncHandler;
  housekeeping: Housekeeping;
  /** Whether every source was read once: housekeeping may then remove what no source names. */
  podConfig: Pick<PodConfig, 'seenAllSources'>;
  /** The kubelet is stopping: messages still queued are dropped. */
  stopped: () => boolean;
  /** The loop's own ticks from start() (the kubelet's syncTicker and housekeepingTicker); no housekeeping period, no housekeeping. */
  ticks?: { clock: Clock; syncPeriod: number; housekeepingPeriod?: number };
  /** Removes dead containers as they die (the kubelet's containerDeletor), with the statuses and pod states it goes by. */
  containerCleanup?: {
    deletor: Pick<ContainerDeletor, 'deleteContainersInPod'>;
    podCache: Pick<PodCache, 'get'>;
    podWorkers: Pick<PodWorkers, 'shouldPodContentBeRemoved'>;
  };
}

/**
 * The kubelet's syncLoop and syncLoopIteration: messages are handled one at a
 * time, in order, by the SyncHandler; a failed iteration is reported and the
 * loop goes on.
 */
export class SyncLoop {
  private readonly inbox = new AsyncQueue<LoopMessage>();
  private loop: Promise<void> | undefined;
  private housekeepingPass: Promise<void> = Promise.resolve();
  /** Every pod the sources gave has reached its worker: a housekeeping pass ran after all sources were seen. */
  private synced = false;
  private readonly timers: Timer[] = [];

  constructor(private readonly deps: SyncLoopDeps) {}

  get podsSynced(): boolean {
    return this.synced;
  }

  push(message: LoopMessage): void {
    this.inbox.push(message);
  }

  /** The PLEG's watch channel: each event is reported, then handled in the loop. */
  onPlegEvent(event: PodLifecycleEvent): void {
    const pod = this.deps.podManager.getPodByUid(event.id);
    this.deps.events.emit({
      type: 'PLEGEvent',
      pod: pod ? `${pod.metadata.namespace}/${pod.metadata.name}` : '',
      uid: event.id,
      reason: event.type,
      detail: { containerId: event.data },
    });
    this.inbox.push({ kind: 'pleg', event });
  }

  start(): void {
    this.loop = this.syncLoop();
    const ticks = this.deps.ticks;
    if (!ticks) return;
    this.timers.push(ticks.clock.setInterval(() => this.push({ kind: 'sync' }), ticks.syncPeriod));
    if (ticks.housekeepingPeriod !== undefined)
      this.timers.push(ticks.clock.setInterval(() => this.push({ kind: 'housekeeping' }), ticks.housekeepingPeriod));
  }

  /** Stops the ticks and closes the inbox at once; resolves when the loop and the housekeeping pass under way have ended. */
  async close(): Promise<void> {
    for (const t of this.timers) t.cancel();
    this.inbox.close();
    await this.loop;
    await this.housekeepingPass;
  }

  private async syncLoop(): Promise<void> {
    for (;;) {
      const message = await this.inbox.next();
      if (!message || this.deps.stopped()) return;
      try {
        await this.syncLoopIteration(message);
      } catch (err) {
        this.deps.events.emit({
          type: 'SyncFailed',
          pod: '',
          uid: '',
          reason: 'SyncLoop',
          message: `sync loop iteration failed: ${(err as Error).message}`,
        });
      }
    }
  }

  private async syncLoopIteration(message: LoopMessage): Promise<void> {
    const handler = this.deps.handler;
    switch (message.kind) {
      case 'config':
        handler.handleConfigUpdate(message.update);
        return;
      case 'pleg':
        handler.handlePlegEvent(message.event);
        if (message.event.type === 'ContainerDied') this.cleanUpContainersInPod(message.event.id, message.event.data);
        return;
      case 'probe': {
        const pod = this.deps.podManager.getPodByUid(message.uid);
        if (pod) handler.handlePodSyncs([pod]);
        return;
      }
      case 'sync': {
        const due = this.getPodsToSync();
        if (due.length > 0) handler.handlePodSyncs(due);
        return;
      }
      case 'housekeeping':
        if (!this.deps.podConfig.seenAllSources()) return;
        // Not awaited: on a busy runtime its list and remove calls take seconds, and the loop must
        // go on taking config updates and PLEG events meanwhile (one pass at a time; see Housekeeping).
        this.housekeepingPass = this.deps.housekeeping
          .handlePodCleanups()
          .then(() => {
            this.synced = true;
          })
          .catch((err: Error) => {
            this.deps.events.emit({
              type: 'SyncFailed',
              pod: '',
              uid: '',
              reason: 'Housekeeping',
              message: `housekeeping failed: ${err.message}`,
            });
          });
        return;
    }
  }

  /**
   * The dead instances of a container that died beyond those kept, or every dead container of a
   * pod whose content may go (an evicted one): the kubelet's cleanUpContainersInPod. Not awaited.
   */
  private cleanUpContainersInPod(uid: string, containerId: string): void {
    const cleanup = this.deps.containerCleanup;
    if (!cleanup) return;
    const cached = cleanup.podCache.get(uid);
    if (cached.error) return;
    // When an evicted pod, or a deleted one that terminated, has synced, all its containers may go.
    const removeAll = cleanup.podWorkers.shouldPodContentBeRemoved(uid, this.synced);
    cleanup.deletor.deleteContainersInPod(containerId, cached.status, removeAll);
  }

  /** Pods whose work is due in the work queue, and those a sync loop handler wants synced (the kubelet's getPodsToSync). */
  private getPodsToSync(): Pod[] {
    const due = new Set(this.deps.workQueue.getWork());
    return this.deps.podManager
      .getPods()
      .filter((pod) => due.has(pod.metadata.uid!) || this.deps.podSyncLoopHandlers.some((h) => h.shouldSync(pod)));
  }
}
