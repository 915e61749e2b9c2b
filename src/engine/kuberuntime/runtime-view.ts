import type { RuntimeService } from '../../cri/runtime-service.js';
import { KubeletLabels } from '../../cri/types.js';
import { rfc3339, type Container, type ContainerStatus, type Pod, type PodSpec } from '../api/v1.js';
import type { ContainerInstance } from '../container/types.js';
import { InitContainerAnnotation, NodeNameLabel, nsToMs, RestartPolicyAnnotation, toContainerInstance } from './labels.js';

/**
 * The pods a runtime holds for knode nodes, rebuilt from the kubelet's labels
 * alone (no node running): identity, containers and their states, and init
 * containers and the restart policy by knode's marks on them. The phase is
 * the kubelet's: Running if any container runs; when all have exited,
 * Running still where the policy restarts them, else Succeeded or Failed.
 * A sandbox without the mark (another kubelet's) reads as restarting none.
 * With ADDRESSES, a pod whose latest sandbox is ready has that sandbox's IPs,
 * as the kubelet takes them (a status call for each such pod).
 */
export async function podsFromRuntime(runtime: RuntimeService, runtimeName: string, { addresses = false } = {}): Promise<Pod[]> {
  const [sandboxes, containers] = await Promise.all([runtime.listPodSandbox(), runtime.listContainers()]);
  const pods = new Map<string, { pod: Pod; instances: ContainerInstance[]; ips?: Promise<string[]> }>();
  for (const s of sandboxes.sort((a, b) => b.createdAt - a.createdAt)) {
    const uid = s.labels[KubeletLabels.podUid];
    if (!uid || !s.labels[NodeNameLabel] || pods.has(uid)) continue;
    pods.set(uid, {
      pod: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: s.metadata?.name,
          namespace: s.metadata?.namespace,
          uid,
          creationTimestamp: rfc3339(nsToMs(s.createdAt)),
          // The kubelet gives the sandbox the pod's labels and annotations, beside its own.
          labels: podsOwn(s.labels),
          annotations: withoutKey(s.annotations, RestartPolicyAnnotation),
        },
        spec: { containers: [], nodeName: s.labels[NodeNameLabel], ...restartPolicyOf(s.annotations) },
        status: { phase: 'Pending' },
      },
      instances: [],
      ips: addresses && s.state === 'SANDBOX_READY' ? sandboxIPs(runtime, s.id) : undefined,
    });
  }
  for (const c of containers) {
    const entry = pods.get(c.labels[KubeletLabels.podUid] ?? '');
    if (!entry) continue;
    try {
      const instance = toContainerInstance((await runtime.containerStatus(c.id)).status!);
      // The list keeps the create's image spec, with the name the pod's spec gave; a status has the image's tag instead.
      if (c.image?.userSpecifiedImage) instance.userSpecifiedImage = c.image.userSpecifiedImage;
      entry.instances.push(instance);
    } catch {
      // removed between the list and the status: leave it out
    }
  }
  return Promise.all(
    [...pods.values()].map(async ({ pod, instances, ips }) => {
      withStatus(pod, instances, runtimeName);
      const [podIP, ...more] = (await ips) ?? [];
      if (podIP) Object.assign(pod.status!, { podIP, podIPs: [podIP, ...more].map((ip) => ({ ip })) });
      return pod;
    }),
  );
}

/** A sandbox's IPs, its first the pod's IP; none when it has none, or is gone. */
async function sandboxIPs(runtime: RuntimeService, id: string): Promise<string[]> {
  try {
    const network = (await runtime.podSandboxStatus(id)).status?.network;
    return network?.ip ? [network.ip, ...(network.additionalIps ?? []).map((a) => a.ip)] : [];
  } catch {
    return []; // removed between the list and the status
  }
}

