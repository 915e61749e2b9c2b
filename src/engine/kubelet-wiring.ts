// The wiring of the kubelet's sync loop and of its node lifetime, kept out of the Kubelet's
// constructor (upstream builds these parts in NewMainKubelet and starts them in Run).
import type { ImageService, RuntimeService } from '../cri/runtime-service.js';
import type { Clock } from '../util/clock.js';
import type { AdmitResult } from './admission.js';
import type { RunningPod } from './container/types.js';
import type { Pod } from './api/v1.js';
import type { LocalApi, PodApi } from './cluster/client.js';
import type { ClusterNode } from './cluster/cluster-node.js';
import type { MirrorPods } from './cluster/mirror-pods.js';
import type { StatusSync } from './cluster/status-sync.js';
import { PodConfig } from './config/pod-config.js';
import { KubeletConstants, type KubeletConfiguration } from './config/kubelet-config.js';
import type { EventStream } from './events.js';
import { Housekeeping } from './housekeeping.js';
import { kubeletContainerDeletor } from './kuberuntime/container-deletor.js';
import type { RuntimeManager } from './kuberuntime/runtime-manager.js';
import { ActiveDeadlineHandler } from './active-deadline.js';
import type { ObjectManager } from './cluster/object-manager.js';
import { podVolumeManager } from './kubelet-volumes.js';
import type { PodSyncHandler, PodSyncLoopHandler } from './lifecycle.js';
import { KubeletPodSyncer } from './pod-sync.js';
import type { ProberManager } from './prober/prober-manager.js';
import { NodeLifetime } from './node-lifetime.js';
import { NodeShutdown } from './node-shutdown.js';
import { EventedHints, type PlegMode } from './pleg/evented.js';
import { GenericPLEG } from './pleg/generic.js';
import type { PodCache } from './pleg/pod-cache.js';
import type { PodManager } from './pod-manager.js';
import { PodWorkers } from './pod-workers.js';
import type { SummaryProvider } from './stats/summary.js';
import { ReasonCache } from './status/reason-cache.js';
import type { StatusManager } from './status/status-manager.js';
import { SyncHandler } from './sync-handler.js';
import { SyncLoop } from './sync-loop.js';
import { WorkQueue } from './work-queue.js';

/** The parts the Kubelet builds first, over which its sync loop and node lifetime are wired. */
export interface KubeletParts {
  config: KubeletConfiguration;
  clock: Clock;
  random: () => number;
  events: EventStream;
  podManager: PodManager;
  statusManager: StatusManager;
  podCache: PodCache;
  runtimeManager: RuntimeManager;
  /** The runtime, every call timed for the metrics. */
  runtime: RuntimeService & ImageService;
}

export interface SyncLoopWiringDeps {
  hostIP: string;
  /** ConfigMaps, Secrets and service account tokens for the pods' volumes. */
  objects: ObjectManager;
  prober: ProberManager;
  mirrorPods: MirrorPods | undefined;
  runtimeName: () => string;
  /** Why the runtime is not ready, if it is not. */
  runtimeError: () => string | undefined;
  /** The PLEG's mode, which sets its relist period; the evented PLEG's hints change it. */
  plegMode: () => PlegMode | 'starting';
  setPlegMode: (mode: PlegMode) => void;
  /** The apiserver whose pods the node runs (a cluster's, or a standalone node's local one). */
  api: { client: Pick<PodApi, 'listPods' | 'watchPods'>; warn: (message: string) => void } | undefined;
  local: LocalApi | undefined;
  /** The eviction manager's and the node shutdown manager's word on a new pod. */
  evictionAdmit: (pod: Pod) => AdmitResult;
  shutdownAdmit: () => AdmitResult;
  stopped: () => boolean;
}

/**
 * The sync loop's parts: the pod sources and the PLEG (with the runtime's container events when
 * asked for) feed the loop, which hands each pod to its worker; housekeeping runs beside it.
 */
export interface SyncLoopParts {
  /** SyncPod and its kin for the pod workers. */
  syncer: KubeletPodSyncer;
  pleg: GenericPLEG;
  evented: EventedHints | undefined;
  podWorkers: PodWorkers;
  handler: SyncHandler;
  housekeeping: Housekeeping;
  podConfig: PodConfig;
  syncLoop: SyncLoop;
}

