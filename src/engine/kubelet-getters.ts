// The kubelet's answers about its pods, its runtime and its node, as upstream's kubelet_getters.go.
import type { StreamFlags } from '../cri/runtime-service.js';
import type { Pod } from './api/v1.js';
import type { PodConfig } from './config/pod-config.js';
import type { RunningPod, RuntimePodStatus } from './container/types.js';
import type { PressureCondition } from './eviction/thresholds.js';
import type { Housekeeping } from './housekeeping.js';
import type { ImageGCManager } from './images/image-gc.js';
import { nodeHealth } from './kubelet-node-status.js';
import type { RuntimeManager } from './kuberuntime/runtime-manager.js';
import type { NodeLifetime } from './node-lifetime.js';
import type { PlegMode } from './pleg/evented.js';
import type { GenericPLEG } from './pleg/generic.js';
import type { PodCache } from './pleg/pod-cache.js';
import type { PodManager } from './pod-manager.js';
import type { KubeletPodSyncer } from './pod-sync.js';
import type { PodWorkers } from './pod-workers.js';
import type { RuntimeHealth } from './runtime-health.js';
import type { NodeHealth, NodeState } from './server/host.js';
import type { StatusManager } from './status/status-manager.js';

/**
 * What the HTTP servers, runOnce and the faces read of the Kubelet, over
 * the parts the Kubelet (kubelet.ts) builds; upstream keeps these methods
 * of its Kubelet in kubelet_getters.go and kubelet_pods.go.
 */
export abstract class KubeletGetters {
  abstract readonly podManager: PodManager;
  abstract readonly statusManager: StatusManager;
  abstract readonly podConfig: PodConfig;
  protected abstract readonly podCache: PodCache;
  protected abstract readonly syncer: KubeletPodSyncer;
  protected abstract readonly podWorkers: PodWorkers;
  protected abstract readonly runtimeManager: RuntimeManager;
  protected abstract readonly pleg: GenericPLEG;
  protected abstract readonly housekeeping: Housekeeping;
  protected abstract readonly lifetime: NodeLifetime;
  protected abstract readonly runtimeHealth: RuntimeHealth;
  /** The runtime's name and version, as its Version call answered at start. */
  protected runtimeInfo = { name: 'cri', version: '' };
  protected plegMode: PlegMode | 'starting' = 'starting';

  /** The pressure conditions the eviction manager reports now. */
  pressure(): readonly PressureCondition[] {
    return this.lifetime.pressure();
  }

  /** Resolves once the eviction manager first looked at the node; under runOnce, which runs none, never. */
  pressureKnown(): Promise<void> {
    return this.lifetime.pressureKnown();
  }

  /** The image garbage collector's per-image records (first seen, last used). */
  get imageManager(): ImageGCManager {
    return this.lifetime.imageManager;
  }

  get runtimeName(): string {
    return this.runtimeInfo.name;
  }

  get runtimeVersion(): string {
    return this.runtimeInfo.version;
  }

  /** Whether the node is healthy: the PLEG relists and the runtime answers. */
  healthz(): NodeHealth {
    return nodeHealth(this.pleg, this.runtimeHealth);
  }

  /** Pods with their latest status, as /pods and `knode status` show them. */
  podsWithStatus(): Pod[] {
    return this.podManager.getPods().map((p) => this.podWithStatus(p));
  }

  podWithStatus(pod: Pod): Pod {
    return this.statusManager.podWithStatus(pod);
  }

  nodeState(): NodeState {
    return {
      runtime: { name: this.runtimeName, version: this.runtimeVersion },
      pleg: { mode: this.plegMode, ...this.pleg.healthy() },
      sources: this.podConfig.sourceNames,
      sourcesReady: this.podConfig.seenAllSources(),
      workers: this.podWorkers.workers(),
      housekeeping: this.housekeeping.state(),
    };
  }

  getPods(): Pod[] {
    return this.podManager.getPods();
  }

  getRuntimePodStatus(uid: string): RuntimePodStatus {
    return this.podCache.get(uid).status;
  }

  getRunningPods(): Promise<RunningPod[]> {
    return this.runtimeManager.getPods();
  }

  getExec(uid: string, container: string, command: string[], flags: StreamFlags): Promise<string | undefined> {
    return this.runtimeManager.getExec(uid, container, command, flags);
  }

  getAttach(uid: string, container: string, flags: StreamFlags): Promise<string | undefined> {
    return this.runtimeManager.getAttach(uid, container, flags);
  }

  getPortForward(uid: string, ports: number[]): Promise<string | undefined> {
    return this.runtimeManager.getPortForward(uid, ports);
  }

  /** Writes the status the next sync would, from the runtime's last report (runOnce, after a pod stopped at a failed step). */
  refreshPodStatus(pod: Pod): void {
    this.syncer.refreshStatus(pod, this.podCache.get(pod.metadata.uid!).status);
  }
}
