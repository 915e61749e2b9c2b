// kubectl's TYPE/NAME for the commands that reach into one pod (logs, exec,
// attach, port-forward): `deploy/web` means one pod of the Deployment web,
// picked as kubectl picks it (polymorphichelpers' GetFirstPod with the
// podutils orders), from the pods its selector matches.
import type { Pod, PodList } from '../engine/api/v1.js';
import { selectorMatches, type KubeObject, type LabelSelector } from '../engine/api/workloads.js';
import { compareStrings } from '../util/compare.js';
import type { NodeClient } from './node-client.js';
import { KubectlError } from '../util/user-error.js';
import { parseTarget, podlessKind, type Target } from './target-kinds.js';
import { savedObjects } from './offline-pods.js';

/**
 * The pod ARG names, for a command run against the node under ROOT_DIR: a
 * pod's name as it is; for a workload, its pod picked from the running
 * node's pods (NODE), or else from the pods the node saved last. `note` is
 * what kubectl logs says when it picks one of several; `pod` is the running
 * node's pod that was picked.
 */
export async function resolvePod(
  arg: string,
  namespace: string | undefined,
  rootDir: string,
  node: NodeClient | undefined,
  purpose: PickFor,
): Promise<{ namespace: string; name: string; note?: string; pod?: Pod }> {
  const { names, pods, ...rest } = await resolvePods(arg, namespace, rootDir, node, purpose, false);
  return { ...rest, name: names[0], ...(pods ? { pod: pods[0] } : {}) };
}

/**
 * As resolvePod, but with EVERY (kubectl logs --all-pods) each of a
 * workload's pods, in the order kubectl takes them, without the note;
 * `pods` are the running node's pods named, for a workload.
 */
export async function resolvePods(
  arg: string,
  namespace: string | undefined,
  rootDir: string,
  node: NodeClient | undefined,
  purpose: PickFor,
  every: boolean,
): Promise<{ namespace: string; names: string[]; note?: string; pods?: Pod[] }> {
  const podless = arg.includes('/') ? podlessKind(arg.slice(0, arg.indexOf('/'))) : undefined;
  if (podless) {
    // kubectl's words (polymorphichelpers): it has no selector to pick a pod by.
    const verb = purpose === 'logs' ? 'cannot get the logs from' : 'cannot attach to';
    throw new KubectlError(`error: ${verb} *v1.${podless}: selector for *v1.${podless} not implemented`);
  }
  const target = parseTarget(arg, namespace);
  if (target.kind === 'Pod') return { namespace: target.namespace, names: [target.name] };
  const objects = savedObjects(rootDir);
  const pods = node ? (await node.json<PodList>('/pods')).body.items : (objects.filter((o) => o.kind === 'Pod') as unknown as Pod[]);
  const { pod, count, sorted } = pickPod(target, objects, pods, purpose);
  const taken = every ? sorted : [pod];
  return {
    namespace: target.namespace,
    names: taken.map((p) => p.metadata.name!),
    ...(count > 1 && !every ? { note: `Found ${count} pods, using pod/${pod.metadata.name}` } : {}),
    // The running node's pods, so that the command need not ask for them again.
    ...(node ? { pods: taken } : {}),
  };
}

/** Which pod of several kubectl takes: logs prefer the longest running, exec, attach and port-forward the most active. */
export type PickFor = 'logs' | 'attach';

/**
 * The pod of TARGET a command reaches into, and how many pods the workload
 * has: the workload from OBJECTS (the node's saved objects), its pods from
 * PODS by its selector, all of them in kubectl's order as SORTED. Errors in
 * kubectl's words.
 */
export function pickPod(
  target: Target,
  objects: readonly KubeObject[],
  pods: readonly Pod[],
  purpose: PickFor,
): { pod: Pod; count: number; sorted: Pod[] } {
  const workload = objects.find(
    (o) => o.kind === target.kind && o.metadata.namespace === target.namespace && o.metadata.name === target.name,
  );
  if (!workload) throw new KubectlError(`Error from server (NotFound): ${target.resource} "${target.name}" not found`);
  const selector = (workload as KubeObject & { spec?: { selector?: LabelSelector } }).spec?.selector;
  if (!selector) throw new KubectlError(`error: cannot use ${target.resource} "${target.name}": it has no selector`);
  const matching = pods.filter((p) => p.metadata.namespace === target.namespace && selectorMatches(selector, p.metadata.labels));
  if (matching.length === 0) throw new KubectlError(`error: ${target.resource} "${target.name}" has no pods on this node`);
  // The apiserver lists by name; sort.Sort leaves ties in no set order, so that one will do.
  const byName = [...matching].sort((a, b) => compareStrings(a.metadata.name!, b.metadata.name!));
  const sorted = byName.sort(purpose === 'logs' ? byLogging : (a, b) => activePods(b, a));
  return { pod: sorted[0], count: matching.length, sorted };
}

