// What `knode status` (and its alias `knode get`) is asked to show, read
// from its words as kubectl get reads them: nothing (every pod and
// workload), TYPE[,TYPE...] [NAME...] (`all` for pods and every workload
// kind), TYPE/NAME..., or, as status always took it, one pod's name. The
// types are pods, the workload kinds, ConfigMaps, Secrets and claims.
import type { Pod } from '../engine/api/v1.js';
import type { KubeObject } from '../engine/api/workloads.js';
import { podTable } from '../ui/pod-table.js';
import type { PodUsage } from '../ui/top-table.js';
import { workloadTables } from '../ui/workload-table.js';
import { compareStrings } from '../util/compare.js';
import { KubectlError, UserError } from '../util/user-error.js';
import { podNotFound } from './pod-target.js';
import { savedOfKind } from './offline-pods.js';
import { deletedKind, LISTED, listedObjects, pluralResource } from './target-kinds.js';

/** The kinds `get all` shows, in the order of kubectl's `all` category: pods, then the workload kinds group by group. */
const ALL = ['Pod', 'DaemonSet', 'Deployment', 'ReplicaSet', 'StatefulSet', 'CronJob', 'Job'];

/** The kind a TYPE word names for get (pods, workloads, ConfigMaps, Secrets, claims; the kinds delete takes), or undefined. */
const listedKind = deletedKind;

export interface GetRequest {
  /** The kinds shown, in kubectl's order; undefined: every pod and workload (status, or get all). */
  kinds?: string[];
  /** The names asked for, by kind; a kind missing here shows all of its objects. */
  names: Map<string, string[]>;
  /** `status NAME` or `status NAMESPACE/NAME`: the one pod, as status always took it. */
  pod?: string;
  /** kubectl's NotFound of each name asked for and not found, as wanted met them: printed after what was found. */
  notFound: string[];
}

/** kubectl's words for kinds get does not list here: alone, they are not a pod's name. */
const OTHER_TYPES = new Set([
  ...['services', 'service', 'svc', 'ingresses', 'ingress', 'ing', 'nodes', 'node', 'no'],
  ...['namespaces', 'namespace', 'ns', 'events', 'event', 'ev', 'endpoints', 'ep'],
  ...['serviceaccounts', 'serviceaccount', 'sa'],
]);

const EVENTS = new Set(['events', 'event', 'ev']);
const EVENTS_HINT = '`knode events` lists the node’s events, as `kubectl events` does';

/**
 * Reads get's WORDS (the arguments after the command) as kubectl get reads
 * them; a single word that names no type is a pod's name, as status has
 * always taken it. kubectl's errors for a type it does not know.
 */
export function getRequest(words: string[]): GetRequest {
  if (words.length === 0) return { names: new Map(), notFound: [] };
  // NAMESPACE/NAME, as status always took it: a prefix that names no type is a namespace, as the other commands read it.
  if (words.length === 1 && words[0].includes('/') && !listedKind(words[0].split('/')[0]))
    return { names: new Map(), pod: words[0], notFound: [] };
  if (words[0].includes('/')) {
    // TYPE/NAME...: kinds in the order they are first named, as kubectl prints them.
    const names = new Map<string, string[]>();
    for (const { kind, name } of listedObjects(words)) names.set(kind, [...(names.get(kind) ?? []), name]);
    return { kinds: [...names.keys()], names, notFound: [] };
  }
  const types = words[0].split(',');
  const kinds = types.flatMap((type) => (type.toLowerCase() === 'all' ? ALL : (listedKind(type) ?? [])));
  if (kinds.length === 0 && words.length === 1 && !OTHER_TYPES.has(words[0].toLowerCase()))
    return { names: new Map(), pod: words[0], notFound: [] };
  const unknown = types.find((type) => type.toLowerCase() !== 'all' && !listedKind(type));
  if (unknown && OTHER_TYPES.has(unknown.toLowerCase()))
    throw new UserError('usage', `knode get does not list ${unknown}`, EVENTS.has(unknown.toLowerCase()) ? EVENTS_HINT : LISTED);
  if (unknown) throw new UserError('usage', `the server doesn't have a resource type "${unknown}"`, LISTED);
  const ordered = [...new Set(kinds)];
  const names = words.length > 1 ? new Map(ordered.map((k) => [k, words.slice(1)])) : new Map<string, string[]>();
  return { kinds: ordered, names, notFound: [] };
}

/** Whether REQUEST shows objects of KIND. */
export function shows(request: GetRequest, kind: string): boolean {
  return !request.kinds || request.kinds.includes(kind);
}

/**
 * The objects of KIND in OBJECTS that REQUEST asks for, in the names' order
 * when named; kubectl's NotFound for each name not among them goes to
 * REQUEST.notFound, to be told after what was found, as kubectl does.
 */
export function wanted<T extends Pod | KubeObject>(request: GetRequest, kind: string, objects: T[]): T[] {
  if (!shows(request, kind)) return [];
  const names = request.names.get(kind);
  if (!names) return objects;
  return names.flatMap((name) => {
    const found = objects.find((o) => o.metadata.name === name);
    if (!found) request.notFound.push(`Error from server (NotFound): ${pluralResource(kind)} "${name}" not found`);
    return found ? [found] : [];
  });
}

/** kubectl's NotFound lines of REQUEST, as one error once what was found is printed; nothing when every name was found. */
export function throwNotFound(request: GetRequest): void {
  if (request.notFound.length > 0) throw new KubectlError(request.notFound.join('\n'));
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

/** The saved objects other than pods REQUEST asks for (every workload when no type), kind by kind, in NAMESPACE (every one when undefined). */
export function workloadsAsked(request: GetRequest, saved: KubeObject[], namespace: string | undefined): KubeObject[] {
  const kinds = (request.kinds ?? ALL).filter((k) => k !== 'Pod');
  // In the apiserver's order, as kubectl lists a type: by namespace, then name.
  const place = (o: KubeObject) => `${o.metadata.namespace ?? 'default'}/${o.metadata.name}`;
  const sorted = (objects: KubeObject[]) => objects.sort((a, b) => compareStrings(place(a), place(b)));
  return kinds.flatMap((kind) => wanted(request, kind, sorted(savedOfKind(saved, kind, namespace))));
}

/** How get's tables are printed: NOW for the ages; NAMESPACE's objects only, or every namespace's with a column when undefined. */
export interface TableOptions {
  now: number;
  namespace: string | undefined;
  wide?: boolean;
  usage?: Map<string, PodUsage>;
}

/**
 * The tables get prints of PODS (already chosen and sorted) and OBJECTS (as
 * workloadsAsked gives them), as kubectl get prints them: the pods first,
 * named `pod/NAME` when several types were asked for, then each other kind
 * in the order asked for. None for nothing to show.
 */
export function getTables(request: GetRequest, pods: Pod[], objects: KubeObject[], options: TableOptions): string[] {
  const { now, namespace, wide, usage } = options;
  const several = request.kinds !== undefined && request.kinds.length > 1;
  const podTables =
    pods.length > 0 ? [podTable(pods, now, { wide, withNamespace: namespace === undefined, prefixed: several, usage })] : [];
  return [...podTables, ...workloadTables(objects, now, namespace, request.kinds?.length !== 1, wide)];
}

/** What -o json|yaml prints of OBJECTS: a v1 List, or the object itself when REQUEST named one, as kubectl get prints them. */
export function documentOf(objects: (Pod | KubeObject)[], request: GetRequest): unknown {
  const named = [...request.names.values()].flat().length === 1 && objects.length === 1;
  return named ? objects[0] : { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items: objects };
}
