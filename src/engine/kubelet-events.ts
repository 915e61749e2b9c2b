import type { ObjectReference } from './api/cluster.js';
import type { Pod } from './api/v1.js';
import type { LifecycleEvent, LifecycleEventType } from './events.js';

/** The lifecycle events that become Kubernetes Events, with their type (the kubelet's reasons ride along). */
const RECORDED: Partial<Record<LifecycleEventType, 'Normal' | 'Warning'>> = {
  ImagePulling: 'Normal',
  ImagePulled: 'Normal',
  ImagePresent: 'Normal',
  ImagePullBackOff: 'Normal',
  ImagePullFailed: 'Warning',
  ContainerCreated: 'Normal',
  ContainerStarted: 'Normal',
  ContainerKilling: 'Normal',
  ContainerFailed: 'Warning',
  ContainerBackOff: 'Warning',
  ProbeFailed: 'Warning',
  SandboxFailed: 'Warning',
  PodNetworkMissing: 'Warning',
  DNSConfigForming: 'Warning',
  MissingClusterDNS: 'Warning',
  PodEvicted: 'Warning',
  PodPreempted: 'Warning',
  PodRejected: 'Warning',
  PodDeadlineExceeded: 'Normal',
  SyncFailed: 'Warning',
};

/** One event as the kubelet's recorder records it: on what, its type, reason and message. */
export interface KubeletEvent {
  involved: ObjectReference;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  /** Who records it, when not the kubelet: a local workload controller (deployment-controller…). */
  component?: string;
}

/** The controller kube-controller-manager records each workload's events as, and the kind's API group. */
const CONTROLLERS: Record<string, { component: string; apiVersion: string }> = {
  Deployment: { component: 'deployment-controller', apiVersion: 'apps/v1' },
  ReplicaSet: { component: 'replicaset-controller', apiVersion: 'apps/v1' },
  StatefulSet: { component: 'statefulset-controller', apiVersion: 'apps/v1' },
  DaemonSet: { component: 'daemonset-controller', apiVersion: 'apps/v1' },
  Job: { component: 'job-controller', apiVersion: 'batch/v1' },
  CronJob: { component: 'cronjob-controller', apiVersion: 'batch/v1' },
};

/** Where a container sits in its pod's spec, by the pod's UID: an event's involvedObject.fieldPath. */
export type ContainerFieldPath = (uid: string, container: string) => string;

/** The kubelet's GenerateContainerRef: `spec.containers{name}`, or `spec.initContainers{name}` for an init container (sidecars too). */
export function containerFieldPath(pod: Pod | undefined, container: string): string {
  const init = !pod?.spec.containers.some((c) => c.name === container) && pod?.spec.initContainers?.some((c) => c.name === container);
  return init ? `spec.initContainers{${container}}` : `spec.containers{${container}}`;
}

/**
 * The Kubernetes Events the kubelet records for a lifecycle event (most
 * make one, some none, a missing clusterDNS two): the kubelet's reasons
 * (Pulling, Pulled, Failed, BackOff, Created, Started, Killing, Unhealthy,
 * FailedMount, Evicted, ...) on the pod and its container, and the node's
 * own (Starting, NodeReady, Shutdown, ContainerGCFailed, NodeHasDiskPressure, ...).
 */
export function kubeletEvents(
  e: LifecycleEvent,
  nodeName: string,
  fieldPath: ContainerFieldPath = (_uid, container) => containerFieldPath(undefined, container),
): KubeletEvent[] {
  // The kubelet refers to its Node with the node name as UID.
  const node: ObjectReference = { kind: 'Node', name: nodeName, uid: nodeName };
  const onNode = (type: 'Normal' | 'Warning', reason: string, message: string): KubeletEvent[] => [
    { involved: node, type, reason, message },
  ];
  if (e.type === 'NodeStarted') return onNode('Normal', 'Starting', 'Starting kubelet.');
  if (e.type === 'NodeShutdown') return onNode('Normal', 'Shutdown', 'Shutdown manager detected shutdown event');
  if (e.type === 'ContainerGCFailed') return onNode('Warning', 'ContainerGCFailed', e.message ?? '');
  if (e.type === 'FreeDiskSpaceFailed' || e.type === 'ImageGCFailed') return onNode('Warning', e.reason ?? e.type, e.message ?? '');
  if (e.type === 'CheckLimitsForResolvConf') return onNode('Warning', 'CheckLimitsForResolvConf', e.message ?? '');
  if (e.type === 'EvictionThresholdMet' && e.reason === 'EvictionThresholdMet') return onNode('Warning', e.reason, e.message ?? '');
  if (e.type === 'NodePressureChanged' && e.reason) return onNode('Normal', e.reason, `Node ${nodeName} status is now: ${e.reason}`);
  if (e.type === 'NodeReadyChanged') {
    const reason = e.reason === 'KubeletReady' ? 'NodeReady' : 'NodeNotReady';
    return onNode('Normal', reason, `Node ${nodeName} status is now: ${reason}`);
  }
  if (e.type === 'WorkloadEvent') {
    const { kind, namespace, name, eventType } = e.detail;
    const controller = CONTROLLERS[kind];
    if (!controller || !e.reason) return [];
    const message = e.message ?? '';
    const involved: ObjectReference = { apiVersion: controller.apiVersion, kind, namespace, name, uid: e.uid };
    return [{ involved, type: eventType, reason: e.reason, message, component: controller.component }];
  }
  const type = RECORDED[e.type];
  if (!type || !e.pod || !e.reason) return [];
  if (e.type === 'SyncFailed' && e.reason !== 'FailedMount') return [];
  const [namespace, name] = e.pod.split('/');
  const involved: ObjectReference = {
    apiVersion: 'v1',
    kind: 'Pod',
    namespace,
    name,
    uid: e.uid,
    ...(e.container ? { fieldPath: fieldPath(e.uid, e.container) } : {}),
  };
  const onPod: KubeletEvent = { involved, type, reason: e.reason, message: e.message ?? '' };
  // The kubelet posts a missing clusterDNS on its Node first, in words of its own.
  if (e.type === 'MissingClusterDNS') return [...onNode('Warning', 'MissingClusterDNS', e.detail.nodeMessage), onPod];
  return [onPod];
}

/** client-go's spam filter: 25 events at once per object, then one per 5 minutes. */
const SPAM_BURST = 25;
const SPAM_REFILL_MS = 5 * 60_000;

/** client-go's EventSourceObjectSpamFilter: a token bucket per involved object. */
export class EventSpamFilter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  allow(objectKey: string, now: number): boolean {
    const bucket = this.buckets.get(objectKey) ?? { tokens: SPAM_BURST, at: now };
    bucket.tokens = Math.min(SPAM_BURST, bucket.tokens + (now - bucket.at) / SPAM_REFILL_MS);
    bucket.at = now;
    this.buckets.set(objectKey, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens--;
    // A full bucket is the default: forget it, so the map stays as small as the busy objects.
    if (this.buckets.size > 4096)
      for (const [key, b] of this.buckets) if (b.tokens + (now - b.at) / SPAM_REFILL_MS >= SPAM_BURST) this.buckets.delete(key);
    return true;
  }
}

/** What makes two events one object's repeats (client-go's getEventKey, without the source that is always this kubelet). */
export function objectKey(involved: ObjectReference): string {
  return `${involved.kind}/${involved.namespace ?? ''}/${involved.name}/${involved.uid ?? ''}`;
}

export function eventKey(e: KubeletEvent): string {
  return `${objectKey(e.involved)}/${e.involved.fieldPath ?? ''}/${e.type}/${e.reason}/${e.message}`;
}