/** Builds the sync loop and what feeds it and works for it, as NewMainKubelet does; the loop ticks from its start(). */
export function wireSyncLoop(parts: KubeletParts, deps: SyncLoopWiringDeps): SyncLoopParts {
  const { config, clock, events, podManager, statusManager, podCache, runtimeManager } = parts;
  const reasons = new ReasonCache();
  const activeDeadline = new ActiveDeadlineHandler(statusManager, events, clock);
  // Asked on each sync loop tick for pods to sync without queued work, and on each pod status whether it must fail.
  const podSyncLoopHandlers: PodSyncLoopHandler[] = [activeDeadline];
  const podSyncHandlers: PodSyncHandler[] = [activeDeadline];
  const syncer = new KubeletPodSyncer({
    mirrorPods: deps.mirrorPods,
    podSyncHandlers,
    runtime: runtimeManager,
    statusManager,
    reasons,
    podManager,
    clock,
    events,
    hostIP: deps.hostIP,
    rootDir: config.rootDir,
    runtimeName: deps.runtimeName,
    runtimeError: deps.runtimeError,
    prober: deps.prober,
    volumes: podVolumeManager({
      rootDir: config.rootDir,
      addresses: (pod) => runtimeManager.addresses(pod.spec.hostNetwork ? [deps.hostIP] : podCache.get(pod.metadata.uid!).status.ips),
      events,
      objects: deps.objects,
      clock,
    }),
  });
  const pleg = new GenericPLEG({
    runtime: runtimeManager,
    cache: podCache,
    clock,
    events,
    onEvent: (event) => syncLoop.onPlegEvent(event),
    period: () => (deps.plegMode() === 'evented' ? config.plegEventedRelistPeriod : config.plegRelistPeriod),
    relistThreshold: config.plegRelistThreshold,
  });
  const evented = config.eventedPleg
    ? new EventedHints(
        parts.runtime,
        pleg,
        clock,
        events,
        config.nodeName,
        (mode) => {
          deps.setPlegMode(mode);
          pleg.reschedule();
        },
        config.plegRelistPeriod,
        config.plegEventedRelistPeriod,
      )
    : undefined;
  const workQueue = new WorkQueue(clock);
  const podWorkers = new PodWorkers({
    syncer,
    cache: podCache,
    workQueue,
    clock,
    random: parts.random,
    events,
    resyncInterval: config.syncFrequency,
    backOffPeriod: KubeletConstants.workerBackOffPeriod,
    afterSync: evented
      ? (pod, syncedAt, outcome, runtimeEvents, read) =>
          evented.afterSync(pod.metadata.uid!, pod.metadata.name!, pod.metadata.namespace!, syncedAt, outcome, runtimeEvents, read)
      : undefined,
    syncStarted: evented ? (uid) => evented.syncStarted(uid) : undefined,
  });
  const handler = new SyncHandler({
    podManager,
    podWorkers,
    statusManager,
    events,
    maxPods: config.maxPods,
    rootDir: config.rootDir,
    allowedUnsafeSysctls: config.allowedUnsafeSysctls,
    nodeName: config.nodeName,
    extraLabels: config.nodeLabels,
    evictionAdmit: deps.evictionAdmit,
    shutdownAdmit: deps.shutdownAdmit,
    now: () => clock.now(),
  });
  const housekeeping = new Housekeeping({
    podManager,
    podWorkers,
    statusManager,
    reasons,
    podCache,
    events,
    mirrorPods: deps.mirrorPods,
    isRejected: (uid) => handler.isRejected(uid),
    runtimePods: () => pleg.runningPods(),
  });
  const podConfig = new PodConfig(config, clock, events, (update) => syncLoop.push({ kind: 'config', update }), deps.api, deps.local);
  const syncLoop = new SyncLoop({
    events,
    podManager,
    workQueue,
    podSyncLoopHandlers,
    handler,
    housekeeping,
    podConfig,
    stopped: deps.stopped,
    // runOnce (knode apply) leaves other pods alone: no housekeeping kills what its sources do not name.
    ticks: {
      clock,
      syncPeriod: KubeletConstants.syncLoopTick,
      housekeepingPeriod: config.runOnce ? undefined : KubeletConstants.housekeepingPeriod,
    },
    containerCleanup: { deletor: kubeletContainerDeletor(runtimeManager, events), podCache, podWorkers },
  });
  return { syncer, pleg, evented, podWorkers, handler, housekeeping, podConfig, syncLoop };
}

export interface NodeLifetimeWiringDeps {
  stats: SummaryProvider;
  podWorkers: PodWorkers;
  /** The pods admitted and not finished: what the eviction manager ranks and a drain stops. */
  activePods: () => Pod[];
  /** Every pod the sources gave reached its worker (a housekeeping pass ran after all sources were seen). */
  podsSynced: () => boolean;
  cluster: ClusterNode | undefined;
  localStatus: StatusSync | undefined;
  /** The PLEG's view of the runtime's pods: the log manager's passes take it, as housekeeping does, instead of a list. */
  runtimePods: () => RunningPod[] | undefined;
}

/**
 * What keeps the node within its disk over its lifetime (log rotation, container and image
 * garbage collection, eviction) and what stops its pods at its end (knode run --drain-on-exit).
 */
export function wireNodeLifetime(parts: KubeletParts, deps: NodeLifetimeWiringDeps): { lifetime: NodeLifetime; shutdown: NodeShutdown } {
  const { config, clock, events, runtimeManager } = parts;
  const { podWorkers, cluster, localStatus } = deps;
  const lifetime = new NodeLifetime({
    config,
    runtime: parts.runtime,
    clock,
    events,
    podWorkers,
    removeContainer: (id) => runtimeManager.removeContainer(id),
    runtimePods: deps.runtimePods,
    // As the pod workers' podsSynced: a pod not handed to its worker yet is not gone until a housekeeping pass ran.
    allSourcesReady: deps.podsSynced,
    stats: deps.stats,
    activePods: deps.activePods,
    killPod: (pod, gracePeriodOverride, statusFn) =>
      new Promise<void>((onTerminated) =>
        podWorkers.updatePod({ updateType: 'kill', pod, gracePeriodOverride, statusFn, onTerminated, evict: true }),
      ),
  });
  const shutdown = new NodeShutdown({
    podWorkers,
    activePods: deps.activePods,
    events,
    clock,
    shutdownGracePeriodMs: config.shutdownGracePeriod,
    shutdownGracePeriodCriticalPodsMs: config.shutdownGracePeriodCriticalPods,
    // The Node says it is shutting down at once; the pods' last statuses reach the apiserver before knode stops.
    onShutdown: async () => cluster?.nodeStatus.update(),
    afterDrain: async () => {
      await cluster?.statusSync.idle();
      await localStatus?.idle();
      await cluster?.recorder.idle();
    },
  });
  return { lifetime, shutdown };
}
