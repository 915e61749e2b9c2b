import type { LifecycleEvent, LifecycleEventType } from './events.js';

/**
 * How the faces treat an event type. `class` sets the plain log's verbosity
 * (`-v`) and klog severity:
 * - lifecycle: a stage people follow; -v 0, I.
 * - step: a pod worker's inner step; -v 3, I.
 * - noisy: the node's heartbeat, too frequent for a line each; -v 4, I.
 * - problem: something went wrong; -v 0, W (as klog's warnings, always shown).
 * - failure: a pod, a manifest or the node failed; -v 0, E.
 * `quiet` keeps a type out of the TUI's events pane: it comes with every sync
 * or relist. A quiet event still updates the view.
 */
export interface EventClass {
  class: 'lifecycle' | 'step' | 'noisy' | 'problem' | 'failure';
  quiet: boolean;
}

const lifecycle: EventClass = { class: 'lifecycle', quiet: false };
const step: EventClass = { class: 'step', quiet: false };
const problem: EventClass = { class: 'problem', quiet: false };
const failure: EventClass = { class: 'failure', quiet: false };

/** Every event type's class: a new type without a row does not compile. */
export const EVENT_CLASSES: Record<LifecycleEventType, EventClass> = {
  NodeStarted: lifecycle,
  NodeShutdown: lifecycle,
  SourceReady: lifecycle,
  ManifestError: failure,
  ManifestSkipped: problem,
  WorkloadEvent: lifecycle,
  WorkloadStatus: { class: 'noisy', quiet: true },
  PodSeen: lifecycle,
  PodUpdated: lifecycle,
  PodDeleted: lifecycle,
  PodRemoved: lifecycle,
  PodAdmitted: lifecycle,
  PodRejected: problem,
  WorkerStarted: step,
  PodRestarted: lifecycle,
  PodSynced: { class: 'step', quiet: true },
  SyncFailed: problem,
  VolumesReady: step,
  SandboxCreated: lifecycle,
  PodNetworkMissing: problem,
  SandboxFailed: problem,
  DNSConfigForming: problem,
  // Every ClusterFirst pod of a node without clusterDNS (every standalone node): -v 3, and posted in a cluster.
  MissingClusterDNS: step,
  CheckLimitsForResolvConf: problem,
  ImagePulling: lifecycle,
  ImagePulled: lifecycle,
  ImagePresent: lifecycle,
  ImagePullFailed: problem,
  ImagePullBackOff: problem,
  ContainerCreated: lifecycle,
  ContainerStarted: lifecycle,
  ContainerFailed: problem,
  ContainerBackOff: problem,
  ContainerWaiting: lifecycle,
  ContainerKilling: lifecycle,
  ProbeFailed: problem,
  PodDeadlineExceeded: lifecycle,
  PodTerminating: lifecycle,
  PodTerminated: lifecycle,
  WorkerFinished: step,
  PLEGEvent: { class: 'step', quiet: true },
  PLEGRelist: { class: 'noisy', quiet: true },
  StatusChanged: { class: 'noisy', quiet: true },
  PodRunning: lifecycle,
  PodReady: lifecycle,
  PodSucceeded: lifecycle,
  PodFailed: failure,
  NodeRegistered: lifecycle,
  NodeReadyChanged: problem,
  ClusterWarning: problem,
  RuntimeUnhealthy: failure,
  RuntimeConditionChanged: problem,
  RuntimeHealthy: lifecycle,
  PLEGUnhealthy: failure,
  PLEGHealthy: lifecycle,
  // Logged from -v 4, yet listed in the TUI's events pane.
  Housekeeping: { class: 'noisy', quiet: false },
  OrphanKilled: problem,
  ContainerLogRotated: { class: 'noisy', quiet: true },
  ContainerLogRotationFailed: problem,
  ContainerGarbageCollected: { class: 'noisy', quiet: true },
  ContainerGCFailed: problem,
  ImageGarbageCollected: { class: 'noisy', quiet: true },
  FreeDiskSpaceFailed: problem,
  ImageGCFailed: problem,
  PodEvicted: failure,
  PodPreempted: failure,
  // Every pass while a threshold is met: the pressure itself is NodePressureChanged.
  EvictionThresholdMet: { class: 'noisy', quiet: false },
  NodePressureChanged: problem,
  CertificateRotated: lifecycle,
  CertificateRenewFailed: problem,
};

/** Whether something went wrong: a problem or a failure. */
function isProblem(event: LifecycleEvent): boolean {
  const { class: c } = EVENT_CLASSES[event.type];
  return c === 'problem' || c === 'failure';
}

/** Whether the event is too frequent for a line each; a relist with a reason (failed, or a change of mode) is not. */
function isNoisy(event: LifecycleEvent): boolean {
  return EVENT_CLASSES[event.type].class === 'noisy' && !(event.type === 'PLEGRelist' && event.reason);
}

/** Whether the TUI's events pane leaves the event out. */
export function isQuiet(event: LifecycleEvent): boolean {
  return EVENT_CLASSES[event.type].quiet;
}

/**
 * The klog verbosity an event is logged at (`-v`): 0 problems and the pod
 * lifecycle, 3 the worker's inner steps, 4 relists, status changes and
 * housekeeping.
 */
export function eventVerbosity(event: LifecycleEvent): number {
  if (isProblem(event)) return 0;
  if (isNoisy(event)) return 4;
  return EVENT_CLASSES[event.type].class === 'step' ? 3 : 0;
}

/** klog's severity letter: problems are warnings, failures errors. */
export function eventSeverity(event: LifecycleEvent): 'I' | 'W' | 'E' {
  const { class: c } = EVENT_CLASSES[event.type];
  return c === 'failure' ? 'E' : c === 'problem' ? 'W' : 'I';
}
