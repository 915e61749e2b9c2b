import type { ImageService, RuntimeService } from '../cri/runtime-service.js';
import { Backoff } from '../util/backoff.js';
import { RealClock, type Clock, type Timer } from '../util/clock.js';
import type { HostInterface } from './server/host.js';
import type { RunOnceHost } from './run-once.js';
import type { PodConfig } from './config/pod-config.js';
import { KubeletConstants, type KubeletConfiguration } from './config/kubelet-config.js';
import { EventStream } from './events.js';
import { EventLog } from './event-log.js';
import { containerFieldPath } from './kubelet-events.js';
import type { NodeLifetime } from './node-lifetime.js';
import type { Housekeeping } from './housekeeping.js';
import { instrumentRuntime, KubeletMetrics } from './metrics.js';
import { TraceRecorder } from './trace.js';
import { RuntimeManager } from './kuberuntime/runtime-manager.js';
import { DnsConfigurer } from './kuberuntime/dns.js';
import { hostIp } from '../util/host-ip.js';
import type { EventedHints } from './pleg/evented.js';
import type { GenericPLEG } from './pleg/generic.js';
import { PodCache } from './pleg/pod-cache.js';
import { BasicPodManager, type PodManager } from './pod-manager.js';
import { podVolumesDir } from './kubelet-volumes.js';
import { SummaryProvider } from './stats/summary.js';
import { ProberManager } from './prober/prober-manager.js';
import type { KubeletPodSyncer } from './pod-sync.js';
import { NODE_SHUTTING_DOWN, type NodeShutdown } from './node-shutdown.js';
import type { PodWorkers } from './pod-workers.js';
import { RuntimeHealth } from './runtime-health.js';
import { BasicStatusManager, type StatusManager } from './status/status-manager.js';
import type { SyncHandler } from './sync-handler.js';
import type { SyncLoop } from './sync-loop.js';
import { wireNodeLifetime, wireSyncLoop } from './kubelet-wiring.js';
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
    this.metrics = new KubeletMetrics(
      this.events,
      () => runtimeCounts(this.podCache),
      () => this.runtimeManager.sandboxStartsWaiting,
    );
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
      maxParallelSandboxStarts: config.maxParallelSandboxStarts,
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
    const { podManager, statusManager, podCache, runtimeManager } = this;
    const kubeletParts = { config, clock, random, events: this.events, podManager, statusManager, podCache, runtimeManager, runtime };
    ({
      syncer: this.syncer,
      pleg: this.pleg,
      evented: this.evented,
      podWorkers: this.podWorkers,
      handler: this.handler,
      housekeeping: this.housekeeping,
      podConfig: this.podConfig,
      syncLoop: this.syncLoop,
    } = wireSyncLoop(kubeletParts, {
      hostIP: this.hostIP,
      objects,
      prober: this.prober,
      mirrorPods,
      runtimeName: () => this.runtimeName,
      runtimeError: () => this.runtimeHealth.error,
      plegMode: () => this.plegMode,
      setPlegMode: (mode) => (this.plegMode = mode),
      api: deps.cluster || local ? { client: (deps.cluster ?? local)!, warn: clusterWarn } : undefined,
      local,
      evictionAdmit: (pod) => this.lifetime.admit(pod),
      shutdownAdmit: () => this.shutdown.admit(),
      stopped: () => this.stopped,
    }));
    ({ lifetime: this.lifetime, shutdown: this.shutdown } = wireNodeLifetime(kubeletParts, {
      stats: this.stats,
      podWorkers: this.podWorkers,
      activePods: () => this.handler.activePods(),
      podsSynced: () => this.syncLoop.podsSynced,
      cluster,
      localStatus,
      runtimePods: () => this.pleg.runningPods(),
    }));
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
