// The runtime's view of pods, independent of CRI's wire shapes: the kubelet's
// kubecontainer types. Times are milliseconds since the epoch.

export type ContainerRuntimeState = 'created' | 'running' | 'exited' | 'unknown';

/** One container instance as the runtime reports it (kubecontainer.Status). */
export interface ContainerInstance {
  id: string;
  name: string;
  state: ContainerRuntimeState;
  createdAt: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  /** The image as the runtime reports it: a tag where it has one. */
  image: string;
  /** The image as the pod's spec named it, when the runtime kept it (CRI user_specified_image). */
  userSpecifiedImage?: string;
  imageRef: string;
  imageId: string;
  reason: string;
  message: string;
  /** The spec hash the kubelet stamped on it (annotation), to notice spec changes. */
  hash: string;
  restartCount: number;
  logPath: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export interface SandboxInstance {
  id: string;
  state: 'ready' | 'notready';
  createdAt: number;
  attempt: number;
  ip: string;
  /** The network namespace mode: NODE for host-network pods. */
  network: string;
}

/** Everything the runtime knows about one pod (kubecontainer.PodStatus), newest first. */
export interface RuntimePodStatus {
  uid: string;
  name: string;
  namespace: string;
  ips: string[];
  sandboxes: SandboxInstance[];
  containers: ContainerInstance[];
}

/** A pod the runtime runs, found by listing (kubecontainer.Pod); used for orphans and PLEG. */
export interface RunningPod {
  uid: string;
  name: string;
  namespace: string;
  sandboxes: { id: string; state: 'ready' | 'notready'; createdAt: number }[];
  containers: { id: string; name: string; state: ContainerRuntimeState; createdAt: number; hash: string; sandboxId: string }[];
}

export function emptyPodStatus(uid: string, name = '', namespace = ''): RuntimePodStatus {
  return { uid, name, namespace, ips: [], sandboxes: [], containers: [] };
}

/** Whether a container of the pod runs or a sandbox of it is ready (the kubelet's isPodStatusCacheTerminal, negated). */
export function runsAnything(status: RuntimePodStatus): boolean {
  return status.containers.some((c) => c.state === 'running') || status.sandboxes.some((s) => s.state === 'ready');
}

/** The newest instance of the named container (the list is newest first). */
export function findContainer(status: RuntimePodStatus, name: string): ContainerInstance | undefined {
  return status.containers.find((c) => c.name === name);
}

/** All instances of the named container, newest first. */
export function instancesOf(status: RuntimePodStatus, name: string): ContainerInstance[] {
  return status.containers.filter((c) => c.name === name);
}
