// The pods as the runtime holds them, read back by the kubelet's labels: the relist's list and one pod's status.
import type { RuntimeService } from '../../cri/runtime-service.js';
import { KubeletAnnotations, KubeletLabels, type ContainerEvent, type PodSandboxStatus } from '../../cri/types.js';
import { isCode, GrpcCode } from '../../cri/errors.js';
import type { ContainerInstance, RunningPod, RuntimePodStatus, SandboxInstance } from '../container/types.js';
import { containerStateOf, NodeNameLabel, nsToMs, toContainerInstance } from './labels.js';
import { terminationMessage } from './termination-message.js';

/** Every pod this node's kubelet made, from two list calls (the PLEG's relist; upstream's getPods). */
export async function getPods(rt: RuntimeService, nodeName: string): Promise<RunningPod[]> {
  const selector = { labelSelector: { [NodeNameLabel]: nodeName } };
  const [sandboxes, containers] = await Promise.all([rt.listPodSandbox(selector), rt.listContainers(selector)]);
  const pods = new Map<string, RunningPod>();
  const podOf = (labels: Record<string, string>) => {
    const uid = labels[KubeletLabels.podUid] ?? '';
    let pod = pods.get(uid);
    if (!pod) {
      pod = {
        uid,
        name: labels[KubeletLabels.podName] ?? '',
        namespace: labels[KubeletLabels.podNamespace] ?? '',
        sandboxes: [],
        containers: [],
      };
      pods.set(uid, pod);
    }
    return pod;
  };
  for (const s of sandboxes)
    podOf(s.labels).sandboxes.push({
      id: s.id,
      state: s.state === 'SANDBOX_READY' ? 'ready' : 'notready',
      createdAt: nsToMs(s.createdAt),
    });
  for (const c of containers) {
    podOf(c.labels).containers.push({
      id: c.id,
      name: c.labels[KubeletLabels.containerName] ?? c.metadata?.name ?? '',
      state: containerStateOf(c.state),
      createdAt: nsToMs(c.createdAt),
      hash: c.annotations[KubeletAnnotations.containerHash] ?? '',
      sandboxId: c.podSandboxId,
    });
  }
  return [...pods.values()];
}

/** Everything the runtime knows about one pod, newest sandbox and containers first (upstream's GetPodStatus). */
export async function getPodStatus(rt: RuntimeService, uid: string, name: string, namespace: string): Promise<RuntimePodStatus> {
  const selector = { labelSelector: { [KubeletLabels.podUid]: uid } };
  const [sandboxList, containerList] = await Promise.all([rt.listPodSandbox(selector), rt.listContainers(selector)]);
  const sandboxes = (await Promise.all(sandboxList.map((s) => sandboxInstance(rt, s.id)))).filter(
    (s): s is SandboxInstance => s !== undefined,
  );
  const containers = (await Promise.all(containerList.map((c) => containerInstance(rt, c.id)))).filter(
    (c): c is ContainerInstance => c !== undefined,
  );
  return podStatus(uid, name, namespace, sandboxes, containers);
}

/**
 * The pod as a runtime container event shows it: the event carries the pod's
 * sandbox and every container in it (containerd's do, and the embedded
 * runtime's), as they were when the event was made. Undefined for an event
 * without the sandbox's status. Only a pod with no other sandbox is all there
 * (the caller checks).
 */
export async function podStatusFromEvent(
  event: ContainerEvent,
  uid: string,
  name: string,
  namespace: string,
): Promise<RuntimePodStatus | undefined> {
  if (!event.podSandboxStatus) return undefined;
  const containers = await Promise.all(
    event.containersStatuses.map(async (status) => {
      const instance = toContainerInstance(status);
      if (instance.state === 'exited') instance.message = await terminationMessage(status);
      return instance;
    }),
  );
  return podStatus(uid, name, namespace, [toSandboxInstance(event.podSandboxStatus)], containers);
}

/** Sandboxes and containers newest first, and the pod's IP from its newest sandbox if that is ready. */
function podStatus(
  uid: string,
  name: string,
  namespace: string,
  sandboxes: SandboxInstance[],
  containers: ContainerInstance[],
): RuntimePodStatus {
  sandboxes.sort((a, b) => b.createdAt - a.createdAt);
  containers.sort((a, b) => b.createdAt - a.createdAt);
  const newest = sandboxes[0];
  return { uid, name, namespace, ips: newest?.state === 'ready' && newest.ip ? [newest.ip] : [], sandboxes, containers };
}

function toSandboxInstance(s: PodSandboxStatus): SandboxInstance {
  return {
    id: s.id,
    state: s.state === 'SANDBOX_READY' ? 'ready' : 'notready',
    createdAt: nsToMs(s.createdAt),
    attempt: s.metadata?.attempt ?? 0,
    ip: s.network?.ip ?? '',
    network: s.linux?.namespaces?.options?.network ?? 'POD',
  };
}

async function sandboxInstance(rt: RuntimeService, id: string): Promise<SandboxInstance | undefined> {
  try {
    return toSandboxInstance((await rt.podSandboxStatus(id)).status!);
  } catch (err) {
    if (isCode(err, GrpcCode.NOT_FOUND)) return undefined; // removed between list and status
    throw err;
  }
}

async function containerInstance(rt: RuntimeService, id: string): Promise<ContainerInstance | undefined> {
  try {
    const status = (await rt.containerStatus(id)).status!;
    const instance = toContainerInstance(status);
    if (instance.state === 'exited') instance.message = await terminationMessage(status);
    return instance;
  } catch (err) {
    if (isCode(err, GrpcCode.NOT_FOUND)) return undefined;
    throw err;
  }
}
