import type { Event } from '../engine/api/cluster.js';
import { humanDuration } from '../engine/api/printers.js';
import type { Pod } from '../engine/api/v1.js';
import {
  controllerOf,
  type CronJob,
  type DaemonSet,
  type Deployment,
  type Job,
  type KubeObject,
  type LabelSelector,
  type PodTemplateSpec,
  type ReplicaSet,
  type StatefulSet,
  type WorkloadCondition,
} from '../engine/api/workloads.js';
import { canonicalQuantity } from '../engine/api/quantity.js';
import { compareStrings } from '../util/compare.js';
import {
  annotationsMultiline,
  finishDescription,
  describeVolumes,
  labelsMultiline,
  PrefixWriter,
  rfc1123z,
  tolerationsMultiline,
} from './describe-parts.js';
import { describeContainers } from './describe-pod.js';

// `kubectl describe` of the workloads the local controllers run, laid out as
// kubectl's describers (k8s.io/kubectl/pkg/describe) lay them out, written
// anew. `events` undefined leaves the Events section out (--show-events=false,
// or no node running to keep them).

/** A label selector as labels.Selector.String() prints it: requirements by key, matchLabels as key=value. */
export function selectorString(selector: LabelSelector | undefined): string {
  const requirements: [string, string][] = [];
  for (const [key, value] of Object.entries(selector?.matchLabels ?? {})) requirements.push([key, `${key}=${value}`]);
  for (const r of selector?.matchExpressions ?? []) {
    const values = [...(r.values ?? [])].sort().join(',');
    const text =
      r.operator === 'In'
        ? `${r.key} in (${values})`
        : r.operator === 'NotIn'
          ? `${r.key} notin (${values})`
          : r.operator === 'Exists'
            ? r.key
            : `!${r.key}`;
    requirements.push([r.key, text]);
  }
  // sort.Sort(ByKey): Go's sort is not stable, but a key is in matchLabels once and rarely twice in all.
  return requirements
    .sort(([a], [b]) => compareStrings(a, b))
    .map(([, text]) => text)
    .join(',');
}

/**
 * kubectl rollout history --revision's printTemplate: DescribePodTemplate
 * through a PrefixWriter with no tabwriter under it, so its tabs stay tabs.
 */
export function podTemplateText(template: PodTemplateSpec): string {
  const w = new PrefixWriter();
  describePodTemplate(w, template);
  return w.chunks.join('');
}

/** DescribePodTemplate: the template's labels, annotations, containers, volumes, node selectors and tolerations. */
function describePodTemplate(w: PrefixWriter, template: PodTemplateSpec): void {
  w.write(0, 'Pod Template:\n');
  const { metadata = {}, spec } = template;
  labelsMultiline(w, '  Labels', metadata.labels);
  if (Object.keys(metadata.annotations ?? {}).length > 0) annotationsMultiline(w, '  Annotations', metadata.annotations);
  if (spec.serviceAccountName) w.write(1, `Service Account:\t${spec.serviceAccountName}\n`);
  // No pod to resolve a field reference in: kubectl prints those values empty.
  const pod = { metadata: {}, spec } as Pod;
  if (spec.initContainers?.length) describeContainers(w, 'Init Containers', spec.initContainers, [], pod, '  ');
  describeContainers(w, 'Containers', spec.containers, [], pod, '  ');
  describeVolumes(w, spec.volumes, '  ');
  if (spec.priorityClassName) w.write(1, `Priority Class Name:\t${spec.priorityClassName}\n`);
  labelsMultiline(w, '  Node-Selectors', spec.nodeSelector);
  tolerationsMultiline(w, '  Tolerations', spec.tolerations);
}

function describeHeader(w: PrefixWriter, o: KubeObject): void {
  w.write(0, `Name:\t${o.metadata.name ?? ''}\n`);
  w.write(0, `Namespace:\t${o.metadata.namespace ?? 'default'}\n`);
}

function describeConditions(w: PrefixWriter, conditions: WorkloadCondition[] | undefined): void {
  if (!conditions?.length) return;
  w.write(0, 'Conditions:\n  Type\tStatus\tReason\n');
  w.write(1, '----\t------\t------\n');
  for (const c of conditions) w.write(1, `${c.type} \t${c.status}\t${c.reason ?? ''}\n`);
}

/** printController: the controller's Kind/name, when there is one. */
function describeController(w: PrefixWriter, o: KubeObject): void {
  const owner = controllerOf(o.metadata);
  if (owner) w.write(0, `Controlled By:\t${owner.kind}/${owner.name}\n`);
}

