// What the apiserver does to an object before it is first stored: the
// scheme's defaults (pkg/apis/{apps,batch}/v1/defaults.go), the strategies'
// PrepareForCreate (a Job's generated selector), and a pod's validation.
import { isDeepStrictEqual } from 'node:util';
import { ClusterError } from '../engine/cluster/client.js';
import type { Pod } from '../engine/api/v1.js';
import type {
  CronJob,
  DaemonSet,
  Deployment,
  Job,
  KubeObject,
  PersistentVolumeClaim,
  ReplicaSet,
  StatefulSet,
} from '../engine/api/workloads.js';
import { applyPodSpecDefaults } from '../engine/config/static-pod.js';
import { validatePod } from '../engine/config/validation.js';

/** Defaults and prepares OBJECT (with its uid set) for its first write; throws 422 for a pod that does not validate. */
export function prepareForCreate(o: KubeObject): void {
  if (o.kind === 'Pod') return preparePod(o as unknown as Pod);
  applyDefaults(o);
  if (o.kind === 'Job' && !(o as Job).spec.manualSelector) {
    generateSelector(o as Job);
    // The defaults run again when the apiserver reads the Job back from storage: a Job without
    // labels of its own takes its template's, the generated ones now among them.
    defaultJob(o as Job);
  }
  if (o.kind === 'DaemonSet') setTemplateGeneration(o, 1);
}

/** The strategies' PrepareForUpdate, after the defaults: what moves with a changed object (OLD is as stored). */
export function prepareForUpdate(o: KubeObject, old: KubeObject): void {
  if (o.kind === 'DaemonSet') {
    const generation = Number(old.metadata.annotations?.[TEMPLATE_GENERATION] ?? 1) || 1;
    const changed = !isDeepStrictEqual((o as DaemonSet).spec.template, (old as DaemonSet).spec.template);
    setTemplateGeneration(o, changed ? generation + 1 : generation);
  }
}

/** The scheme's defaults, applied on every write (create and update), as the apiserver's decoder applies them. */
export function applyDefaults(o: KubeObject): void {
  switch (o.kind) {
    case 'Deployment':
      return defaultDeployment(o as Deployment);
    case 'ReplicaSet':
      (o as ReplicaSet).spec.replicas ??= 1;
      return defaultTemplate(o as ReplicaSet);
    case 'Job':
      return defaultJob(o as Job);
    case 'CronJob':
      return defaultCronJob(o as CronJob);
    // StatefulSet, DaemonSet and their claims
    case 'StatefulSet':
      return defaultStatefulSet(o as StatefulSet);
    case 'DaemonSet':
      return defaultDaemonSet(o as DaemonSet);
    case 'PersistentVolumeClaim':
      (o as PersistentVolumeClaim).spec.volumeMode ??= 'Filesystem';
      return;
  }
}

function preparePod(pod: Pod): void {
  const problems = validatePod(pod, { nameSuffixLength: 0 });
  if (problems.length > 0)
    throw new ClusterError(
      422,
      'Invalid',
      `Pod ${JSON.stringify(pod.metadata.name)} is invalid: ${problems.map((p) => `${p.field}: ${p.message}`).join(', ')}`,
    );
  applyPodSpecDefaults(pod);
  pod.spec.serviceAccountName ??= 'default';
  pod.status = { phase: 'Pending', ...pod.status };
}

function defaultTemplate(o: { spec: { template: { spec: Pod['spec'] } } }): void {
  const pod = { metadata: {}, spec: o.spec.template.spec } as Pod;
  applyPodSpecDefaults(pod);
}

function defaultDeployment(d: Deployment): void {
  const spec = d.spec;
  spec.replicas ??= 1;
  spec.strategy ??= {};
  spec.strategy.type ??= 'RollingUpdate';
  if (spec.strategy.type === 'RollingUpdate') {
    spec.strategy.rollingUpdate ??= {};
    spec.strategy.rollingUpdate.maxUnavailable ??= '25%';
    spec.strategy.rollingUpdate.maxSurge ??= '25%';
  }
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  defaultTemplate(d);
}

