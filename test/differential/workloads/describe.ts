// The describers as kubectl's: each Deployment, ReplicaSet, StatefulSet,
// DaemonSet, Job, ConfigMap, Secret and claim a scenario left in the cluster, printed by the real
// `kubectl describe` and by knode's describer (src/ui/describe-workload.ts)
// from the same objects, events left out (their ages are read at two
// moments). Any line apart is a difference.
import { deploymentReplicaSets } from '../../../src/cli/describe-workload.js';
import { rolloutHistory } from '../../../src/cli/rollout-history.js';
import { rolloutState } from '../../../src/controllers/rollout.js';
import type { Pod } from '../../../src/engine/api/v1.js';
import type {
  ConfigMap,
  DaemonSet,
  Deployment,
  Job,
  KubeObject,
  PersistentVolumeClaim,
  ReplicaSet,
  Secret,
  StatefulSet,
} from '../../../src/engine/api/workloads.js';
import { describeClaim } from '../../../src/ui/describe-claim.js';
import { describeConfigMap, describeSecret } from '../../../src/ui/describe-config.js';
import {
  describeDaemonSet,
  describeDeployment,
  describeJob,
  describeReplicaSet,
  describeStatefulSet,
} from '../../../src/ui/describe-workload.js';

type Kubectl = (...args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>;

/** knode's describe of OBJECT, with the namespace's OBJECTS (ReplicaSets, pods) beside it. */
function knodeDescribe(object: KubeObject, objects: KubeObject[]): string {
  const now = Date.now();
  const pods = objects.filter((o) => o.kind === 'Pod') as unknown as Pod[];
  switch (object.kind) {
    case 'Deployment':
      return describeDeployment(object as Deployment, deploymentReplicaSets(object as Deployment, objects), undefined, now);
    case 'ReplicaSet':
      return describeReplicaSet(object as ReplicaSet, pods, undefined, now);
    case 'StatefulSet':
      return describeStatefulSet(object as StatefulSet, pods, undefined, now);
    case 'DaemonSet':
      return describeDaemonSet(object as DaemonSet, pods, undefined, now);
    case 'ConfigMap':
      return describeConfigMap(object as ConfigMap, undefined, now);
    case 'Secret':
      return describeSecret(object as Secret);
    case 'PersistentVolumeClaim':
      return describeClaim(object as PersistentVolumeClaim, pods, undefined, now);
    default:
      return describeJob(object as Job, undefined, now);
  }
}

/**
 * How many Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs, ConfigMaps, Secrets and claims NAMESPACE holds, and where
 * knode's describe of each differs from kubectl's, as texts to print. The objects are listed before and
 * after kubectl describes them; if they changed meanwhile (a pod scaled down
 * and gone), it is tried again.
 */
export async function describeDifferences(
  kubectl: Kubectl,
  namespace: string,
): Promise<{ compared: number; rollouts: number; differences: string[] }> {
  const list = async () => {
    const listed = await kubectl(
      'get',
      'deployments,replicasets,statefulsets,daemonsets,jobs,configmaps,secrets,persistentvolumeclaims,pods,controllerrevisions',
      '-n',
      namespace,
      '-o',
      'json',
    );
    if (listed.code !== 0) throw new Error(`${namespace}: kubectl get: ${listed.stderr.trim()}`);
    return listed.stdout;
  };
  let out: string[] = [];
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = await list();
    const objects = (JSON.parse(before) as { items: KubeObject[] }).items;
    out = [];
    const workloads = objects.filter((o) => o.kind !== 'Pod' && o.kind !== 'ControllerRevision');
    for (const object of workloads) {
      const ref = `${object.kind.toLowerCase()}/${object.metadata.name}`;
      const theirs = await kubectl('describe', ref, '-n', namespace, '--show-events=false');
      if (theirs.code !== 0) out.push(`${namespace} ${ref}: kubectl describe: ${theirs.stderr.trim()}`);
      else if (knodeDescribe(object, objects) !== theirs.stdout)
        out.push(`${namespace} ${ref}\n--- kubectl\n${theirs.stdout}--- knode\n${knodeDescribe(object, objects)}`);
      if (ROLLED_OUT.has(object.kind)) out.push(...(await rolloutDifferences(kubectl, namespace, object, objects)));
    }
    const rollouts = workloads.filter((o) => ROLLED_OUT.has(o.kind)).length;
    if ((await list()) === before) return { compared: workloads.length, rollouts, differences: out };
    await new Promise((r) => setTimeout(r, 1000));
  }
  return { compared: 0, rollouts: 0, differences: [`${namespace}: the objects kept changing while kubectl described them`, ...out] };
}

/** The kinds kubectl rollout status and history take. */
const ROLLED_OUT = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);

/**
 * `kubectl rollout status --watch=false`, `rollout history` and `rollout
 * history --revision N` of each revision, beside knode's rolloutState and
 * rolloutHistory of the same objects (src/cli/rollout-history.ts).
 */
async function rolloutDifferences(kubectl: Kubectl, namespace: string, object: KubeObject, objects: KubeObject[]): Promise<string[]> {
  const ref = `${object.kind.toLowerCase()}/${object.metadata.name}`;
  const name = object.metadata.name!;
  const out: string[] = [];
  const apart = (what: string, theirs: { code: number; stdout: string; stderr: string }, mine: { code: number; text: string }) => {
    const text = theirs.code === 0 ? theirs.stdout : theirs.stderr;
    if (theirs.code !== mine.code || text !== mine.text)
      out.push(`${namespace} ${ref}: ${what}\n--- kubectl (exit ${theirs.code})\n${text}--- knode (exit ${mine.code})\n${mine.text}`);
  };
  const state = rolloutState(object);
  apart(
    'rollout status --watch=false',
    await kubectl('rollout', 'status', ref, '-n', namespace, '--watch=false'),
    state.state === 'failed' ? { code: 1, text: `error: ${state.message}\n` } : { code: 0, text: `${state.message}\n` },
  );
  apart('rollout history', await kubectl('rollout', 'history', ref, '-n', namespace), {
    code: 0,
    text: rolloutHistory(objects, object.kind, namespace, name, 0),
  });
  const revisions = [...rolloutHistory(objects, object.kind, namespace, name, 0).matchAll(/^(\d+) /gm)].map((m) => Number(m[1]));
  for (const revision of revisions)
    apart(`rollout history --revision ${revision}`, await kubectl('rollout', 'history', ref, '-n', namespace, `--revision=${revision}`), {
      code: 0,
      text: rolloutHistory(objects, object.kind, namespace, name, revision),
    });
  return out;
}
