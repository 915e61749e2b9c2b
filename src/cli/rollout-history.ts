// `knode rollout history`: kubectl's history viewers over the objects the
// local controllers save. A Deployment's revisions are its ReplicaSets'
// `deployment.kubernetes.io/revision` annotations; a StatefulSet's and a
// DaemonSet's are their ControllerRevisions.
import { controllerOf, type ControllerRevision, type KubeObject, type PodTemplateSpec, type ReplicaSet } from '../engine/api/workloads.js';
import { podTemplateText } from '../ui/describe-workload.js';
import { TabWriter } from '../util/tabwriter.js';
import { KubectlError } from '../util/user-error.js';
import { groupKindOf, resourceOf } from './stop-pods.js';
import { pluralResource } from './target-kinds.js';

const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
const CHANGE_CAUSE_ANNOTATION = 'kubernetes.io/change-cause';

/** One revision: its number, the template it ran, and the change cause its object carries. */
interface Revision {
  revision: number;
  template: PodTemplateSpec;
  changeCause?: string;
}

/** The revisions of OWNER among SAVED, by number. */
function revisionsOf(owner: KubeObject, saved: KubeObject[]): Revision[] {
  const owned = saved.filter(
    (o) => o.metadata.namespace === owner.metadata.namespace && controllerOf(o.metadata)?.uid === owner.metadata.uid,
  );
  const revisions: Revision[] =
    owner.kind === 'Deployment'
      ? (owned.filter((o) => o.kind === 'ReplicaSet') as ReplicaSet[]).flatMap((rs) => {
          const revision = Number(rs.metadata.annotations?.[REVISION_ANNOTATION]);
          // kubectl passes over a ReplicaSet whose revision does not parse (with a warning in its log).
          if (!Number.isInteger(revision)) return [];
          return [{ revision, template: rs.spec.template, changeCause: rs.metadata.annotations?.[CHANGE_CAUSE_ANNOTATION] }];
        })
      : (owned.filter((o) => o.kind === 'ControllerRevision') as ControllerRevision[]).map((r) => ({
          revision: r.revision,
          template: r.data.spec.template,
          changeCause: r.metadata.annotations?.[CHANGE_CAUSE_ANNOTATION],
        }));
  return revisions.sort((a, b) => a.revision - b.revision);
}

/**
 * What `kubectl rollout history KIND/NAME [--revision N]` prints for the
 * object among SAVED: its name, then the table of revisions and change
 * causes, or the template of revision N. kubectl's errors.
 */
export function rolloutHistory(saved: KubeObject[], kind: string, namespace: string, name: string, revision: number): string {
  if (!['Deployment', 'DaemonSet', 'StatefulSet'].includes(kind))
    throw new KubectlError(`error: no history viewer has been implemented for "${groupKindOf(kind)}"`);
  const owner = saved.find((o) => o.kind === kind && (o.metadata.namespace ?? 'default') === namespace && o.metadata.name === name);
  if (!owner) throw new KubectlError(`Error from server (NotFound): ${pluralResource(kind)} "${name}" not found`);
  const revisions = revisionsOf(owner, saved);
  const title = `${resourceOf(kind)}/${name}`;
  if (revisions.length === 0) return `${title} \nNo rollout history found.\n`;
  if (revision > 0) {
    const wanted = revisions.find((r) => r.revision === revision);
    if (!wanted) throw new KubectlError('error: unable to find the specified revision');
    return `${title} with revision #${revision}\n${podTemplateText(wanted.template)}\n`;
  }
  const rows = revisions.map((r) => `${r.revision}\t${r.changeCause || '<none>'}\n`).join('');
  return `${title} \n${new TabWriter({ minWidth: 0, padding: 2 }).format(`REVISION\tCHANGE-CAUSE\n${rows}`)}\n`;
}
