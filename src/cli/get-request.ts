// What `knode status` (and its alias `knode get`) is asked to show, read
// from its words as kubectl get reads them: nothing (every pod and
// workload), TYPE[,TYPE...] [NAME...] (`all` for pods and every workload
// kind), TYPE/NAME..., or, as status always took it, one pod's name.
import type { Pod } from '../engine/api/v1.js';
import type { KubeObject } from '../engine/api/workloads.js';
import { KubectlError, UserError } from '../util/user-error.js';
import { podNotFound } from './pod-target.js';
import { resourceOf } from './stop-pods.js';
import { describedKind, describedObjects } from './target-kinds.js';

/** The kinds `get all` shows, as kubectl's `all` category: pods, then the workload kinds. */
const ALL = ['Pod', 'Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'];

export interface GetRequest {
  /** The kinds shown, in kubectl's order; undefined: every pod and workload (status, or get all). */
  kinds?: string[];
  /** The names asked for, by kind; a kind missing here shows all of its objects. */
  names: Map<string, string[]>;
  /** `status NAME` or `status NAMESPACE/NAME`: the one pod, as status always took it. */
  pod?: string;
}

/** kubectl's words for kinds get does not list here: alone, they are not a pod's name. */
const OTHER_TYPES = new Set(
  ['services', 'service', 'svc', 'configmaps', 'configmap', 'cm', 'secrets', 'secret', 'persistentvolumeclaims', 'pvc']
    .concat(['ingresses', 'ingress', 'ing', 'nodes', 'node', 'no', 'namespaces', 'namespace', 'ns', 'events', 'event', 'ev'])
    .concat(['endpoints', 'ep', 'serviceaccounts', 'serviceaccount', 'sa']),
);

const GET_TYPES =
  'get shows pods, deployments, replicasets, statefulsets, daemonsets, jobs and cronjobs (or all), by kubectl’s names for them';

export function getRequest(words: string[]): GetRequest {
  if (words.length === 0) return { names: new Map() };
  // NAMESPACE/NAME, as status always took it: a prefix that names no type is a namespace, as the other commands read it.
  if (words.length === 1 && words[0].includes('/') && !describedKind(words[0].split('/')[0])) return { names: new Map(), pod: words[0] };
  if (words[0].includes('/')) {
    const names = new Map<string, string[]>();
    for (const { kind, name } of describedObjects(words)) names.set(kind, [...(names.get(kind) ?? []), name]);
    return { kinds: ALL.filter((k) => names.has(k)), names };
  }
  const types = words[0].split(',');
  const kinds = types.flatMap((type) => (type.toLowerCase() === 'all' ? ALL : (describedKind(type) ?? [])));
  if (kinds.length === 0 && words.length === 1 && !OTHER_TYPES.has(words[0].toLowerCase())) return { names: new Map(), pod: words[0] };
  const unknown = types.find((type) => type.toLowerCase() !== 'all' && !describedKind(type));
  if (unknown && OTHER_TYPES.has(unknown.toLowerCase())) throw new UserError('usage', `knode get does not list ${unknown}`, GET_TYPES);
  if (unknown) throw new UserError('usage', `the server doesn't have a resource type "${unknown}"`, GET_TYPES);
  const ordered = [...new Set(kinds)];
  const names = words.length > 1 ? new Map(ordered.map((k) => [k, words.slice(1)])) : new Map<string, string[]>();
  return { kinds: ordered, names };
}

/** Whether REQUEST shows objects of KIND. */
export function shows(request: GetRequest, kind: string): boolean {
  return !request.kinds || request.kinds.includes(kind);
}

/**
 * The objects of KIND in OBJECTS that REQUEST asks for, in the names' order
 * when named; kubectl's NotFound for a name not among them (its resource is
 * the plural kubectl names).
 */
export function wanted<T extends Pod | KubeObject>(request: GetRequest, kind: string, objects: T[]): T[] {
  if (!shows(request, kind)) return [];
  const names = request.names.get(kind);
  if (!names) return objects;
  return names.map((name) => {
    const found = objects.find((o) => o.metadata.name === name);
    if (!found) throw new KubectlError(`Error from server (NotFound): ${pluralOf(kind)} "${name}" not found`);
    return found;
  });
}

/** `status NAME` or `status NAMESPACE/NAME`: the pods of that name; kubectl's NotFound, with the names near it, for none. */
export function podNamed(pods: Pod[], name: string): Pod[] {
  const [namespace, podName] = name.includes('/') ? name.split('/', 2) : [undefined, name];
  const found = pods.filter((p) => p.metadata.name === podName && (!namespace || p.metadata.namespace === namespace));
  if (found.length === 0)
    throw podNotFound(
      podName,
      pods.map((p) => p.metadata.name!),
    );
  return found;
}

/** The saved workloads REQUEST asks for, kind by kind, in NAMESPACE (every one when undefined). */
export function workloadsAsked(request: GetRequest, saved: KubeObject[], namespace: string | undefined): KubeObject[] {
  const inNamespace = saved.filter((o) => o.kind !== 'Pod' && (namespace === undefined || o.metadata.namespace === namespace));
  const kinds = request.kinds?.filter((k) => k !== 'Pod') ?? [...new Set(inNamespace.map((o) => o.kind))];
  return kinds.flatMap((kind) =>
    wanted(
      request,
      kind,
      inNamespace.filter((o) => o.kind === kind),
    ),
  );
}

/** What -o json|yaml prints of OBJECTS: a v1 List, or the object itself when REQUEST named one, as kubectl get prints them. */
export function documentOf(objects: (Pod | KubeObject)[], request: GetRequest): unknown {
  const named = [...request.names.values()].flat().length === 1 && objects.length === 1;
  return named ? objects[0] : { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items: objects };
}

/** The resource kubectl's NotFound names: the plural, with its group (`deployments.apps`). */
function pluralOf(kind: string): string {
  const [singular, group] = resourceOf(kind).split('.');
  return `${singular}s${group ? `.${group}` : ''}`;
}
