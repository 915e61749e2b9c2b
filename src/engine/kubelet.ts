import type { ImageService, RuntimeService } from '../cri/runtime-service.js';
import { Backoff } from '../util/backoff.js';
import { RealClock, type Clock, type Timer } from '../util/clock.js';
import type { HostInterface } from './server/host.js';
import type { RunOnceHost } from './run-once.js';
import { PodConfig } from './config/pod-config.js';
import { KubeletConstants, type KubeletConfiguration } from './config/kubelet-config.js';
import { EventStream } from './events.js';
import { EventLog } from './event-log.js';
import { containerFieldPath } from './kubelet-events.js';
import { NodeLifetime } from './node-lifetime.js';
import { Housekeeping } from './housekeeping.js';
import { instrumentRuntime, KubeletMetrics } from './metrics.js';
import { TraceRecorder } from './trace.js';
import { RuntimeManager } from './kuberuntime/runtime-manager.js';
import { DnsConfigurer } from './kuberuntime/dns.js';
import { kubeletContainerDeletor } from './kuberuntime/container-deletor.js';
import { hostIp } from '../util/host-ip.js';
import { EventedHints } from './pleg/evented.js';
import { GenericPLEG } from './pleg/generic.js';
import { PodCache } from './pleg/pod-cache.js';
import { BasicPodManager, type PodManager } from './pod-manager.js';
import { podVolumeManager, podVolumesDir } from './kubelet-volumes.js';
import { SummaryProvider } from './stats/summary.js';
import { ProberManager } from './prober/prober-manager.js';
import { ActiveDeadlineHandler } from './active-deadline.js';
import type { PodSyncHandler, PodSyncLoopHandler } from './lifecycle.js';
import { KubeletPodSyncer } from './pod-sync.js';
import { NODE_SHUTTING_DOWN, NodeShutdown } from './node-shutdown.js';
import { PodWorkers } from './pod-workers.js';
import { RuntimeHealth } from './runtime-health.js';
import { ReasonCache } from './status/reason-cache.js';
import { BasicStatusManager, type StatusManager } from './status/status-manager.js';
import { SyncHandler } from './sync-handler.js';
import { SyncLoop } from './sync-loop.js';
import { WorkQueue } from './work-queue.js';
import type { ClusterClient, LocalApi } from './cluster/client.js';
import type { StatusSync } from './cluster/status-sync.js';
import type { ClusterNode } from './cluster/cluster-node.js';
import { KubeletGetters } from './kubelet-getters.js';
import { apiServerParts, nodeStarted, runtimeCounts } from './kubelet-node-status.js';
import { ObjectManager } from './cluster/object-manager.js';

export interface KubeletDeps {
  runtime: RuntimeService & ImageService;
  /** The apiserver to join (pods bound to the node, Node, Lease, pod status, mirror pods); none: a standalone node. */
  cluster?: ClusterClient;
  /**
   * A standalone node's local apiserver, over which its workload controllers
   * run (Deployments, Jobs…): it takes the manifests' other objects, and its
   * pods come in through the api source as a cluster's would.
   */
  local?: LocalApi;
  /** knode's version, as the Node reports it. */
  version?: string;
  clock?: Clock;
  /** Randomness for jitter; injectable so tests are deterministic. */
  random?: () => number;
}

/**
 * The kubelet: pod sources feed the sync loop, which hands each pod to its
 * worker; workers drive the runtime through the runtime manager; the PLEG
 * reports what changed; the status manager keeps each pod's API status. The
 * engine takes one KubeletConfiguration and a CRI runtime, nothing else, and
 * reports everything on one event stream. The HTTP servers and the faces see
 * it as a HostInterface, runOnce as a RunOnceHost (their getters in
 * kubelet-getters.ts); its parts stay private.
 */
