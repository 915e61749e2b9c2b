import type { ImageService, RuntimeService } from '../cri/runtime-service.js';
import type { Clock } from '../util/clock.js';
import type { AdmitResult } from './admission.js';
import type { Pod, PodStatus } from './api/v1.js';
import type { KubeletConfiguration } from './config/kubelet-config.js';
import { ContainerLogManager, runningContainersOf } from './container-log-manager.js';
import type { RunningPod } from './container/types.js';
import { EvictionManager } from './eviction/manager.js';
import { parseThresholdConfig, type PressureCondition } from './eviction/thresholds.js';
import type { EventStream } from './events.js';
import { GarbageCollector, podStateProvider } from './garbage-collector.js';
import { ImageGarbageCollector } from './images/image-garbage-collector.js';
import { ImageGCManager } from './images/image-gc.js';
import { ContainerGC, DEFAULT_GC_POLICY } from './kuberuntime/container-gc.js';
import type { PodWorkers } from './pod-workers.js';
import type { SummaryProvider } from './stats/summary.js';

export interface NodeLifetimeDeps {
  config: KubeletConfiguration;
  runtime: RuntimeService & ImageService;
  clock: Clock;
  events: EventStream;
  podWorkers: Pick<PodWorkers, 'isKnown' | 'couldHaveRunningContainers' | 'shouldPodContentBeRemoved'>;
  removeContainer: (id: string) => Promise<void>;
  allSourcesReady: () => boolean;
  /** The node's and the pods' usage, for the eviction manager. */
  stats: Pick<SummaryProvider, 'nodeSignals' | 'get'>;
  /** The pods that may still have running containers (the eviction manager's candidates). */
  activePods: () => Pod[];
  /** The runtime's pods as the PLEG last saw them (undefined before its first relist), for the log manager's passes. */
  runtimePods?: () => RunningPod[] | undefined;
  /** Evicts a pod (its worker holds it as evicted) with the status STATUS_FN writes; resolves once it is stopped. */
  killPod: (pod: Pod, gracePeriodSeconds: number, statusFn: (status: PodStatus) => void) => Promise<void>;
}

/**
 * What keeps a node that runs for months within its disk, each on its own
 * timer off the sync loop: the container log manager (rotation), the
 * container garbage collector (dead containers, sandboxes, pod log
 * directories), the image garbage collector, and the eviction manager, which
 * reclaims with the two collectors before it evicts a pod. None runs under
 * runOnce (knode apply leaves other pods, their logs and images alone).
 */
export class NodeLifetime {
  /** Per-image records of the image garbage collector (first seen, last used). */
  readonly imageManager: ImageGCManager;
  private readonly logs: ContainerLogManager;
  private readonly containers: GarbageCollector;
  private readonly images: ImageGarbageCollector;
  private readonly eviction: EvictionManager;

  constructor(deps: NodeLifetimeDeps) {
    const { config, runtime, clock, events } = deps;
    const { runtimePods } = deps;
    this.logs = new ContainerLogManager({
      runtime,
      runningContainers: runtimePods && (() => runningContainersOf(runtimePods())),
      clock,
      events,
      nodeName: config.nodeName,
      policy: { maxSize: config.containerLogMaxSize, maxFiles: config.containerLogMaxFiles },
      monitorInterval: config.containerLogMonitorInterval,
      maxWorkers: config.containerLogMaxWorkers,
    });
    const gc = new ContainerGC({
      runtime,
      removeContainer: deps.removeContainer,
      podState: podStateProvider(deps.podWorkers, deps.allSourcesReady),
      clock,
      nodeName: config.nodeName,
      podLogsDir: config.podLogsDir,
    });
    this.containers = new GarbageCollector({ gc, policy: DEFAULT_GC_POLICY, clock, events, allSourcesReady: deps.allSourcesReady });
    const imagePolicy = {
      highThresholdPercent: config.imageGCHighThresholdPercent,
      lowThresholdPercent: config.imageGCLowThresholdPercent,
      minAge: config.imageMinimumGCAge,
      maxAge: config.imageMaximumGCAge,
    };
    this.imageManager = new ImageGCManager({ runtime, images: runtime, clock }, imagePolicy);
    this.images = new ImageGarbageCollector({ manager: this.imageManager, policy: imagePolicy, clock, events });
    this.eviction = new EvictionManager({
      // The flags and the file were checked when the configuration was read.
      thresholds: parseThresholdConfig(config),
      pressureTransitionPeriodMs: config.evictionPressureTransitionPeriod,
      maxPodGracePeriodSeconds: config.evictionMaxPodGracePeriod,
      clock,
      events,
      nodeName: config.nodeName,
      nodeSignals: () => deps.stats.nodeSignals(),
      podStats: async () => (await deps.stats.get()).pods,
      activePods: deps.activePods,
      killPod: deps.killPod,
      reclaim: {
        containers: () => this.containers.deleteAllUnused(),
        images: () => this.images.deleteUnused(),
      },
    });
  }

  /** The eviction manager's word on a new pod. */
  admit(pod: Pod): AdmitResult {
    return this.eviction.admit(pod);
  }

  /** The pressure conditions now true. */
  pressure(): readonly PressureCondition[] {
    return this.eviction.pressure();
  }

  /** Resolves once the eviction manager's first pass has set the pressure conditions (after start). */
  pressureKnown(): Promise<void> {
    return this.eviction.observed;
  }

  start(): void {
    this.logs.start();
    this.containers.start();
    this.images.start();
    this.eviction.start();
  }

  async stop(): Promise<void> {
    await this.eviction.stop();
    await this.logs.stop();
    await this.containers.stop();
    await this.images.stop();
  }
}
