import type { ImageService, RuntimeService } from '../cri/runtime-service.js';
import type { Clock } from '../util/clock.js';
import type { KubeletConfiguration } from './config/kubelet-config.js';
import { ContainerLogManager } from './container-log-manager.js';
import type { EventStream } from './events.js';
import { GarbageCollector, podStateProvider } from './garbage-collector.js';
import { ImageGarbageCollector } from './images/image-garbage-collector.js';
import { ImageGCManager } from './images/image-gc.js';
import { ContainerGC, DEFAULT_GC_POLICY } from './kuberuntime/container-gc.js';
import type { PodManager } from './pod-manager.js';
import type { PodWorkers } from './pod-workers.js';

export interface NodeLifetimeDeps {
  config: KubeletConfiguration;
  runtime: RuntimeService & ImageService;
  clock: Clock;
  events: EventStream;
  podManager: Pick<PodManager, 'getPodByUid'>;
  podWorkers: Pick<PodWorkers, 'isKnown' | 'couldHaveRunningContainers'>;
  removeContainer: (id: string) => Promise<void>;
  allSourcesReady: () => boolean;
}

/**
 * What keeps a node that runs for months within its disk, each on its own
 * timer off the sync loop: the container log manager (rotation), the
 * container garbage collector (dead containers, sandboxes, pod log
 * directories) and the image garbage collector. None runs under runOnce
 * (knode apply leaves other pods, their logs and images alone).
 */
export class NodeLifetime {
  /** Per-image records of the image garbage collector (first seen, last used). */
  readonly imageManager: ImageGCManager;
  private readonly logs: ContainerLogManager;
  private readonly containers: GarbageCollector;
  private readonly images: ImageGarbageCollector;

  constructor(deps: NodeLifetimeDeps) {
    const { config, runtime, clock, events } = deps;
    this.logs = new ContainerLogManager({
      runtime,
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
      podState: podStateProvider(deps.podManager, deps.podWorkers, deps.allSourcesReady),
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
  }

  start(): void {
    this.logs.start();
    this.containers.start();
    this.images.start();
  }

  async stop(): Promise<void> {
    await this.logs.stop();
    await this.containers.stop();
    await this.images.stop();
  }
}