export class Kubelet extends KubeletGetters implements HostInterface, RunOnceHost {
  readonly events: EventStream;
  readonly clock: Clock;
  readonly podManager: PodManager = new BasicPodManager();
  readonly statusManager: StatusManager;
  readonly podConfig: PodConfig;
  readonly hostIP: string;
  /** Forms each sandbox's DNS config (clusterDNS, clusterDomain, resolvConf). */
  private readonly dns: DnsConfigurer;
  readonly metrics: KubeletMetrics;
  readonly traces: TraceRecorder;
  /** The Kubernetes Events the node recorded in the last hour (knode events, knode describe). */
  readonly eventLog: EventLog;
  /** The Summary API's numbers (/stats/summary, /metrics/resource, knode top). */
  readonly stats: SummaryProvider;
  protected readonly podCache = new PodCache();
  /** SyncPod and its kin for the pod workers. */
  protected readonly syncer: KubeletPodSyncer;
  protected readonly podWorkers: PodWorkers;
  protected readonly runtimeManager: RuntimeManager;
  protected readonly pleg: GenericPLEG;
  private readonly handler: SyncHandler;
  private readonly prober: ProberManager;
  /** The runtime, every call timed for the metrics. */
  private readonly runtime: RuntimeService & ImageService;
  /** The node's parts that talk to the apiserver, when it has joined one. */
  private readonly cluster: ClusterNode | undefined;
  /** Pod statuses written to the local apiserver of a standalone node's controllers. */
  private readonly localStatus: StatusSync | undefined;
  private readonly evented: EventedHints | undefined;
  protected readonly housekeeping: Housekeeping;
  /** Log rotation, container and image garbage collection, each on its own timer. */
  protected readonly lifetime: NodeLifetime;
  /** Stops the pods before knode exits, when asked to (knode run --drain-on-exit). */
  private readonly shutdown: NodeShutdown;
  private readonly syncLoop: SyncLoop;
  private readonly timers: Timer[] = [];
  protected readonly runtimeHealth: RuntimeHealth;
  private stopped = false;