/** `kubectl describe deployment`: REPLICA_SETS are the Deployment's own, the newest template's one being NEW. */
export function describeDeployment(
  d: Deployment,
  replicaSets: { old: ReplicaSet[]; new?: ReplicaSet },
  events: Event[] | undefined,
  now: number,
): string {
  const w = new PrefixWriter();
  describeHeader(w, d);
  w.write(0, `CreationTimestamp:\t${rfc1123z(d.metadata.creationTimestamp)}\n`);
  labelsMultiline(w, 'Labels', d.metadata.labels);
  annotationsMultiline(w, 'Annotations', d.metadata.annotations);
  w.write(0, `Selector:\t${selectorString(d.spec.selector)}\n`);
  const s = d.status ?? {};
  w.write(
    0,
    `Replicas:\t${d.spec.replicas ?? 1} desired | ${s.updatedReplicas ?? 0} updated | ${s.replicas ?? 0} total | ${s.availableReplicas ?? 0} available | ${s.unavailableReplicas ?? 0} unavailable\n`,
  );
  w.write(0, `StrategyType:\t${d.spec.strategy?.type ?? ''}\n`);
  w.write(0, `MinReadySeconds:\t${d.spec.minReadySeconds ?? 0}\n`);
  const rolling = d.spec.strategy?.rollingUpdate;
  if (rolling) w.write(0, `RollingUpdateStrategy:\t${rolling.maxUnavailable ?? 0} max unavailable, ${rolling.maxSurge ?? 0} max surge\n`);
  describePodTemplate(w, d.spec.template);
  describeConditions(w, d.status?.conditions);
  if (replicaSets.old.length > 0 || replicaSets.new) {
    const created = (list: ReplicaSet[]) =>
      list.map((rs) => `${rs.metadata.name} (${rs.status?.replicas ?? 0}/${rs.spec.replicas ?? 1} replicas created)`).join(', ') ||
      '<none>';
    w.write(0, `OldReplicaSets:\t${created(replicaSets.old)}\n`);
    w.write(0, `NewReplicaSet:\t${created(replicaSets.new ? [replicaSets.new] : [])}\n`);
  }
  return finishDescription(w, events, now);
}

/** How many of a controller's own pods are in each phase, as kubectl's getPodStatusForController counts them. */
export function podPhases(owner: KubeObject, pods: Pod[]): { running: number; waiting: number; succeeded: number; failed: number } {
  const counts = { running: 0, waiting: 0, succeeded: 0, failed: 0 };
  for (const p of pods) {
    if (controllerOf(p.metadata)?.uid !== owner.metadata.uid) continue;
    const phase = p.status?.phase;
    if (phase === 'Running') counts.running++;
    else if (phase === 'Pending') counts.waiting++;
    else if (phase === 'Succeeded') counts.succeeded++;
    else if (phase === 'Failed') counts.failed++;
  }
  return counts;
}

/** `kubectl describe replicaset`, with PODS those its selector matches (counted when the ReplicaSet controls them). */
export function describeReplicaSet(rs: ReplicaSet, pods: Pod[], events: Event[] | undefined, now: number): string {
  const w = new PrefixWriter();
  describeHeader(w, rs);
  w.write(0, `Selector:\t${selectorString(rs.spec.selector) || '<none>'}\n`);
  labelsMultiline(w, 'Labels', rs.metadata.labels);
  annotationsMultiline(w, 'Annotations', rs.metadata.annotations);
  describeController(w, rs);
  w.write(0, `Replicas:\t${rs.status?.replicas ?? 0} current / ${rs.spec.replicas ?? 1} desired\n`);
  const c = podPhases(rs, pods);
  w.write(0, `Pods Status:\t${c.running} Running / ${c.waiting} Waiting / ${c.succeeded} Succeeded / ${c.failed} Failed\n`);
  describePodTemplate(w, rs.spec.template);
  describeConditions(w, rs.status?.conditions);
  return finishDescription(w, events, now);
}

