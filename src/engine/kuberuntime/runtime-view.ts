import type { RuntimeService } from '../../cri/runtime-service.js';
import { KubeletLabels } from '../../cri/types.js';
import { rfc3339, type Container, type ContainerStatus, type Pod } from '../api/v1.js';
import type { ContainerInstance } from '../container/types.js';
import { InitContainerAnnotation, NodeNameLabel, nsToMs, toContainerInstance } from './labels.js';

/**
 * The pods a runtime holds for knode nodes, rebuilt from the kubelet's labels
 * alone (no node running): identity, containers and their states, and init
 * containers by knode's mark on them. Without the manifests restart policies
 * are unknown, so the phase is read from the containers: Running if any runs,
 * Succeeded or Failed when all have exited.
 */
export async function podsFromRuntime(runtime: RuntimeService, runtimeName: string): Promise<Pod[]> {
  const [sandboxes, containers] = await Promise.all([runtime.listPodSandbox(), runtime.listContainers()]);
  const pods = new Map<string, { pod: Pod; instances: ContainerInstance[] }>();
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
          annotations: { ...s.annotations },
        },
        spec: { containers: [], nodeName: s.labels[NodeNameLabel] },
        status: { phase: 'Pending' },
      },
      instances: [],
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
  return [...pods.values()].map(({ pod, instances }) => withStatus(pod, instances, runtimeName));
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
    phase:
      running > 0
        ? 'Running'
        : exited.length > 0 && exited.length === statuses.length
          ? exited.every((s) => s.state!.terminated!.exitCode === 0)
            ? 'Succeeded'
            : 'Failed'
          : 'Pending',
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

/** A sandbox's labels without those the kubelet (and knode) add: the pod's own. */
function podsOwn(labels: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).filter(([key]) => !key.startsWith('io.kubernetes.') && key !== NodeNameLabel));
}