  constructor(
    readonly config: KubeletConfiguration,
    deps: KubeletDeps,
  ) {
    super();
    this.clock = deps.clock ?? new RealClock();
    this.hostIP = config.nodeIP ?? hostIp();
    const clock = this.clock;
    const random = deps.random ?? Math.random;
    this.events = new EventStream(() => clock.now());
    this.metrics = new KubeletMetrics(this.events, () => runtimeCounts(this.podCache));
    this.traces = new TraceRecorder(this.events);
    this.eventLog = new EventLog(clock, config.nodeName, (uid, container) =>
      containerFieldPath(this.podManager.getPodByUid(uid), container),
    );
    this.eventLog.start(this.events);
    const runtime = instrumentRuntime(deps.runtime, (method, ms, failed) => this.metrics.observeRuntimeCall(method, ms, failed));
    this.runtime = runtime;
    this.runtimeHealth = new RuntimeHealth(runtime, this.events, () => this.pleg.healthy());
    this.statusManager = new BasicStatusManager(this.events);
    const local = deps.cluster ? undefined : deps.local;
    /** ConfigMaps, Secrets and service account tokens for the pods (from the apiserver, when joined). */
    const objects = new ObjectManager(deps.cluster ?? local, clock);
    const workQueue = new WorkQueue(clock);
    const reasonCache = new ReasonCache();
    this.dns = new DnsConfigurer({
      clusterDNS: config.clusterDNS,
      clusterDomain: config.clusterDomain,
      resolvConf: config.resolvConf,
      nodeIPs: [this.hostIP],
      events: this.events,
    });
    this.runtimeManager = new RuntimeManager({
      runtime,
      images: runtime,
      clock,
      events: this.events,
      nodeName: config.nodeName,
      rootDir: config.rootDir,
      podLogsDir: config.podLogsDir,
      crashLoopBackOff: new Backoff(clock, KubeletConstants.crashLoopBackOffInitial, KubeletConstants.crashLoopBackOffMax),
      imageBackOff: new Backoff(clock, KubeletConstants.imageBackOffInitial, KubeletConstants.imageBackOffMax),
      hostIP: this.hostIP,
      objects,
      supportsRecursiveReadOnly: () => this.runtimeHealth.supportsRecursiveReadOnly(),
      seccompDefault: config.seccompDefault,
      clusterDomain: config.clusterDomain,
      dns: this.dns,
    });
    this.stats = new SummaryProvider({
      runtime,
      clock,
      nodeName: config.nodeName,
      rootDir: config.rootDir,
      podLogsDir: config.podLogsDir,
      volumesDir: (uid) => podVolumesDir(config.rootDir, uid),
      startedAt: clock.now(),
    });
    this.prober = new ProberManager({
      runtime,
      clock,
      random,
      events: this.events,
      current: (uid, name) => this.podCache.get(uid).status.containers.find((c) => c.name === name),
      podIP: (uid) =>
        this.podManager.getPodByUid(uid)?.spec.hostNetwork ? this.hostIP : (this.podCache.get(uid).status.ips[0] ?? this.hostIP),
      // Probe results reach the sync loop as messages, as the kubelet's results channels do.
      onChange: (uid) => this.syncLoop.push({ kind: 'probe', uid }),
    });
    const clusterWarn = (message: string) => this.events.emit({ type: 'ClusterWarning', pod: '', uid: '', message });
    // A pod admission rejected never ran: it may go at once.
    const isTerminated = (uid: string) =>
      this.podWorkers.isKnown(uid) ? !this.podWorkers.couldHaveRunningContainers(uid) : this.handler.isRejected(uid);
    const { mirrorPods, cluster, localStatus } = apiServerParts({
      cluster: deps.cluster,
      local,
      config,
      clock,
      events: this.events,
      hostIP: this.hostIP,
      knodeVersion: deps.version ?? '0.0.0',
      podManager: this.podManager,
      statusManager: this.statusManager,
      runtime: () => ({ name: this.runtimeName, version: this.runtimeVersion }),
      problems: () => [...this.healthz().reasons, ...(this.shutdown.shuttingDown ? [NODE_SHUTTING_DOWN] : [])],
      runtimeConditions: () => this.runtimeHealth.conditions(),
      pressure: () => this.lifetime.pressure(),
      isTerminated,
      warn: clusterWarn,
    });
    this.cluster = cluster;
    this.localStatus = localStatus;
    const activeDeadline = new ActiveDeadlineHandler(this.statusManager, this.events, clock);
    // Asked on each sync loop tick for pods to sync without queued work, and on each pod status whether it must fail.
    const podSyncLoopHandlers: PodSyncLoopHandler[] = [activeDeadline];
    const podSyncHandlers: PodSyncHandler[] = [activeDeadline];
    const syncer = (this.syncer = new KubeletPodSyncer({
      mirrorPods,
      podSyncHandlers,
      runtime: this.runtimeManager,
      statusManager: this.statusManager,
      reasons: reasonCache,
      podManager: this.podManager,
      clock,
      events: this.events,
      hostIP: this.hostIP,
      rootDir: config.rootDir,
      runtimeName: () => this.runtimeName,
      runtimeError: () => this.runtimeHealth.error,
      prober: this.prober,
      volumes: podVolumeManager({
        rootDir: config.rootDir,
        addresses: (pod) =>
          this.runtimeManager.addresses(pod.spec.hostNetwork ? [this.hostIP] : this.podCache.get(pod.metadata.uid!).status.ips),
        events: this.events,
        objects,
        clock,
      }),
    }));
    this.pleg = new GenericPLEG({
      runtime: this.runtimeManager,
      cache: this.podCache,
      clock,
      events: this.events,
      onEvent: (event) => this.syncLoop.onPlegEvent(event),
      period: () => (this.plegMode === 'evented' ? config.plegEventedRelistPeriod : config.plegRelistPeriod),
      relistThreshold: config.plegRelistThreshold,
    });
    if (config.eventedPleg) {
      this.evented = new EventedHints(
        runtime,
        this.pleg,
        clock,
        this.events,
        config.nodeName,
        (mode) => {
          this.plegMode = mode;
          this.pleg.reschedule();
        },
        config.plegRelistPeriod,
      );
    }
    this.podWorkers = new PodWorkers({
      syncer,
      cache: this.podCache,
      workQueue,
      clock,
      random,
      events: this.events,
      resyncInterval: config.syncFrequency,
      backOffPeriod: KubeletConstants.workerBackOffPeriod,
      afterSync: this.evented
        ? (pod, syncedAt, outcome) =>
            this.evented?.afterSync(pod.metadata.uid!, pod.metadata.name!, pod.metadata.namespace!, syncedAt, outcome)
        : undefined,
      syncStarted: this.evented ? (uid) => this.evented?.syncStarted(uid) : undefined,
    });
    this.handler = new SyncHandler({
      podManager: this.podManager,
      podWorkers: this.podWorkers,
      statusManager: this.statusManager,
      events: this.events,
      maxPods: config.maxPods,
      rootDir: config.rootDir,
      allowedUnsafeSysctls: config.allowedUnsafeSysctls,
      nodeName: config.nodeName,
      extraLabels: config.nodeLabels,
      evictionAdmit: (pod) => this.lifetime.admit(pod),
      shutdownAdmit: () => this.shutdown.admit(),
      now: () => clock.now(),
    });
    this.shutdown = new NodeShutdown({
      podWorkers: this.podWorkers,
      activePods: () => this.handler.activePods(),
      events: this.events,
      clock,
      shutdownGracePeriodMs: config.shutdownGracePeriod,
      shutdownGracePeriodCriticalPodsMs: config.shutdownGracePeriodCriticalPods,
      // The Node says it is shutting down at once; the pods' last statuses reach the apiserver before knode stops.
      onShutdown: async () => this.cluster?.nodeStatus.update(),
      afterDrain: async () => {
        await this.cluster?.statusSync.idle();
        await this.localStatus?.idle();
        await this.cluster?.recorder.idle();
      },
    });
    this.housekeeping = new Housekeeping({
      podManager: this.podManager,
      podWorkers: this.podWorkers,
      statusManager: this.statusManager,
      reasons: reasonCache,
      podCache: this.podCache,
      runtime: this.runtimeManager,
      events: this.events,
      mirrorPods,
      isRejected: (uid) => this.handler.isRejected(uid),
      runtimePods: () => this.pleg.runningPods(),
    });
    this.lifetime = new NodeLifetime({
      config,
      runtime,
      clock,
      events: this.events,
      podWorkers: this.podWorkers,
      removeContainer: (id) => this.runtimeManager.removeContainer(id),
      // As the pod workers' podsSynced: a pod not handed to its worker yet is not gone until a housekeeping pass ran.
      allSourcesReady: () => this.syncLoop.podsSynced,
      stats: this.stats,
      activePods: () => this.handler.activePods(),
      killPod: (pod, gracePeriodOverride, statusFn) =>
        new Promise<void>((onTerminated) =>
          this.podWorkers.updatePod({ updateType: 'kill', pod, gracePeriodOverride, statusFn, onTerminated, evict: true }),
        ),
    });
    this.podConfig = new PodConfig(
      config,
      clock,
      this.events,
      (update) => this.syncLoop.push({ kind: 'config', update }),
      deps.cluster || local ? { client: (deps.cluster ?? local)!, warn: clusterWarn } : undefined,
      local,
    );
    this.syncLoop = new SyncLoop({
      events: this.events,
      podManager: this.podManager,
      workQueue,
      podSyncLoopHandlers,
      handler: this.handler,
      housekeeping: this.housekeeping,
      podConfig: this.podConfig,
      stopped: () => this.stopped,
      containerCleanup: {
        deletor: kubeletContainerDeletor(this.runtimeManager, this.events),
        podCache: this.podCache,
        podWorkers: this.podWorkers,
      },
    });
  }