const isReady = (p: Pod) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
const assigned = (p: Pod) => !!p.spec.nodeName;
const readyTime = (p: Pod) => p.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True')?.lastTransitionTime;
const maxRestarts = (p: Pod) => Math.max(0, ...(p.status?.containerStatuses ?? []).map((c) => c.restartCount ?? 0));
const sidecarRestarts = (p: Pod) => {
  const sidecars = new Set((p.spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  return Math.max(0, ...(p.status?.initContainerStatuses ?? []).filter((c) => sidecars.has(c.name)).map((c) => c.restartCount ?? 0));
};

/** The phases' ranks in each order; any other phase ranks 0, as a Go map's missing key. */
const LOGGING_PHASES = new Map([
  ['Running', 0],
  ['Unknown', 1],
  ['Pending', 2],
]);
const ACTIVE_PHASES = new Map([
  ['Pending', 0],
  ['Unknown', 1],
  ['Running', 2],
]);

/** A time's milliseconds, undefined for none (metav1.Time's zero). */
const at = (t: string | undefined) => (t ? Date.parse(t) : undefined);

/** podutils' afterOrZero: T1 is the zero time, or after T2 (when neither is zero). */
const afterOrZero = (t1: number | undefined, t2: number | undefined) => (t1 === undefined || t2 === undefined ? t1 === undefined : t1 > t2);

/** More restarts first, then more sidecar restarts; 0 when they tie. */
function byRestarts(a: Pod, b: Pod): number {
  if (maxRestarts(a) !== maxRestarts(b)) return maxRestarts(a) > maxRestarts(b) ? -1 : 1;
  if (sidecarRestarts(a) !== sidecarRestarts(b)) return sidecarRestarts(a) > sidecarRestarts(b) ? -1 : 1;
  return 0;
}

/**
 * The last steps both orders share: of two ready pods, by the time each
 * became ready; then more restarts first; then by creation. LATEST_FIRST puts
 * the later time (or a zero one) first, as ActivePods does; else the earlier,
 * as ByLogging does.
 */
function byTimesAndRestarts(a: Pod, b: Pod, latestFirst: boolean): number {
  const [x, y] = latestFirst ? [a, b] : [b, a];
  const rx = at(readyTime(x));
  const ry = at(readyTime(y));
  if (isReady(a) && isReady(b) && rx !== ry) return afterOrZero(rx, ry) ? -1 : 1;
  const restarts = byRestarts(a, b);
  if (restarts !== 0) return restarts;
  const cx = at(x.metadata.creationTimestamp);
  const cy = at(y.metadata.creationTimestamp);
  if (cx !== cy) return afterOrZero(cx, cy) ? -1 : 1;
  return 0;
}

/** podutils.ByLogging: assigned, Running, ready, ready longest, most restarted, oldest, first. */
export function byLogging(a: Pod, b: Pod): number {
  if (a.spec.nodeName !== b.spec.nodeName && (!assigned(a) || !assigned(b))) return assigned(a) ? -1 : 1;
  const phase = (p: Pod) => LOGGING_PHASES.get(p.status?.phase ?? '') ?? 0;
  if (phase(a) !== phase(b)) return phase(a) - phase(b);
  if (isReady(a) !== isReady(b)) return isReady(a) ? -1 : 1;
  return byTimesAndRestarts(a, b, false);
}

/** podutils.ActivePods: the least active first (unassigned, Pending, not ready, deleting, …); kubectl takes the last. */
export function activePods(a: Pod, b: Pod): number {
  if (a.spec.nodeName !== b.spec.nodeName && (!assigned(a) || !assigned(b))) return assigned(a) ? 1 : -1;
  const phase = (p: Pod) => ACTIVE_PHASES.get(p.status?.phase ?? '') ?? 0;
  if (phase(a) !== phase(b)) return phase(a) - phase(b);
  if (isReady(a) !== isReady(b)) return isReady(a) ? 1 : -1;
  const da = at(a.metadata.deletionTimestamp);
  const db = at(b.metadata.deletionTimestamp);
  if ((da !== undefined) !== (db !== undefined)) return da !== undefined ? -1 : 1;
  if (da !== undefined && db !== undefined && da !== db) return da < db ? -1 : 1;
  return byTimesAndRestarts(a, b, true);
}
