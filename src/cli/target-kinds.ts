// kubectl's names for the kinds whose pods knode's commands reach into:
// `deploy/web`, `jobs/pi`, `pod/web`… Kept apart from the commands so that
// the shell's completion reads them without loading a node's objects.

import { UserError } from '../util/user-error.js';

/** A kind these commands take, with the resource name kubectl's messages give it. */
export interface TargetKind {
  kind: string;
  resource: string;
}

export const POD_KIND: TargetKind = { kind: 'Pod', resource: 'pods' };

/**
 * Which commands take a kind: `pods` every command that reaches into a pod
 * (logs, exec…) as well as describe and delete; `describe` those two only (a
 * CronJob, a ConfigMap, a Secret, a claim: no pods of their own to pick).
 */
type Reach = 'pods' | 'describe';

/** Each kind's names as kubectl reads them: singular, plural, short name; plural.group and kind.group are added. */
const KINDS: { names: string[]; kind: TargetKind; reach: Reach }[] = [
  { names: ['pod', 'pods', 'po'], kind: POD_KIND, reach: 'pods' },
  { names: ['deployment', 'deployments', 'deploy'], kind: { kind: 'Deployment', resource: 'deployments.apps' }, reach: 'pods' },
  { names: ['replicaset', 'replicasets', 'rs'], kind: { kind: 'ReplicaSet', resource: 'replicasets.apps' }, reach: 'pods' },
  { names: ['statefulset', 'statefulsets', 'sts'], kind: { kind: 'StatefulSet', resource: 'statefulsets.apps' }, reach: 'pods' },
  { names: ['daemonset', 'daemonsets', 'ds'], kind: { kind: 'DaemonSet', resource: 'daemonsets.apps' }, reach: 'pods' },
  { names: ['job', 'jobs'], kind: { kind: 'Job', resource: 'jobs.batch' }, reach: 'pods' },
  { names: ['cronjob', 'cronjobs', 'cj'], kind: { kind: 'CronJob', resource: 'cronjobs.batch' }, reach: 'describe' },
  { names: ['configmap', 'configmaps', 'cm'], kind: { kind: 'ConfigMap', resource: 'configmaps' }, reach: 'describe' },
  { names: ['secret', 'secrets'], kind: { kind: 'Secret', resource: 'secrets' }, reach: 'describe' },
  {
    names: ['persistentvolumeclaim', 'persistentvolumeclaims', 'pvc'],
    kind: { kind: 'PersistentVolumeClaim', resource: 'persistentvolumeclaims' },
    reach: 'describe',
  },
];

const TYPES = new Map<string, (typeof KINDS)[number]>();
for (const entry of KINDS) {
  const { kind, resource } = entry.kind;
  const group = resource.split('.')[1];
  for (const name of [...entry.names, resource, group ? `${kind.toLowerCase()}.${group}` : kind.toLowerCase()]) TYPES.set(name, entry);
}

/** The kind a TYPE word names (any case) among those REACH takes, or undefined (in `NAMESPACE/NAME`, say). */
function kindFor(word: string, reach: Reach[]): TargetKind | undefined {
  const entry = TYPES.get(word.toLowerCase());
  return entry && reach.includes(entry.reach) ? entry.kind : undefined;
}

/** The kind a TYPE word names that has no pods to reach into (a CronJob, a ConfigMap…), or undefined. */
export function podlessKind(word: string): string | undefined {
  return kindFor(word, ['describe'])?.kind;
}

/** The kind whose pods a TYPE word names (any case), or undefined when it names none (in `NAMESPACE/NAME`, say). */
export function targetKind(word: string): TargetKind | undefined {
  return kindFor(word, ['pods']);
}

/** The `TYPE/` words the shell's completion offers before a name, as kubectl's does: the plurals. */
export const TYPE_WORDS = KINDS.filter((k) => k.reach === 'pods')
  .map((k) => k.names[1])
  .sort();

/** The kind `describe WORD` shows: those above, CronJobs, and the objects pods read (ConfigMaps, Secrets, claims). */
export function describedKind(word: string): string | undefined {
  return kindFor(word, ['pods', 'describe'])?.kind;
}

/** The kind `delete WORD` removes, and `get WORD` lists: the same as describe's. */
export const deletedKind = describedKind;

/** The resource kubectl's messages name a KIND by: the plural, with its group (`deployments.apps`, `configmaps`). */
export function pluralResource(kind: string): string {
  return TYPES.get(kind.toLowerCase())?.kind.resource ?? `${kind.toLowerCase()}s`;
}

/** What a command's pod argument names: a pod, or a workload whose pods it picks from. */
export interface Target {
  kind: string;
  resource: string;
  namespace: string;
  name: string;
}