/** `kubectl describe job`. */
export function describeJob(job: Job, events: Event[] | undefined, now: number): string {
  const w = new PrefixWriter();
  describeHeader(w, job);
  w.write(0, `Selector:\t${selectorString(job.spec.selector)}\n`);
  labelsMultiline(w, 'Labels', job.metadata.labels);
  annotationsMultiline(w, 'Annotations', job.metadata.annotations);
  describeController(w, job);
  const { spec } = job;
  const s = job.status ?? {};
  if (spec.parallelism !== undefined) w.write(0, `Parallelism:\t${spec.parallelism}\n`);
  w.write(0, `Completions:\t${spec.completions ?? '<unset>'}\n`);
  if (spec.completionMode) w.write(0, `Completion Mode:\t${spec.completionMode}\n`);
  if (spec.suspend !== undefined) w.write(0, `Suspend:\t${spec.suspend}\n`);
  if (spec.backoffLimit !== undefined) w.write(0, `Backoff Limit:\t${spec.backoffLimit}\n`);
  if (spec.ttlSecondsAfterFinished !== undefined) w.write(0, `TTL Seconds After Finished:\t${spec.ttlSecondsAfterFinished}\n`);
  if (s.startTime) w.write(0, `Start Time:\t${rfc1123z(s.startTime)}\n`);
  if (s.completionTime) w.write(0, `Completed At:\t${rfc1123z(s.completionTime)}\n`);
  if (s.startTime && s.completionTime) w.write(0, `Duration:\t${humanDuration(Date.parse(s.completionTime) - Date.parse(s.startTime))}\n`);
  if (spec.activeDeadlineSeconds !== undefined) w.write(0, `Active Deadline Seconds:\t${spec.activeDeadlineSeconds}s\n`);
  const counts = `${s.succeeded ?? 0} Succeeded / ${s.failed ?? 0} Failed`;
  w.write(0, `Pods Statuses:\t${s.active ?? 0} Active${s.ready === undefined ? '' : ` (${s.ready} Ready)`} / ${counts}\n`);
  if (spec.completionMode === 'Indexed') w.write(0, `Completed Indexes:\t${capIndexes(s.completedIndexes ?? '')}\n`);
  describePodTemplate(w, spec.template);
  return finishDescription(w, events, now);
}

/** `kubectl describe cronjob`: its schedule and limits, the job template, the last schedule and the active Jobs. */
export function describeCronJob(cj: CronJob, events: Event[] | undefined, now: number): string {
  const w = new PrefixWriter();
  describeHeader(w, cj);
  labelsMultiline(w, 'Labels', cj.metadata.labels);
  annotationsMultiline(w, 'Annotations', cj.metadata.annotations);
  const { spec } = cj;
  const unset = (value: number | string | undefined, unit = '') => (value === undefined ? '<unset>' : `${value}${unit}`);
  w.write(0, `Schedule:\t${spec.schedule}\n`);
  w.write(0, `Concurrency Policy:\t${spec.concurrencyPolicy ?? ''}\n`);
  w.write(0, `Suspend:\t${spec.suspend === undefined ? '<unset>' : spec.suspend ? 'True' : 'False'}\n`);
  w.write(0, `Time Zone:\t${unset(spec.timeZone)}\n`);
  w.write(0, `Successful Job History Limit:\t${unset(spec.successfulJobsHistoryLimit)}\n`);
  w.write(0, `Failed Job History Limit:\t${unset(spec.failedJobsHistoryLimit)}\n`);
  w.write(0, `Starting Deadline Seconds:\t${unset(spec.startingDeadlineSeconds, 's')}\n`);
  // describeJobTemplate
  const job = spec.jobTemplate.spec;
  w.write(0, `Selector:\t${job.selector ? selectorString(job.selector) : '<unset>'}\n`);
  w.write(0, `Parallelism:\t${unset(job.parallelism)}\n`);
  w.write(0, `Completions:\t${unset(job.completions ?? undefined)}\n`);
  if (job.activeDeadlineSeconds !== undefined) w.write(0, `Active Deadline Seconds:\t${job.activeDeadlineSeconds}s\n`);
  describePodTemplate(w, job.template);
  const last = cj.status?.lastScheduleTime;
  w.write(0, `Last Schedule Time:\t${last ? rfc1123z(last) : '<unset>'}\n`);
  const active = cj.status?.active ?? [];
  w.write(0, `Active Jobs:\t${active.length === 0 ? '<none>' : active.map((j) => j.name ?? '').join(', ')}\n`);
  return finishDescription(w, events, now);
}

