import type { PlegMode } from './pleg/evented.js';
import type { PodLifecycleEventType } from './pleg/types.js';
import type { UpdateType } from './pod-syncer.js';
import type { WorkerState } from './pod-workers.js';
import type { ProbeKind } from './prober/worker.js';

/** What every lifecycle event carries, whatever its type. */
interface EventCommon {
  /** `namespace/name`, or '' for node-level events. */
  pod: string;
  uid: string;
  /** Milliseconds since the epoch, from the engine's clock. */
  at: number;
  container?: string;
  /** A kubelet event reason where one exists (Pulled, Created, Started, BackOff, Killing ...). */
  reason?: string;
  message?: string;
}

/** A type that carries no detail. */
interface NoDetail {
  detail?: never;
}

/** One container in a StatusChanged: its state, why, and its restarts (the TUI's detail pane shows them). */
export interface ContainerSummary {
  name: string;
  state: 'waiting' | 'running' | 'exited';
  reason: string;
  restartCount: number;
}

/** The call and code of a failed CRI call (knode's messages leave them out). */
export interface CriCallDetail {
  call?: string;
  code?: string;
}

/** An image volume's pull names no container: its detail names the volume. */
interface ImageVolume {
  volume?: string;
}

/**
 * Every stage of a pod's life that the engine reports, each with its payload:
 * the fields it sets beyond the common ones, and its `detail`. The faces
 * (plain log lines, NDJSON, the TUI, trace, metrics) all read this stream; a
 * new stage is a new member here (and a row in EVENT_CLASSES), never an
 * ad-hoc string.
 */
