// The Kubernetes core/v1 objects knode reads and writes, as their JSON is:
// field names as the API spells them, times as RFC 3339 strings, everything
// optional that the API leaves optional. A subset, grown as features need it.

export type Quantity = string | number;

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }[];
}

export interface ObjectFieldSelector {
  apiVersion?: string;
  fieldPath: string;
}

export interface ResourceFieldSelector {
  containerName?: string;
  resource: string;
  divisor?: Quantity;
}

export interface EnvVarSource {
  fieldRef?: ObjectFieldSelector;
  resourceFieldRef?: ResourceFieldSelector;
  configMapKeyRef?: { name?: string; key: string; optional?: boolean };
  secretKeyRef?: { name?: string; key: string; optional?: boolean };
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: EnvVarSource;
}

export interface EnvFromSource {
  prefix?: string;
  configMapRef?: { name?: string; optional?: boolean };
  secretRef?: { name?: string; optional?: boolean };
}

export interface ContainerPort {
  name?: string;
  containerPort: number;
  hostPort?: number;
  hostIP?: string;
  protocol?: 'TCP' | 'UDP' | 'SCTP';
}

export interface ResourceRequirements {
  limits?: Record<string, Quantity>;
  requests?: Record<string, Quantity>;
}

export interface ExecAction {
  command?: string[];
}

export interface HTTPGetAction {
  path?: string;
  port: number | string;
  host?: string;
  scheme?: 'HTTP' | 'HTTPS';
  httpHeaders?: { name: string; value: string }[];
}

export interface TCPSocketAction {
  port: number | string;
  host?: string;
}

export interface LifecycleHandler {
  exec?: ExecAction;
  httpGet?: HTTPGetAction;
  tcpSocket?: TCPSocketAction;
  sleep?: { seconds: number };
}

export interface Lifecycle {
  postStart?: LifecycleHandler;
  preStop?: LifecycleHandler;
  stopSignal?: string;
}

export interface Probe extends LifecycleHandler {
  grpc?: { port: number; service?: string };
  initialDelaySeconds?: number;
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  terminationGracePeriodSeconds?: number;
}

export interface VolumeMount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
  subPath?: string;
  /** None (the default), HostToContainer, or Bidirectional (privileged containers only). */
  mountPropagation?: 'None' | 'HostToContainer' | 'Bidirectional';
  /** Disabled (the default), IfPossible, or Enabled: what is mounted under a read-only volume is read-only too. */
  recursiveReadOnly?: 'Disabled' | 'IfPossible' | 'Enabled';
}

export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  workingDir?: string;
  ports?: ContainerPort[];
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  resources?: ResourceRequirements;
  volumeMounts?: VolumeMount[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: Lifecycle;
  terminationMessagePath?: string;
  terminationMessagePolicy?: 'File' | 'FallbackToLogsOnError';
  imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
  /**
   * The container's own restart policy, which wins over the pod's (ContainerRestartRules). On an
   * init container, `Always` makes it a sidecar (a restartable init container).
   */
  restartPolicy?: ContainerRestartPolicy;
  /** Checked in order when the container exits; the first that matches decides. Needs `restartPolicy`. */
  restartPolicyRules?: ContainerRestartRule[];
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
  securityContext?: Record<string, unknown>;
}

export type ContainerRestartPolicy = 'Always' | 'OnFailure' | 'Never';

/** How a container's exit is handled (core/v1 ContainerRestartRule). */
export interface ContainerRestartRule {
  /** `Restart` this container, or `RestartAllContainers`: the whole pod in place, init containers first. */
  action: 'Restart' | 'RestartAllContainers';
  exitCodes?: { operator: 'In' | 'NotIn'; values?: number[] };
}

export interface Volume {
  name: string;
  hostPath?: { path: string; type?: string };
  emptyDir?: { medium?: string; sizeLimit?: Quantity };
  /** An image volume: an OCI image's files, read-only (pulled once per pod by its pull policy). */
  image?: { reference?: string; pullPolicy?: 'Always' | 'IfNotPresent' | 'Never' };
  persistentVolumeClaim?: { claimName?: string; readOnly?: boolean };
  [source: string]: unknown;
}

/** A pod's own resolver settings (spec.dnsConfig). */
export interface PodDNSConfig {
  nameservers?: string[];
  searches?: string[];
  options?: { name?: string; value?: string }[];
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
  restartPolicy?: 'Always' | 'OnFailure' | 'Never';
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  dnsPolicy?: string;
  /** Resolver settings merged into those of the dnsPolicy (all of them under None). */
  dnsConfig?: PodDNSConfig;
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  /** Conditions besides its containers' readiness that a pod needs True to be Ready. */
  readinessGates?: { conditionType: string }[];
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  /** false: a user namespace of its own (knode runs none; it matters to sysctl admission). */
  hostUsers?: boolean;
  hostname?: string;
  subdomain?: string;
  hostAliases?: { ip: string; hostnames?: string[] }[];
  shareProcessNamespace?: boolean;
  serviceAccountName?: string;
  schedulerName?: string;
  priority?: number;
  priorityClassName?: string;
  securityContext?: Record<string, unknown>;
  tolerations?: { key?: string; operator?: string; value?: string; effect?: string; tolerationSeconds?: number }[];
  enableServiceLinks?: boolean;
  os?: { name: string };
}

export interface ContainerStateWaiting {
  reason?: string;
  message?: string;
}

export interface ContainerStateRunning {
  startedAt?: string;
}

export interface ContainerStateTerminated {
  exitCode: number;
  signal?: number;
  reason?: string;
  message?: string;
  startedAt?: string;
  finishedAt?: string;
  containerID?: string;
}

export interface ContainerState {
  waiting?: ContainerStateWaiting;
  running?: ContainerStateRunning;
  terminated?: ContainerStateTerminated;
}

export interface ContainerStatus {
  name: string;
  state?: ContainerState;
  lastState?: ContainerState;
  ready: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  started?: boolean;
}

export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed' | 'Unknown';

export interface PodStatus {
  phase?: PodPhase;
  conditions?: PodCondition[];
  message?: string;
  reason?: string;
  hostIP?: string;
  hostIPs?: { ip: string }[];
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: string;
  initContainerStatuses?: ContainerStatus[];
  containerStatuses?: ContainerStatus[];
  qosClass?: 'Guaranteed' | 'Burstable' | 'BestEffort';
  /** Set by a scheduler that preempted for the pod; kubectl get -o wide shows it. */
  nominatedNodeName?: string;
}

export interface Pod {
  apiVersion?: 'v1';
  kind?: 'Pod';
  metadata: ObjectMeta;
  spec: PodSpec;
  status?: PodStatus;
}

export interface PodList {
  apiVersion: 'v1';
  kind: 'PodList';
  metadata: { resourceVersion?: string };
  items: Pod[];
}

/** RFC 3339 with second precision, as the Kubernetes API writes metav1.Time. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