/** `kubectl describe statefulset`, with PODS those its selector matches (counted when the StatefulSet controls them). */
export function describeStatefulSet(sts: StatefulSet, pods: Pod[], events: Event[] | undefined, now: number): string {
  const w = new PrefixWriter();
  describeHeader(w, sts);
  w.write(0, `CreationTimestamp:\t${rfc1123z(sts.metadata.creationTimestamp)}\n`);
  w.write(0, `Selector:\t${selectorString(sts.spec.selector)}\n`);
  labelsMultiline(w, 'Labels', sts.metadata.labels);
  annotationsMultiline(w, 'Annotations', sts.metadata.annotations);
  const { spec } = sts;
  if (spec.serviceName) w.write(0, `Service Name:\t${spec.serviceName}\n`);
  if (spec.podManagementPolicy) w.write(0, `Pod Management Policy:\t${spec.podManagementPolicy}\n`);
  w.write(0, `Replicas:\t${spec.replicas ?? 1} desired | ${sts.status?.replicas ?? 0} total\n`);
  w.write(0, `Update Strategy:\t${spec.updateStrategy?.type ?? ''}\n`);
  const rolling = spec.updateStrategy?.rollingUpdate;
  if (rolling?.partition !== undefined) {
    w.write(1, `Partition:\t${rolling.partition}\n`);
    if (rolling.maxUnavailable !== undefined) w.write(1, `MaxUnavailable:\t${rolling.maxUnavailable}\n`);
  }
  const retention = spec.persistentVolumeClaimRetentionPolicy;
  if (retention) {
    w.write(0, 'Persistent Volume Claim Retention Policy:\n');
    w.write(1, `WhenDeleted:\t${retention.whenDeleted ?? ''}\n`);
    w.write(1, `WhenScaled:\t${retention.whenScaled ?? ''}\n`);
  }
  const c = podPhases(sts, pods);
  w.write(0, `Pods Status:\t${c.running} Running / ${c.waiting} Waiting / ${c.succeeded} Succeeded / ${c.failed} Failed\n`);
  describePodTemplate(w, spec.template);
  const claims = spec.volumeClaimTemplates ?? [];
  if (claims.length === 0) w.write(0, 'Volume Claims:\t<none>\n');
  else w.write(0, 'Volume Claims:\n');
  for (const claim of claims) {
    w.write(1, `Name:\t${claim.metadata.name ?? ''}\n`);
    const beta = claim.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'];
    w.write(1, `StorageClass:\t${claim.spec?.storageClassName ?? beta ?? ''}\n`);
    labelsMultiline(w, '  Labels', claim.metadata.labels);
    labelsMultiline(w, '  Annotations', claim.metadata.annotations);
    const storage = claim.spec?.resources?.requests?.storage;
    w.write(1, `Capacity:\t${storage === undefined ? '<default>' : canonicalQuantity(storage)}\n`);
    // Go's %s of a slice of access modes.
    w.write(1, `Access Modes:\t[${(claim.spec?.accessModes ?? []).join(' ')}]\n`);
  }
  return finishDescription(w, events, now);
}

/** `kubectl describe daemonset`, with PODS those its selector matches (counted when the DaemonSet controls them). */
export function describeDaemonSet(ds: DaemonSet, pods: Pod[], events: Event[] | undefined, now: number): string {
  const w = new PrefixWriter();
  describeHeader(w, ds);
  w.write(0, `Selector:\t${selectorString(ds.spec.selector)}\n`);
  const nodeSelector = Object.entries(ds.spec.template.spec.nodeSelector ?? {})
    .sort(([a], [b]) => compareStrings(a, b))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  w.write(0, `Node-Selector:\t${nodeSelector || '<none>'}\n`);
  labelsMultiline(w, 'Labels', ds.metadata.labels);
  annotationsMultiline(w, 'Annotations', ds.metadata.annotations);
  const s = ds.status;
  w.write(0, `Desired Number of Nodes Scheduled: ${s?.desiredNumberScheduled ?? 0}\n`);
  w.write(0, `Current Number of Nodes Scheduled: ${s?.currentNumberScheduled ?? 0}\n`);
  w.write(0, `Number of Nodes Scheduled with Up-to-date Pods: ${s?.updatedNumberScheduled ?? 0}\n`);
  w.write(0, `Number of Nodes Scheduled with Available Pods: ${s?.numberAvailable ?? 0}\n`);
  w.write(0, `Number of Nodes Misscheduled: ${s?.numberMisscheduled ?? 0}\n`);
  const c = podPhases(ds, pods);
  w.write(0, `Pods Status:\t${c.running} Running / ${c.waiting} Waiting / ${c.succeeded} Succeeded / ${c.failed} Failed\n`);
  describePodTemplate(w, ds.spec.template);
  return finishDescription(w, events, now);
}

/** capIndexesListOrNone: the list cut after the first comma past 50 characters. */
function capIndexes(indexes: string): string {
  if (!indexes) return '<none>';
  const comma = indexes.indexOf(',', 50);
  return comma < 0 ? indexes : `${indexes.slice(0, comma + 1)}...`;
}