  /** Starts the PLEG, the sync loop and the sources; resolves once every source was read once. */
  async start(): Promise<void> {
    this.cluster?.recorder.start(this.events);
    const version = await this.runtime.version();
    this.runtimeInfo = { name: version.runtimeName, version: version.runtimeVersion };
    if (!this.evented) this.plegMode = 'generic';
    await this.runtimeHealth.check();
    this.events.emit(nodeStarted(this.config, this.runtimeInfo, this.podConfig.sourceNames));
    // As the kubelet at the start of its sync loop: a host resolver file pods cannot use whole is a Node warning.
    this.dns.checkLimitsForResolvConf();
    this.cluster?.nodeStatus.start();
    this.cluster?.lease.start();
    this.cluster?.statusSync.start();
    this.localStatus?.start();
    this.pleg.start();
    this.evented?.start();
    this.syncLoop.start();
    this.timers.push(this.clock.setInterval(() => this.syncLoop.push({ kind: 'sync' }), KubeletConstants.syncLoopTick));
    // runOnce (knode apply) leaves other pods alone: no housekeeping kills what its sources do not name.
    if (!this.config.runOnce)
      this.timers.push(this.clock.setInterval(() => this.syncLoop.push({ kind: 'housekeeping' }), KubeletConstants.housekeepingPeriod));
    this.timers.push(this.clock.setInterval(() => void this.runtimeHealth.check(), KubeletConstants.runtimeStatusPeriod));
    // runOnce (knode apply) leaves other pods alone, their logs, dead containers and images included.
    if (!this.config.runOnce) this.lifetime.start();
    // Usage is read on a period (cAdvisor's housekeeping), so CPU rates are ready when asked for.
    if (!this.config.runOnce)
      this.timers.push(this.clock.setInterval(() => void this.stats.refresh().catch(() => {}), KubeletConstants.statsRefreshPeriod));
    await this.podConfig.start();
  }

  /** Stops every pod, as the kubelet's graceful node shutdown does (NodeShutdown); stop() follows. */
  drain(): Promise<void> {
    return this.shutdown.drain();
  }

  /** Stops everything the kubelet started; containers keep running, as the kubelet's do, unless drain() stopped them. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const t of this.timers) t.cancel();
    this.podConfig.stop();
    await this.cluster?.nodeStatus.stop();
    await this.cluster?.lease.stop();
    await this.cluster?.statusSync.stop();
    await this.localStatus?.stop();
    await this.cluster?.recorder.stop();
    this.eventLog.stop();
    this.evented?.stop();
    this.pleg.stop();
    const loopDone = this.syncLoop.close();
    this.prober.stopAll();
    await loopDone;
    await this.lifetime.stop();
    await this.podWorkers.stop();
    await this.pleg.idle();
  }
}
