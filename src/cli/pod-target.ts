import type { CriClient } from '../cri/client.js';
import { KubeletLabels, type Container, type PodSandbox } from '../cri/types.js';
import type { Pod, PodList } from '../engine/api/v1.js';
import { InitContainerAnnotation } from '../engine/kuberuntime/labels.js';
import type { NodeClient } from './node-client.js';
import { nearHint, nearNames } from '../util/near-names.js';
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
  /** Every container the runtime made in the sandbox, oldest first (ended ones too). */
  made: Container[];
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
  completed: (phase: 'Succeeded' | 'Failed') => string,
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
  const phase = pod?.status?.phase;
  if (phase === 'Succeeded' || phase === 'Failed') throw new KubectlError(completed(phase));
  const labelSelector = { [KubeletLabels.podName]: name, [KubeletLabels.podNamespace]: namespace };
  const all = (await client.listPodSandbox({ labelSelector }))
    .filter((s) => !pod?.metadata.uid || s.metadata?.uid === pod.metadata.uid)
    .sort((a, b) => Number(b.createdAt) - Number(a.createdAt));
  // Without a node, a pod whose sandbox was stopped once its containers all ended is done: its phase from their exit codes.
  const ended = pod || all[0]?.state === 'SANDBOX_READY' ? undefined : await endedPhase(client, all[0]);
  if (ended) throw new KubectlError(completed(ended));
  const sandbox = all.find((s) => s.state === 'SANDBOX_READY');
  if (!sandbox) {
    if (pod)
      throw new KubectlError(
        `error: unable to upgrade connection: pod ${name} has no running sandbox (phase ${pod.status?.phase ?? 'Pending'})`,
      );
    throw missing();
  }
  const made = (await client.listContainers({ podSandboxId: sandbox.id })).sort((a, b) => Number(a.createdAt) - Number(b.createdAt));
  const containers = made.filter((c) => c.state === 'CONTAINER_RUNNING');
  const annotations = { ...(sandbox.annotations ?? {}), ...(pod?.metadata.annotations ?? {}) };
  return { namespace, name, sandbox, containers, made, annotations, pod };
}

/** kubectl's NotFound for pod NAME, with the pods of NAMES near it as a hint. */
export function podNotFound(name: string, names: string[]): KubectlError {
  return new KubectlError(`Error from server (NotFound): pods "${name}" not found`, nearHint(nearNames(name, names)));
}

/** Succeeded or Failed when every container of SANDBOX has ended (Failed when one ended non-zero), as the kubelet would phase a pod that restarts none. */
async function endedPhase(client: CriClient, sandbox: PodSandbox | undefined): Promise<'Succeeded' | 'Failed' | undefined> {
  if (!sandbox) return undefined;
  const containers = await client.listContainers({ podSandboxId: sandbox.id });
  if (containers.length === 0 || containers.some((c) => c.state !== 'CONTAINER_EXITED')) return undefined;
  const codes = await Promise.all(containers.map(async (c) => (await client.containerStatus(c.id)).status?.exitCode ?? 0));
  return codes.every((code) => code === 0) ? 'Succeeded' : 'Failed';
}

/**
 * The container to exec into or attach to, as kubectl picks it: from the
 * pod's spec when the node gave it, else from what the runtime made (see
 * containerOfRuntime); a default-container annotation naming no container
 * is an error for these commands. A picked container that is not running
 * is "not found", as the kubelet's streaming server says.
 */
export function pickContainer(found: RunningPod, wanted: string | undefined, warn: (message: string) => void): Container {
  const name = found.pod
    ? containerOfPod(found.pod, wanted, warn, 'refuse')
    : containerOfRuntime(found.made, found.annotations, wanted, found.name, warn, 'refuse');
  const container = found.containers.filter((c) => c.labels[KubeletLabels.containerName] === name).pop();
  if (!container) throw new KubectlError(`error: unable to upgrade connection: container not found ("${name}")`);
  return container;
}