/**
 * Reads a pod argument: `TYPE/NAME` as kubectl does (`pod/web`,
 * `deploy/web`, `job/pi`…; only when TYPES, else the prefix is a
 * namespace), `NAMESPACE/NAME` (knode's own form, for any prefix that is no
 * such type), or a pod's NAME. The namespace is the flag's, else default.
 */
export function parseTarget(arg: string, namespace: string | undefined, types = true): Target {
  const slash = arg.indexOf('/');
  if (slash < 0) return { ...POD_KIND, namespace: namespace ?? 'default', name: arg };
  const prefix = arg.slice(0, slash);
  const name = arg.slice(slash + 1);
  const type = types ? targetKind(prefix) : undefined;
  if (type) return { ...type, namespace: namespace ?? 'default', name };
  return { ...POD_KIND, namespace: prefix, name };
}

/** The objects `describe` WORDS name, as kubectl reads them: TYPE[,TYPE...] NAME..., or TYPE/NAME... each. */
export function describedObjects(words: string[]): { kind: string; name: string }[] {
  if (words.length === 0)
    throw new UserError('usage', 'You must specify the type of resource to describe', `as TYPE NAME or TYPE/NAME; ${DESCRIBED}`);
  return objectsNamed(words, describedKind, 'describe', DESCRIBED);
}

/** The objects `delete` WORDS name (at least one word), as kubectl reads them. */
export function deletedObjects(words: string[]): { kind: string; name: string }[] {
  return objectsNamed(words, deletedKind, 'delete', DELETED);
}

/** The objects `get TYPE/NAME...` names, as kubectl reads them: the kinds delete takes. */
export function listedObjects(words: string[]): { kind: string; name: string }[] {
  return objectsNamed(words, deletedKind, 'get', LISTED);
}

/** The kinds `delete TYPE[,TYPE...]` names, in order (its --all and -l); kubectl's error for a type it does not take. */
export function deletedKinds(word: string): string[] {
  return word.split(',').map((type) => kindOrRefusal(type, deletedKind, DELETED));
}

/** The kind KIND_OF reads in TYPE; kubectl's error when none, with TYPES as the hint. */
function kindOrRefusal(type: string, kindOf: (word: string) => string | undefined, types: string): string {
  const kind = kindOf(type);
  if (!kind) throw new UserError('usage', `the server doesn't have a resource type "${type}"`, types);
  return kind;
}

/** TYPE NAME... or TYPE/NAME... each, the types read by KIND_OF; kubectl's errors, with TYPES as the hint. */
function objectsNamed(
  words: string[],
  kindOf: (word: string) => string | undefined,
  verb: string,
  types: string,
): { kind: string; name: string }[] {
  const kindFor = (type: string) => kindOrRefusal(type, kindOf, types);
  if (!words[0].includes('/')) {
    // TYPE,TYPE...: each name of each type, type by type, as kubectl's builder visits them.
    const kinds = words[0].split(',').map(kindFor);
    // `describe TYPE` describes every object of the type; delete wants names.
    if (words.length === 1 && verb === 'describe') return kinds.map((kind) => ({ kind, name: '' }));
    if (words.length === 1)
      throw new UserError('usage', 'resource(s) were provided, but no name was specified', 'as TYPE NAME or TYPE/NAME');
    return kinds.flatMap((kind) => words.slice(1).map((name) => ({ kind, name })));
  }
  return words.map((word) => {
    const parts = word.split('/');
    if (parts.length === 1)
      throw new UserError(
        'usage',
        `there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'knode ${verb} resource/<resource_name>' instead of 'knode ${verb} resource resource/<resource_name>'`,
      );
    if (parts.length > 2) throw new UserError('usage', 'arguments in resource/name form may not have more than one slash');
    if (!parts[0] || !parts[1]) throw new UserError('usage', 'arguments in resource/name form must have a single resource and name');
    return { kind: kindFor(parts[0]), name: parts[1] };
  });
}

const DESCRIBED =
  'describe takes pod, deployment, replicaset, statefulset, daemonset, job, cronjob, configmap, secret or persistentvolumeclaim, or their plurals and short names';
const DELETED =
  'delete takes pod, deployment, replicaset, statefulset, daemonset, job, cronjob, configmap, secret or persistentvolumeclaim, or their plurals and short names';
/** What get lists, for its errors' hints. */
export const LISTED =
  'get shows pods, deployments, replicasets, statefulsets, daemonsets, jobs, cronjobs (or all), configmaps, secrets and persistentvolumeclaims, by kubectl’s names for them';
