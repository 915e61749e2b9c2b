import type { StreamFlags } from '../../cri/runtime-service.js';
import type { Pod } from '../api/v1.js';
import type { KubeletConfiguration } from '../config/kubelet-config.js';
import type { RunningPod, RuntimePodStatus } from '../container/types.js';
import type { EventStream } from '../events.js';
import type { EventLog } from '../event-log.js';
import type { HousekeepingState } from '../housekeeping.js';
import type { ImageGCManager } from '../images/image-gc.js';
import type { KubeletMetrics } from '../metrics.js';
import type { PlegMode } from '../pleg/evented.js';
import type { PodWorkerInfo } from '../pod-workers.js';
import type { SummaryProvider } from '../stats/summary.js';
import type { TraceRecorder } from '../trace.js';

/** Whether the node is healthy, and if not, why (/healthz). */
export interface NodeHealth {
  ok: boolean;
  reasons: string[];
}

/** What /node shows: the runtime, the PLEG, the sources, the workers and housekeeping. */
export interface NodeState {
  runtime: { name: string; version: string };
  pleg: { mode: PlegMode | 'starting'; ok: boolean; message: string };
  sources: string[];
  sourcesReady: boolean;
  workers: PodWorkerInfo[];
  housekeeping: HousekeepingState;
}

/**
 * What the node's HTTP servers need from the kubelet (upstream's
 * server.HostInterface). The Kubelet implements it; the routes reach
 * nothing else, so a test can serve them from a small fake.
 */
export interface HostInterface {
  readonly config: KubeletConfiguration;
  /** The lifecycle events (/events, /pleg). */
  readonly events: Pick<EventStream, 'subscribe'>;
  readonly traces: Pick<TraceRecorder, 'pods' | 'forPod'>;
  /** The Kubernetes Events recorded in the last hour (/api/v1/events). */
  readonly eventLog: Pick<EventLog, 'list' | 'watch'>;
  /** The Summary API's numbers (/stats/summary, /metrics/resource). */
  readonly stats: Pick<SummaryProvider, 'get'>;
  readonly metrics: Pick<KubeletMetrics, 'registry'>;
  /** The image garbage collector's records (/images: first seen, last used). */
  readonly imageManager: Pick<ImageGCManager, 'recordsNow'>;
  healthz(): NodeHealth;
  nodeState(): NodeState;
  /** The pods to run (the pod manager's). */
  getPods(): Pod[];
  /** The pods to run, each with its latest status (/pods). */
  podsWithStatus(): Pod[];
  /** POD with its latest status, for a caller that wants one pod's. */
  podWithStatus(pod: Pod): Pod;
  /** A pod's sandboxes and containers as the runtime last reported them (the pod cache), newest first. */
  getRuntimePodStatus(uid: string): RuntimePodStatus;
  /** The pods the runtime runs for this node (upstream's GetRunningPods). */
  getRunningPods(): Promise<RunningPod[]>;
  /** The runtime's streaming URLs; undefined when the container (or a ready sandbox) is not there. */
  getExec(uid: string, container: string, command: string[], flags: StreamFlags): Promise<string | undefined>;
  getAttach(uid: string, container: string, flags: StreamFlags): Promise<string | undefined>;
  getPortForward(uid: string, ports: number[]): Promise<string | undefined>;
}
