// kubectl's names for the kinds whose pods knode's commands reach into:
// `deploy/web`, `jobs/pi`, `pod/web`… Kept apart from the commands so that
// the shell's completion reads them without loading a node's objects.

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
