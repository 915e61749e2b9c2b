// What the Job controller computes from pods (pkg/controller/job's
// backoff_utils.go, indexed_job_utils.go, pod_failure_policy.go): the
// failure back-off, completion indexes and their interval strings, and the
// pod failure policy's verdict on a failed pod.
import type { ContainerStatus, Pod } from '../engine/api/v1.js';
import { rfc3339 } from '../engine/api/v1.js';
import type { Job, PodFailurePolicy, WorkloadCondition } from '../engine/api/workloads.js';
import { deletionRank } from './replicaset.js';

export const TRACKING_FINALIZER = 'batch.kubernetes.io/job-tracking';
export const COMPLETION_INDEX = 'batch.kubernetes.io/job-completion-index';
export const COMPLETION_INDEX_ENV = 'JOB_COMPLETION_INDEX';
/** DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff. */
export const BACKOFF_BASE_MS = 10_000;
export const BACKOFF_MAX_MS = 6 * 60_000;

export type JobStatus = NonNullable<Job['status']>;
export type Finished = Omit<WorkloadCondition, 'lastUpdateTime'>;

export function isIndexed(job: Job): boolean {
  return job.spec.completionMode === 'Indexed';
}

/** The pod's completion index, or -1 when it has none that parses. */
export function completionIndex(pod: Pod): number {
  const v = pod.metadata.annotations?.[COMPLETION_INDEX];
  if (v === undefined || !/^\d+$/.test(v)) return -1;
  return Number(v);
}

/** isPodFailed: Failed, or being deleted before it succeeded (podReplacementPolicy TerminatingOrFailed). */
export function isPodFailed(pod: Pod): boolean {
  if (pod.status?.phase === 'Failed') return true;
  return !!pod.metadata.deletionTimestamp && pod.status?.phase !== 'Succeeded';
}

export function hasTrackingFinalizer(pod: Pod): boolean {
  return pod.metadata.finalizers?.includes(TRACKING_FINALIZER) ?? false;
}

/** A set of indexes, kept as a sorted array; written as upstream's orderedIntervals ("1,3-5,7"). */
export function parseIndexes(text: string | undefined, completions: number): Set<number> {
  const out = new Set<number>();
  for (const part of (text ?? '').split(',')) {
    if (part === '') continue;
    const [first, last] = part.split('-').map(Number);
    if (!Number.isInteger(first) || first >= completions) continue;
    const end = Math.min(Number.isInteger(last) ? last : first, completions - 1);
    for (let i = first; i <= end; i++) out.add(i);
  }
  return out;
}

