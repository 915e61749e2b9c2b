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

/** Each kind's names as kubectl reads them: singular, plural, short name; plural.group and kind.group are added. */
const NAMES: [string[], TargetKind][] = [
  [['pod', 'pods', 'po'], POD_KIND],
  [['deployment', 'deployments', 'deploy'], { kind: 'Deployment', resource: 'deployments.apps' }],
  [['replicaset', 'replicasets', 'rs'], { kind: 'ReplicaSet', resource: 'replicasets.apps' }],
  [['statefulset', 'statefulsets', 'sts'], { kind: 'StatefulSet', resource: 'statefulsets.apps' }],
  [['daemonset', 'daemonsets', 'ds'], { kind: 'DaemonSet', resource: 'daemonsets.apps' }],
  [['job', 'jobs'], { kind: 'Job', resource: 'jobs.batch' }],
];

const TYPES = new Map<string, TargetKind>();
for (const [names, kind] of NAMES) {
  for (const name of names) TYPES.set(name, kind);
  TYPES.set(kind.resource, kind);
  TYPES.set(`${kind.kind.toLowerCase()}.${kind.resource.split('.')[1] ?? ''}`.replace(/\.$/, ''), kind);
}

/** The kind a TYPE word names (any case), or undefined when it names none (in `NAMESPACE/NAME`, say). */
export function targetKind(word: string): TargetKind | undefined {
  return TYPES.get(word.toLowerCase());
}

/** The `TYPE/` words the shell's completion offers before a name, as kubectl's does: the plurals. */
export const TYPE_WORDS = NAMES.map(([names]) => names[1]).sort();

/** The kind `describe WORD` shows: those above, and CronJobs, which have no pods of their own to pick. */
export function describedKind(word: string): string | undefined {
  return ['cronjob', 'cronjobs', 'cj', 'cronjobs.batch', 'cronjob.batch'].includes(word.toLowerCase()) ? 'CronJob' : targetKind(word)?.kind;
}

/** The kind `delete WORD` removes: those above, CronJobs, and the objects pods read (ConfigMaps, Secrets, claims). */
export function deletedKind(word: string): string | undefined {
  const lower = word.toLowerCase();
  const kind = describedKind(lower);
  if (kind) return kind;
  for (const [names, other] of [
    [['configmap', 'configmaps', 'cm'], 'ConfigMap'],
    [['secret', 'secrets'], 'Secret'],
    [['persistentvolumeclaim', 'persistentvolumeclaims', 'pvc'], 'PersistentVolumeClaim'],
  ] as const)
    if ((names as readonly string[]).includes(lower)) return other;
  return undefined;
}

/** The objects `describe` WORDS name, as kubectl reads them: TYPE NAME..., or TYPE/NAME... each. */
export function describedObjects(words: string[]): { kind: string; name: string }[] {
  if (words.length === 0)
    throw new UserError('usage', 'You must specify the type of resource to describe', `as TYPE NAME or TYPE/NAME; ${DESCRIBED}`);
  return objectsNamed(words, describedKind, 'describe', DESCRIBED);
}

/** The objects `delete` WORDS name (at least one word), as kubectl reads them. */
export function deletedObjects(words: string[]): { kind: string; name: string }[] {
  return objectsNamed(words, deletedKind, 'delete', DELETED);
}

/** TYPE NAME... or TYPE/NAME... each, the types read by KIND_OF; kubectl's errors, with TYPES as the hint. */
function objectsNamed(
  words: string[],
  kindOf: (word: string) => string | undefined,
  verb: string,
  types: string,
): { kind: string; name: string }[] {
  const kindFor = (type: string) => {
    const kind = kindOf(type);
    if (!kind) throw new UserError('usage', `the server doesn't have a resource type "${type}"`, types);
    return kind;
  };
  if (!words[0].includes('/')) {
    const kind = kindFor(words[0]);
    if (words.length === 1)
      throw new UserError('usage', 'resource(s) were provided, but no name was specified', 'as TYPE NAME or TYPE/NAME');
    return words.slice(1).map((name) => ({ kind, name }));
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

const DESCRIBED = 'describe takes pod, deployment, replicaset, statefulset, daemonset, job or cronjob, or their plurals and short names';
const DELETED =
  'delete takes pod, deployment, replicaset, statefulset, daemonset, job, cronjob, configmap, secret or persistentvolumeclaim, or their plurals and short names';
