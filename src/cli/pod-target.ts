import type { CriClient } from '../cri/client.js';
import { KubeletLabels, type Container, type PodSandbox } from '../cri/types.js';
import type { Pod, PodList } from '../engine/api/v1.js';
import type { NodeClient } from './node-client.js';
import { KubectlError } from '../util/user-error.js';

/** The annotation naming the container kubectl exec, attach and logs pick when -c is not given. */
export const DEFAULT_CONTAINER_ANNOTATION = 'kubectl.kubernetes.io/default-container';

/** A pod as the runtime runs it: its ready sandbox, its running containers, and its spec when a node knows it. */
export interface RunningPod {
  namespace: string;
  name: string;
  sandbox: PodSandbox;
  /** Running containers, oldest first (the order the pod's containers started in). */
  containers: Container[];
  /** The containers' names in the spec's order (from the node's pod; else the running ones'). */
  names: string[];
  annotations: Record<string, string>;
  pod?: Pod;
}

/**
 * Finds a pod by name: in the running node's pods when there is one (its
 * spec gives the containers' order and annotations), and in the runtime
 * (ready sandbox, running containers) for the ids to stream to; KNOWN is
 * the node's pod when the caller has it already. Not found: kubectl's words.
 */
export async function findRunningPod(
  client: CriClient,
  namespace: string,
  name: string,
  node?: NodeClient,
  known?: Pod,
): Promise<RunningPod> {
  const missing = () => new KubectlError(`Error from server (NotFound): pods "${name}" not found`);
  let pod = known;
  if (node && !pod) {
    const pods = (await node.json<PodList>('/pods')).body.items;
    pod = pods.find((p) => p.metadata.namespace === namespace && p.metadata.name === name);
    if (!pod) throw missing();
  }
  const labelSelector = { [KubeletLabels.podName]: name, [KubeletLabels.podNamespace]: namespace };
  const sandboxes = (await client.listPodSandbox({ labelSelector }))
    .filter((s) => s.state === 'SANDBOX_READY' && (!pod?.metadata.uid || s.metadata?.uid === pod.metadata.uid))
    .sort((a, b) => Number(b.createdAt) - Number(a.createdAt));
  const sandbox = sandboxes[0];
  if (!sandbox) {
    if (pod)
      throw new KubectlError(
        `error: unable to upgrade connection: pod ${name} has no running sandbox (phase ${pod.status?.phase ?? 'Pending'})`,
      );
    throw missing();
  }
  const containers = (await client.listContainers({ podSandboxId: sandbox.id }))
    .filter((c) => c.state === 'CONTAINER_RUNNING')
    .sort((a, b) => Number(a.createdAt) - Number(b.createdAt));
  const running = [...new Set(containers.map((c) => c.labels[KubeletLabels.containerName]))];
  const names = pod ? [...(pod.spec.initContainers ?? []), ...pod.spec.containers].map((c) => c.name) : running;
  const annotations = { ...(sandbox.annotations ?? {}), ...(pod?.metadata.annotations ?? {}) };
  return { namespace, name, sandbox, containers, names, annotations, pod };
}

/**
 * The container to exec into or attach to, as kubectl picks it: -c if the
 * pod has it; else the default-container annotation; else the first
 * container, saying so on stderr when there were several.
 */
export function pickContainer(found: RunningPod, wanted: string | undefined, warn: (message: string) => void): Container {
  let name = wanted;
  if (name === undefined) {
    const annotated = found.annotations[DEFAULT_CONTAINER_ANNOTATION];
    if (annotated && found.names.includes(annotated)) name = annotated;
    else {
      const main = found.pod ? found.pod.spec.containers.map((c) => c.name) : found.names;
      name = main[0];
      if (main.length > 1) warn(`Defaulted container "${name}" out of: ${found.names.join(', ')}`);
    }
  }
  if (name === undefined || !found.names.includes(name))
    throw new KubectlError(`Error from server (BadRequest): container ${name ?? '""'} is not valid for pod ${found.name}`);
  const container = found.containers.filter((c) => c.labels[KubeletLabels.containerName] === name).pop();
  if (!container) throw new KubectlError(`error: unable to upgrade connection: container not found ("${name}")`);
  return container;
}