export function formatIndexes(indexes: Set<number>): string {
  const sorted = [...indexes].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    if (j === i) parts.push(String(sorted[i]));
    else if (j === i + 1) parts.push(`${sorted[i]},${sorted[j]}`);
    else parts.push(`${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** firstPendingIndexes: the lowest COUNT indexes below COMPLETIONS neither succeeded nor taken by an active pod. */
export function firstPendingIndexes(succeeded: Set<number>, active: Pod[], count: number, completions: number): number[] {
  const taken = new Set([...succeeded, ...active.map(completionIndex).filter((i) => i >= 0)]);
  const out: number[] = [];
  for (let i = 0; i < completions && out.length < count; i++) if (!taken.has(i)) out.push(i);
  return out;
}

/** getFinishedTime: the last container's finish, else when Ready turned False, else the deletion, else the creation. */
export function finishedTime(pod: Pod): number {
  const statuses: ContainerStatus[] = pod.status?.containerStatuses ?? [];
  let latest: number | undefined;
  let all = statuses.length > 0;
  for (const s of statuses) {
    const at = s.state?.terminated?.finishedAt;
    if (!at) {
      all = false;
      break;
    }
    latest = Math.max(latest ?? 0, Date.parse(at));
  }
  if (all && latest !== undefined) return latest;
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready');
  if (ready?.status === 'False' && ready.lastTransitionTime) return Date.parse(ready.lastTransitionTime);
  if (pod.metadata.deletionTimestamp)
    return Date.parse(pod.metadata.deletionTimestamp) - (pod.metadata.deletionGracePeriodSeconds ?? 0) * 1000;
  return Date.parse(pod.metadata.creationTimestamp ?? '') || 0;
}

export interface BackoffRecord {
  failuresAfterLastSuccess: number;
  lastFailureTime?: number;
}

/** newBackoffRecord: the failures since the last success, from the pods that finished since the last sync. */
export function nextBackoffRecord(old: BackoffRecord | undefined, succeeded: Pod[], failed: Pod[]): BackoffRecord {
  const record: BackoffRecord = { ...(old ?? { failuresAfterLastSuccess: 0 }) };
  const failedTimes = failed.map(finishedTime).sort((a, b) => a - b);
  if (succeeded.length === 0) {
    if (failedTimes.length === 0) return record;
    return {
      failuresAfterLastSuccess: record.failuresAfterLastSuccess + failedTimes.length,
      lastFailureTime: failedTimes[failedTimes.length - 1],
    };
  }
  const lastSuccess = Math.max(...succeeded.map(finishedTime));
  const after = failedTimes.filter((t) => t > lastSuccess);
  return after.length === 0
    ? { failuresAfterLastSuccess: 0 }
    : { failuresAfterLastSuccess: after.length, lastFailureTime: after[after.length - 1] };
}

/** How long pod creation still waits: 10s doubling per failure since the last success, at most 6m, from the last failure. */
export function backoffRemaining(record: BackoffRecord | undefined, now: number): number {
  if (!record || record.failuresAfterLastSuccess === 0 || record.lastFailureTime === undefined) return 0;
  let delay = BACKOFF_BASE_MS;
  for (let i = 1; i < record.failuresAfterLastSuccess; i++) {
    delay *= 2;
    if (delay >= BACKOFF_MAX_MS) {
      delay = BACKOFF_MAX_MS;
      break;
    }
  }
  const elapsed = now - record.lastFailureTime;
  return delay < elapsed ? 0 : delay - elapsed;
}

export interface PolicyVerdict {
  /** The FailJob rule's message. */
  failJob?: string;
  /** Whether the failure counts towards backoffLimit (not when an Ignore rule matched). */
  count: boolean;
  action?: string;
}

/** matchPodFailurePolicy: the first rule that matches the failed POD decides. */
export function matchPodFailurePolicy(policy: PodFailurePolicy | undefined, pod: Pod): PolicyVerdict {
  if (!policy) return { count: true };
  for (const [index, rule] of (policy.rules ?? []).entries()) {
    let failJob: string | undefined;
    if (rule.onExitCodes) {
      const req = rule.onExitCodes;
      const matched = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])].find((s) => {
        const code = s.state?.terminated?.exitCode;
        if (code === undefined || code === 0) return false;
        if (req.containerName && req.containerName !== s.name) return false;
        return req.operator === 'In' ? req.values.includes(code) : req.operator === 'NotIn' ? !req.values.includes(code) : false;
      });
      if (!matched) continue;
      failJob = `Container ${matched.name} for pod ${pod.metadata.namespace}/${pod.metadata.name} failed with exit code ${matched.state!.terminated!.exitCode} matching FailJob rule at index ${index}`;
    } else if (rule.onPodConditions) {
      const matched = (pod.status?.conditions ?? []).find((c) =>
        rule.onPodConditions!.some((p) => p.type === c.type && (p.status ?? 'True') === c.status),
      );
      if (!matched) continue;
      failJob = `Pod ${pod.metadata.namespace}/${pod.metadata.name} has condition ${matched.type} matching FailJob rule at index ${index}`;
    } else continue;
    switch (rule.action) {
      case 'Ignore':
        return { count: false, action: 'Ignore' };
      case 'FailJob':
        return { failJob, count: true, action: 'FailJob' };
      default:
        return { count: true, action: rule.action };
    }
  }
  return { count: true };
}

/** pastBackoffLimitOnFailure: with restartPolicy OnFailure, the container restarts of running pods count as failures. */
export function pastBackoffLimitOnFailure(job: Job, pods: Pod[]): boolean {
  if (job.spec.template.spec.restartPolicy !== 'OnFailure') return false;
  let restarts = 0;
  for (const pod of pods) {
    if (pod.status?.phase !== 'Running' && pod.status?.phase !== 'Pending') continue;
    for (const s of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])])
      restarts += s.restartCount ?? 0;
  }
  const limit = job.spec.backoffLimit ?? 6;
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

/** The Job's Complete or Failed condition, when it has finished. */
export function finishedCondition(job: Job): WorkloadCondition | undefined {
  return job.status?.conditions?.find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

export function condition(type: string, reason: string, message: string, now: number): Finished {
  const at = rfc3339(now);
  return { type, status: 'True', lastProbeTime: at, lastTransitionTime: at, reason, message };
}

export function isTerminal(pod: Pod): boolean {
  return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
}

/** activePodsForRemoval: for Indexed, duplicate and out-of-range indexes first; then in the ActivePods order. */
export function podsForRemoval(job: Job, active: Pod[], atLeast: number, now: number): Pod[] {
  const rm: Pod[] = [];
  let left = active;
  if (isIndexed(job)) {
    const seen = new Set<number>();
    left = [];
    const completions = job.spec.completions ?? 0;
    for (const pod of [...active].sort((a, b) => completionIndex(a) - completionIndex(b))) {
      const ix = completionIndex(pod);
      if (ix < 0 || ix >= completions || seen.has(ix)) rm.push(pod);
      else {
        seen.add(ix);
        left.push(pod);
      }
    }
  }
  if (rm.length < atLeast) rm.push(...[...left].sort((a, b) => deletionRank(a, b, now)).slice(0, atLeast - rm.length));
  return rm;
}

/** The counters as the API writes them: omitted when 0 (active, succeeded, failed are not pointers upstream). */
export function setCount(status: JobStatus, field: 'active' | 'succeeded' | 'failed', value: number): void {
  if (value > 0) status[field] = value;
  else delete status[field];
}

/** The fields in the order `kubectl get job -o yaml` shows them. */
export function orderStatus(s: JobStatus): JobStatus {
  const order = [
    'conditions',
    'startTime',
    'completionTime',
    'active',
    'succeeded',
    'failed',
    'completedIndexes',
    'terminating',
    'ready',
    'uncountedTerminatedPods',
  ] as const;
  const out: Record<string, unknown> = {};
  for (const k of order) if (s[k] !== undefined) out[k] = s[k];
  return out as JobStatus;
}