function withStatus(pod: Pod, instances: ContainerInstance[], runtimeName: string): Pod {
  // Each container's latest instance, the containers in the order they were first made (the spec's).
  const first = new Map<string, number>();
  for (const c of instances) first.set(c.name, Math.min(first.get(c.name) ?? Infinity, c.createdAt));
  instances.sort((a, b) => first.get(a.name)! - first.get(b.name)! || b.createdAt - a.createdAt);
  const statuses: ContainerStatus[] = [];
  const initStatuses: ContainerStatus[] = [];
  const inits: Container[] = [];
  for (const c of instances) {
    if ([...statuses, ...initStatuses].some((s) => s.name === c.name)) continue;
    // The spec's image as the pod named it, where the runtime kept the name (containerd 2 and the embedded runtime do).
    const spec: Container = { name: c.name, image: c.userSpecifiedImage ?? c.image };
    // knode marks its init containers; a sidecar is ready while it runs, an init container once it ended well, as the kubelet says.
    const init = c.annotations?.[InitContainerAnnotation];
    if (init === 'sidecar') spec.restartPolicy = 'Always';
    (init ? inits : pod.spec.containers).push(spec);
    const running = c.state === 'running';
    (init ? initStatuses : statuses).push({
      name: c.name,
      ready: init === 'init' ? c.state === 'exited' && c.exitCode === 0 : running,
      started: running,
      restartCount: c.restartCount,
      image: c.image,
      imageID: c.imageRef,
      containerID: `${runtimeName}://${c.id}`,
      state: running
        ? { running: { startedAt: rfc3339(c.startedAt) } }
        : c.state === 'exited'
          ? {
              terminated: {
                exitCode: c.exitCode,
                reason: c.reason || (c.exitCode === 0 ? 'Completed' : 'Error'),
                startedAt: rfc3339(c.startedAt),
                finishedAt: rfc3339(c.finishedAt),
              },
            }
          : { waiting: {} },
    });
  }
  const running = statuses.filter((s) => s.state?.running).length;
  const exited = statuses.filter((s) => s.state?.terminated);
  // Initialized once every init container ended well and every sidecar runs (no regular container is made before).
  const initialized = initStatuses.every((s) => s.ready) || statuses.length > 0;
  const ready = statuses.length > 0 && running === statuses.length && initStatuses.every((s) => s.ready);
  pod.status = {
    phase: running > 0 ? 'Running' : exited.length > 0 && exited.length === statuses.length ? endedPhase(pod, exited) : 'Pending',
    ...(inits.length > 0 ? { initContainerStatuses: initStatuses } : {}),
    containerStatuses: statuses,
    conditions: [
      ...(inits.length > 0 ? [{ type: 'Initialized', status: initialized ? ('True' as const) : ('False' as const) }] : []),
      { type: 'Ready', status: ready ? 'True' : 'False' },
    ],
  };
  if (inits.length > 0) pod.spec.initContainers = inits;
  return pod;
}

/** The phase of a pod whose containers have all exited (the kubelet's getPhase): Running where they restart. */
function endedPhase(pod: Pod, exited: ContainerStatus[]): 'Running' | 'Succeeded' | 'Failed' {
  const succeeded = exited.every((s) => s.state!.terminated!.exitCode === 0);
  const policy = pod.spec.restartPolicy;
  if (policy === 'Always') return 'Running';
  if (succeeded) return 'Succeeded';
  return policy === 'OnFailure' ? 'Running' : 'Failed';
}

/** The restart policy knode marked on a sandbox, when it is one the API knows. */
function restartPolicyOf(annotations: Record<string, string> | undefined): Pick<PodSpec, 'restartPolicy'> {
  const policy = annotations?.[RestartPolicyAnnotation];
  return policy === 'Always' || policy === 'OnFailure' || policy === 'Never' ? { restartPolicy: policy } : {};
}

function withoutKey(record: Record<string, string> | undefined, key: string): Record<string, string> {
  const { [key]: _dropped, ...rest } = record ?? {};
  return rest;
}

/** A sandbox's labels without those the kubelet (and knode) add: the pod's own. */
function podsOwn(labels: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).filter(([key]) => !key.startsWith('io.kubernetes.') && key !== NodeNameLabel));
}