function defaultJob(job: Job): void {
  const spec = job.spec;
  if ((spec.completions === undefined || spec.completions === null) && spec.parallelism === undefined) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  spec.parallelism ??= 1;
  spec.backoffLimit ??= 6;
  spec.completionMode ??= 'NonIndexed';
  spec.suspend ??= false;
  spec.manualSelector ??= false;
  for (const rule of spec.podFailurePolicy?.rules ?? []) for (const pattern of rule.onPodConditions ?? []) pattern.status ??= 'True';
  const templateLabels = spec.template.metadata?.labels;
  if (templateLabels && Object.keys(job.metadata.labels ?? {}).length === 0) job.metadata.labels = { ...templateLabels };
  const pod = { metadata: {}, spec: spec.template.spec } as Pod;
  applyPodSpecDefaults(pod);
}

function defaultCronJob(cj: CronJob): void {
  const spec = cj.spec;
  spec.concurrencyPolicy ??= 'Allow';
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  // The job template's pod spec is defaulted as a pod's; its JobSpec is not (it is no Job yet).
  const pod = { metadata: {}, spec: spec.jobTemplate.spec.template.spec } as Pod;
  applyPodSpecDefaults(pod);
}

/** The job strategy's generateSelector: the pods of this Job, and only them, by its uid. */
function generateSelector(job: Job): void {
  const labels = ((job.spec.template.metadata ??= {}).labels ??= {});
  for (const key of ['job-name', 'batch.kubernetes.io/job-name']) labels[key] ??= job.metadata.name!;
  for (const key of ['controller-uid', 'batch.kubernetes.io/controller-uid']) labels[key] ??= job.metadata.uid!;
  job.spec.selector = { matchLabels: { 'batch.kubernetes.io/controller-uid': job.metadata.uid! } };
}

// --- StatefulSet, DaemonSet (pkg/apis/apps/v1/defaults.go, the daemonset strategy's templateGeneration) ---

/** The v1 spelling of a DaemonSet's templateGeneration, which its pods carry as pod-template-generation. */
export const TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation';

function setTemplateGeneration(o: KubeObject, generation: number): void {
  o.metadata.annotations = { ...o.metadata.annotations, [TEMPLATE_GENERATION]: String(generation) };
}

function defaultStatefulSet(set: StatefulSet): void {
  const spec = set.spec;
  spec.replicas ??= 1;
  spec.podManagementPolicy ??= 'OrderedReady';
  spec.updateStrategy ??= {};
  spec.updateStrategy.type ??= 'RollingUpdate';
  if (spec.updateStrategy.type === 'RollingUpdate') {
    spec.updateStrategy.rollingUpdate ??= {};
    spec.updateStrategy.rollingUpdate.partition ??= 0;
  }
  spec.revisionHistoryLimit ??= 10;
  spec.persistentVolumeClaimRetentionPolicy ??= {};
  spec.persistentVolumeClaimRetentionPolicy.whenDeleted ??= 'Retain';
  spec.persistentVolumeClaimRetentionPolicy.whenScaled ??= 'Retain';
  for (const claim of spec.volumeClaimTemplates ?? []) claim.spec.volumeMode ??= 'Filesystem';
  defaultTemplate(set);
}

function defaultDaemonSet(ds: DaemonSet): void {
  const spec = ds.spec;
  spec.updateStrategy ??= {};
  spec.updateStrategy.type ??= 'RollingUpdate';
  if (spec.updateStrategy.type === 'RollingUpdate') {
    spec.updateStrategy.rollingUpdate ??= {};
    spec.updateStrategy.rollingUpdate.maxUnavailable ??= 1;
    spec.updateStrategy.rollingUpdate.maxSurge ??= 0;
  }
  spec.revisionHistoryLimit ??= 10;
  defaultTemplate(ds);
}