export interface LifecyclePayloads {
  // the node
  NodeStarted: {
    detail: { nodeName: string; runtimeName: string; runtimeVersion: string; sources: string[]; evented: boolean };
  };
  /** knode run --drain-on-exit: the node stops its pods before knode exits (reason Shutdown, as the kubelet's node event). */
  NodeShutdown: { detail: { pods: number } };
  // sources and admission
  SourceReady: { detail: { source: string } };
  ManifestError: NoDetail;
  /** An object of a kind the node does not run (a Service), or that the node leaves to its cluster. */
  ManifestSkipped: NoDetail;
  /** A local controller's event about a workload (SuccessfulCreate, ScalingReplicaSet, Completed…), as kube-controller-manager posts it. */
  WorkloadEvent: { detail: { kind: string; namespace: string; name: string; eventType: 'Normal' | 'Warning' } };
  /** A workload's row as `kubectl get` prints it, without its ages; `deleted` when it is gone. */
  WorkloadStatus: {
    detail: { kind: string; namespace: string; name: string; resource: string; cells: [string, string][]; deleted?: boolean };
  };
  PodSeen: { detail: { source: string } };
  PodUpdated: NoDetail;
  PodDeleted: NoDetail;
  PodRemoved: NoDetail;
  PodAdmitted: NoDetail;
  PodRejected: NoDetail;
  // the pod worker
  WorkerStarted: NoDetail;
  /** A pod created again with the UID of one that ended (a static pod's manifest put back) is started anew. */
  PodRestarted: NoDetail;
  /** One pass of a pod worker finished: its update type, the worker's state before it, and how long it took. */
  PodSynced: { detail: { updateType: UpdateType; state: WorkerState; durationMs: number } };
  SyncFailed: NoDetail;
  VolumesReady: { detail: { volumes: number } };
  SandboxCreated: { detail: { sandboxId: string; attempt: number } };
  /** A pod off the host's network got the node's IP: the runtime has no pod network, so the pod shares the host's. */
  PodNetworkMissing: NoDetail;
  SandboxFailed: NoDetail;
  /** The pod's resolver settings went over a limit (3 nameservers, 32 search paths, 2048 characters): some were left out (reason DNSConfigForming). */
  DNSConfigForming: NoDetail;
  /** A ClusterFirst pod on a node without clusterDNS gets the host's resolver instead; detail.nodeMessage is the Node event's text. */
  MissingClusterDNS: { detail: { nodeMessage: string } };
  /** The host's resolver file (resolvConf) cannot be read, or its search line is over the limits pods' lines are cut to (a Node event). */
  CheckLimitsForResolvConf: NoDetail;
  ImagePulling: { detail?: ImageVolume };
  ImagePulled: { detail: ImageVolume & { durationMs: number } };
  /** The image was there already, and its pull policy asks for no pull (reason Pulled, as the kubelet posts it). */
  ImagePresent: { detail?: ImageVolume };
  ImagePullFailed: { detail?: ImageVolume & CriCallDetail };
  ImagePullBackOff: { detail?: ImageVolume };
  ContainerCreated: { container: string; detail: { containerId: string; restartCount: number } };
  ContainerStarted: {
    container: string;
    detail: { containerId: string; restartCount: number; containerType: 'container' | 'init_container' };
  };
  /** A container failed a step; a failed hook's detail keeps its output (the event leaves it out, as the kubelet's). */
  ContainerFailed: { container: string; detail?: CriCallDetail & { containerId?: string; error?: string } };
  /** The restart backoff still runs: remainingMs until the container may start again. */
  ContainerBackOff: { container: string; detail: { remainingMs: number } };
  /** A container could not start this time; `reason` is its waiting reason (ErrImagePull, CrashLoopBackOff ...). */
  ContainerWaiting: { container: string } & NoDetail;
  /** detail.reason is the kubelet's reason for the kill; the event's own reason is Killing. */
  ContainerKilling: { container: string; detail: { gracePeriodSeconds: number; reason: string } };
  /** A probe failed once (reason Unhealthy). */
  ProbeFailed: { container: string; detail: { probe: ProbeKind } };
  /** The pod ran longer than its activeDeadlineSeconds and is failed (reason DeadlineExceeded). */
  PodDeadlineExceeded: NoDetail;
  PodTerminating: NoDetail;
  PodTerminated: NoDetail;
  WorkerFinished: NoDetail;
  // PLEG and status
  /** A PLEG event on its way to the sync loop: `reason` is its type, detail.containerId its container. */
  PLEGEvent: { reason: PodLifecycleEventType; detail: { containerId: string } };
  /** A relist's timings; with a reason, a failed relist (no detail) or a change of mode. */
  PLEGRelist: { detail?: { durationMs: number; pods: number; containers: number; events: number } | { mode: PlegMode } };
  StatusChanged: {
    detail: {
      phase: string;
      version: number;
      /** kubectl's STATUS and READY columns. */
      status: string;
      ready: string;
      restarts: number;
      ip: string;
      containers: ContainerSummary[];
    };
  };
  PodRunning: NoDetail;
  PodReady: NoDetail;
  PodSucceeded: NoDetail;
  PodFailed: NoDetail;
  // the node
  /** The Node object was registered with (or adopted from) the apiserver. */
  NodeRegistered: { detail: { uid: string } };
  /** The Node's Ready condition changed; reason and message are the condition's. */
  NodeReadyChanged: NoDetail;
  /** Writing to the apiserver failed (node status, lease, pod status, mirror pod); message says what. */
  ClusterWarning: NoDetail;
  RuntimeUnhealthy: NoDetail;
  /** A condition of the runtime's own (ContainerSandboxReady) is false, or changed; the message says which and why. */
  RuntimeConditionChanged: NoDetail;
  RuntimeHealthy: NoDetail;
  /** No relist finished within the PLEG's threshold (the node is not ready); PLEGHealthy once one does. */
  PLEGUnhealthy: NoDetail;
  PLEGHealthy: NoDetail;
  Housekeeping: { detail: { durationMs: number } };
  OrphanKilled: NoDetail;
  /** The container log manager renamed a running container's full log aside and the runtime reopened it. */
  ContainerLogRotated: { detail: { containerId: string; path: string; rotated: string; size: number } };
  /** A log could not be rotated (the runtime could not reopen it, a file could not be compressed...): tried again next interval. */
  ContainerLogRotationFailed: { detail: { containerId: string; path?: string } };
  /** A container garbage collection removed something (or failed to remove some of it: the next one tries again). */
  ContainerGarbageCollected: { detail: { containers: number; sandboxes: number; logDirectories: number; failures: string[] } };
  /** A container garbage collection could not list what it collects (the kubelet's ContainerGCFailed node event). */
  ContainerGCFailed: NoDetail;
  /** An image garbage collection removed images (the ids, and the bytes their sizes add up to). */
  ImageGarbageCollected: { detail: { removed: string[]; freedBytes: number } };
  /** Image usage was over the high threshold and removing every eligible image did not bring it to the low one (the kubelet's node event). */
  FreeDiskSpaceFailed: NoDetail;
  /** Image garbage collection failed twice in a row (reason ImageGCFailed), or the image filesystem's capacity is 0 (InvalidDiskCapacity). */
  ImageGCFailed: NoDetail;
  /** The eviction manager stopped the pod Failed, reason Evicted (the kubelet's Evicted event); the message names the starved resource. */
  PodEvicted: NoDetail;
  /** The pod is killed to make room for a critical pod (the kubelet's Preempting event, from its preemption path). */
  PodPreempted: NoDetail;
  /** A threshold was met and the node reclaims its resource (reason EvictionThresholdMet), or a pass failed (EvictionFailed). */
  EvictionThresholdMet: NoDetail;
  /** MemoryPressure, DiskPressure or PIDPressure changed; the reason is the kubelet's node event (NodeHasInsufficientMemory ...). */
  NodePressureChanged: NoDetail;
  // joining a cluster
  /** TLS bootstrap or a renewal got the node a new certificate (client or serving); new connections use it. */
  CertificateRotated: { detail: { kind: 'client' | 'server'; subject: string; notAfter: string; closedConnections?: number } };
  /** A certificate renewal failed; it is tried again after a back-off. */
  CertificateRenewFailed: { detail: { kind: 'client' | 'server' } };
}

export type LifecycleEventType = keyof LifecyclePayloads;

/** The event of one type: the common fields, narrowed and extended by its payload. */
export type LifecycleEventOf<T extends LifecycleEventType> = { type: T } & EventCommon & LifecyclePayloads[T];

/** A discriminated union on `type`: a switch on it gives each branch its own detail. */
export type LifecycleEvent = { [T in LifecycleEventType]: LifecycleEventOf<T> }[LifecycleEventType];

/** What emit takes: an event whose time the stream may fill in. */
export type EmittedEvent = LifecycleEvent extends infer E ? (E extends LifecycleEvent ? Omit<E, 'at'> & { at?: number } : never) : never;

/** A type guard for one event type: `events.filter(ofType('PodSynced'))` gives PodSynced events, detail and all. */
export function ofType<T extends LifecycleEventType>(type: T): (event: LifecycleEvent) => event is Extract<LifecycleEvent, { type: T }> {
  return (event): event is Extract<LifecycleEvent, { type: T }> => event.type === type;
}

export type LifecycleListener = (event: LifecycleEvent) => void;

/** The engine's one event stream; listeners must not throw and must be quick. */
export class EventStream {
  private readonly listeners = new Set<LifecycleListener>();

  constructor(private readonly now: () => number) {}

  subscribe(listener: LifecycleListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: EmittedEvent): void {
    const full: LifecycleEvent = { ...event, at: event.at ?? this.now() };
    for (const listener of this.listeners) listener(full);
  }
}