/** The pod's containers as kubectl lists them: its containers, then its init containers marked so. */
export function allContainerNames(pod: Pod): string {
  return [...pod.spec.containers.map((c) => c.name), ...(pod.spec.initContainers ?? []).map((c) => `${c.name} (init)`)].join(', ');
}

/** What a container pick chooses from: every name, kubectl's listing of them, and the one to default to. */
interface Choices {
  names: string[];
  listed: string;
  first: string;
  /** Whether the pod has more than one container, so a default is worth saying. */
  several: boolean;
}

/**
 * The container kubectl picks (podcmd.FindOrDefaultContainerByName, and
 * logs' own copy of it) among CHOICES: WANTED, else the default-container
 * annotation, else the first container, saying so on stderr when the pod
 * has others; a name it does not have is kubectl's error. An annotation
 * naming no container is refused by exec and attach, and passed over with
 * a warning by logs (`missingDefault`).
 */
function choose(
  choices: Choices,
  annotated: string | undefined,
  wanted: string | undefined,
  pod: string,
  warn: (message: string) => void,
  missingDefault: 'refuse' | 'warn',
): string {
  const { names, listed } = choices;
  const name = wanted || (annotated && (names.includes(annotated) || missingDefault === 'refuse') ? annotated : undefined);
  if (annotated && !wanted && !name) warn(`Default container name "${annotated}" not found in pod ${pod}`);
  if (name) {
    if (!names.includes(name)) throw new KubectlError(`error: container ${name} is not valid for pod ${pod} out of: ${listed}`);
    return name;
  }
  if (choices.several) warn(`Defaulted container "${choices.first}" out of: ${listed}`);
  return choices.first;
}

/** The container kubectl picks from POD's spec (see choose). */
export function containerOfPod(
  pod: Pod,
  wanted: string | undefined,
  warn: (message: string) => void,
  missingDefault: 'refuse' | 'warn' = 'warn',
): string {
  const names = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])].map((c) => c.name);
  const choices = { names, listed: allContainerNames(pod), first: pod.spec.containers[0].name, several: names.length > 1 };
  return choose(choices, pod.metadata.annotations?.[DEFAULT_CONTAINER_ANNOTATION], wanted, pod.metadata.name ?? '', warn, missingDefault);
}

/**
 * The names of the containers the runtime made for a pod, oldest first, each
 * once: every one, the regular ones and the init ones (those knode marked so).
 */
export function runtimeContainerNames(made: Container[]): { all: string[]; regular: string[]; init: string[] } {
  const namesOf = (list: Container[]) => [
    ...new Set([...list].sort((a, b) => a.createdAt - b.createdAt).map((c) => c.labels[KubeletLabels.containerName])),
  ];
  const isInit = (c: Container) => c.annotations?.[InitContainerAnnotation] !== undefined;
  return { all: namesOf(made), regular: namesOf(made.filter((c) => !isInit(c))), init: namesOf(made.filter(isInit)) };
}

/**
 * The same pick without the pod's spec, as near as the runtime tells it:
 * MADE is every container the runtime made for the pod, ANNOTATIONS its
 * sandbox's. Listed as kubectl lists them: containers, then init
 * containers (those knode marked so). The default is the first regular
 * container; unmarked (another kubelet's), the first running one, else the
 * first made (the kubelet makes them in the spec's order).
 */
export function containerOfRuntime(
  made: Container[],
  annotations: Record<string, string>,
  wanted: string | undefined,
  pod: string,
  warn: (message: string) => void,
  missingDefault: 'refuse' | 'warn' = 'warn',
): string {
  const { all: names, regular, init } = runtimeContainerNames(made);
  const listed = [...regular, ...init.map((n) => `${n} (init)`)].join(', ');
  const running = runtimeContainerNames(made.filter((c) => c.state === 'CONTAINER_RUNNING')).all;
  const first = (regular.length < names.length ? regular[0] : undefined) ?? running[0] ?? names[0];
  const choices = { names, listed, first, several: names.length > 1 };
  return choose(choices, annotations[DEFAULT_CONTAINER_ANNOTATION], wanted, pod, warn, missingDefault);
}
