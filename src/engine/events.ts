/**
 * Every stage of a pod's life that the engine reports, as one typed union.
 * The faces (plain log lines, NDJSON, the TUI, trace, metrics) all read this
 * stream; a new stage is a new member here, never an ad-hoc string.
 */
export type LifecycleEventType =
  // the node
  | 'NodeStarted'
  /** knode run --drain-on-exit: the node stops its pods before knode exits (reason Shutdown, as the kubelet's node event). */
  | 'NodeShutdown'
  // sources and admission
  | 'SourceReady'
  | 'ManifestError'
  | 'PodSeen'
  | 'PodUpdated'
  | 'PodDeleted'
  | 'PodRemoved'
  | 'PodAdmitted'
  | 'PodRejected'
  // the pod worker
  | 'WorkerStarted'
  /** A pod created again with the UID of one that ended (a static pod's manifest put back) is started anew. */
  | 'PodRestarted'
  /** One pass of a pod worker finished: detail.updateType, detail.state, detail.durationMs. */
  | 'PodSynced'
  | 'SyncFailed'
  | 'VolumesReady'
  | 'SandboxCreated'
  /** A pod off the host's network got the node's IP: the runtime has no pod network, so the pod shares the host's. */
  | 'PodNetworkMissing'
  | 'SandboxFailed'
  | 'ImagePulling'
  | 'ImagePulled'
  | 'ImagePullFailed'
  | 'ImagePullBackOff'
  | 'ContainerCreated'
  | 'ContainerStarted'
  | 'ContainerFailed'
  | 'ContainerBackOff'
  /** A container could not start this time; `reason` is its waiting reason (ErrImagePull, CrashLoopBackOff ...). */
  | 'ContainerWaiting'
  | 'ContainerKilling'
  /** A probe failed once (reason Unhealthy); detail.probe is liveness, readiness or startup. */
  | 'ProbeFailed'
  /** The pod ran longer than its activeDeadlineSeconds and is failed (reason DeadlineExceeded). */
  | 'PodDeadlineExceeded'
  | 'PodTerminating'
  | 'PodTerminated'
  | 'WorkerFinished'
  // PLEG and status
  | 'PLEGEvent'
  | 'PLEGRelist'
  | 'StatusChanged'
  | 'PodRunning'
  | 'PodReady'
  | 'PodSucceeded'
  | 'PodFailed'
  // the node
  /** The Node object was registered with (or adopted from) the apiserver. */
  | 'NodeRegistered'
  /** The Node's Ready condition changed; reason and message are the condition's. */
  | 'NodeReadyChanged'
  /** Writing to the apiserver failed (node status, lease, pod status, mirror pod); message says what. */
  | 'ClusterWarning'
  | 'RuntimeUnhealthy'
  /** A condition of the runtime's own (ContainerSandboxReady) is false, or changed; the message says which and why. */
  | 'RuntimeConditionChanged'
  | 'RuntimeHealthy'
  /** No relist finished within the PLEG's threshold (the node is not ready); PLEGHealthy once one does. */
  | 'PLEGUnhealthy'
  | 'PLEGHealthy'
  | 'Housekeeping'
  | 'OrphanKilled';

export interface LifecycleEvent {
  type: LifecycleEventType;
  /** `namespace/name`, or '' for node-level events. */
  pod: string;
  uid: string;
  /** Milliseconds since the epoch, from the engine's clock. */
  at: number;
  container?: string;
  /** A kubelet event reason where one exists (Pulled, Created, Started, BackOff, Killing ...). */
  reason?: string;
  message?: string;
  /** Stage-specific numbers: durations in ms, counts. */
  detail?: Record<string, string | number | boolean>;
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

  emit(event: Omit<LifecycleEvent, 'at'> & { at?: number }): void {
    const full: LifecycleEvent = { ...event, at: event.at ?? this.now() };
    for (const listener of this.listeners) listener(full);
  }
}
