import { ClusterError } from '../engine/cluster/client.js';
import { rfc3339, type ObjectMeta, type Pod } from '../engine/api/v1.js';
import { controllerOf, type Job, type KubeObject } from '../engine/api/workloads.js';
import {
  createPod,
  isPodActive,
  isPodReady,
  objectKey,
  podFromTemplate,
  podsControlledBy,
  splitKey,
  WorkQueue,
  type Controller,
  type ControllerDeps,
} from './controller.js';
import {
  backoffRemaining,
  COMPLETION_INDEX,
  COMPLETION_INDEX_ENV,
  completionIndex,
  firstPendingIndexes,
  formatIndexes,
  hasTrackingFinalizer,
  isIndexed,
  isPodFailed,
  matchPodFailurePolicy,
  nextBackoffRecord,
  parseIndexes,
  pastBackoffLimitOnFailure,
  TRACKING_FINALIZER,
  condition,
  finishedCondition,
  isTerminal,
  orderStatus,
  podsForRemoval,
  setCount,
  type BackoffRecord,
  type Finished,
  type JobStatus,
} from './job-util.js';

/** MaxPodCreateDeletePerSync. */
const MAX_PODS_PER_SYNC = 500;
/** names.MaxGeneratedNameLength: a generateName keeps room for the 5 random characters. */
const MAX_GENERATED_NAME = 58;

/**
 * The Job controller (pkg/controller/job) for one node: pods `<job>-<5
 * random>` (Indexed: `<job>-<index>-<5 random>` with the completion index
 * annotation, label, env and hostname), up to `parallelism` at once until
 * `completions` succeeded, new pods after failures on the controller's
 * back-off (10s doubling, at most 6m), `backoffLimit`,
 * `activeDeadlineSeconds` and `podFailurePolicy`, and the status with the
 * interim SuccessCriteriaMet/FailureTarget conditions before Complete/Failed.
 * A pod carries the job-tracking finalizer until it is counted; a pod that
 * is gone before that is kept here until it is.
 */
export class JobController implements Controller {
  private readonly queue: WorkQueue;
  private unsubscribe: (() => void) | undefined;
  private readonly backoff = new Map<string, BackoffRecord>();
  /** Finished or deleted pods that left the store while they still had the tracking finalizer, by job uid. */
  private readonly gone = new Map<string, Pod[]>();

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new WorkQueue(
      deps.clock,
      (key) => this.sync(key),
      (key, err) => this.failed(key, err),
    );
  }

  start(): void {
    this.unsubscribe = this.deps.store.watch(
      (e) => {
        if (e.object.kind === 'Job') {
          if (e.type === 'DELETED') this.gone.delete(e.object.metadata.uid!);
          this.queue.add(objectKey(e.object));
        } else if (e.object.kind === 'Pod') {
          const owner = controllerOf(e.object.metadata);
          if (owner?.kind !== 'Job') return;
          if (e.type === 'DELETED' && hasTrackingFinalizer(e.object as unknown as Pod)) {
            const job = this.deps.store.get('Job', e.object.metadata.namespace!, owner.name);
            if (job?.metadata.uid === owner.uid) {
              // The apiserver would keep it, marked, until the finalizer goes: a copy kept here.
              const pod = structuredClone(e.object) as unknown as Pod;
              pod.metadata.deletionTimestamp ??= rfc3339(this.deps.clock.now());
              const list = this.gone.get(owner.uid) ?? [];
              this.gone.set(owner.uid, [...list.filter((p) => p.metadata.uid !== pod.metadata.uid), pod]);
            }
          }
          this.queue.add(`${e.object.metadata.namespace}/${owner.name}`);
        }
      },
      { shared: true },
    );
    for (const job of this.deps.store.list('Job')) this.queue.add(objectKey(job));
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.stop();
  }

  private sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const job = this.deps.store.get<Job>('Job', namespace, name);
    if (!job) return void this.backoff.delete(key);
    if (finishedCondition(job)) {
      this.backoff.delete(key);
      this.gone.delete(job.metadata.uid!);
      return;
    }
    const now = this.deps.clock.now();
    const uid = job.metadata.uid!;
    const present = podsControlledBy(this.deps.store, namespace, uid);
    const presentUids = new Set(present.map((p) => p.metadata.uid));
    const gone = (this.gone.get(uid) ?? []).filter((p) => !presentUids.has(p.metadata.uid));
    const pods = [...present, ...gone];
    const status: JobStatus = structuredClone(job.status ?? {});
    status.conditions ??= [];
    const indexed = isIndexed(job);
    const completions = job.spec.completions ?? undefined;
    const validIndex = (p: Pod) => !indexed || (completionIndex(p) >= 0 && completionIndex(p) < (completions ?? 0));
    const uncounted = pods.filter((p) => hasTrackingFinalizer(p) && validIndex(p));
    const newSucceeded = uncounted.filter((p) => p.status?.phase === 'Succeeded');
    const newFailed = uncounted.filter((p) => isPodFailed(p));
    let activePods = present.filter(isPodActive);
    let terminating = present.filter((p) => p.metadata.deletionTimestamp && !isTerminal(p)).length;
    let ready = activePods.filter(isPodReady).length;
    let succeeded = (status.succeeded ?? 0) + newSucceeded.length;
    const failed = (status.failed ?? 0) + newFailed.filter((p) => matchPodFailurePolicy(job.spec.podFailurePolicy, p).count).length;
    if (!status.startTime && !job.spec.suspend) status.startTime = rfc3339(now);
    const record = nextBackoffRecord(this.backoff.get(key), newSucceeded, newFailed);

    let finished: Finished | undefined = status.conditions.find((c) => c.type === 'SuccessCriteriaMet' && c.status === 'True');
    if (!finished) {
      const target = status.conditions.find((c) => c.type === 'FailureTarget' && c.status === 'True');
      if (target) finished = condition('Failed', target.reason!, target.message!, now);
      else {
        const message = pods
          .filter(isPodFailed)
          .map((p) => matchPodFailurePolicy(job.spec.podFailurePolicy, p).failJob)
          .find((m) => m !== undefined);
        if (message) finished = condition('FailureTarget', 'PodFailurePolicy', message, now);
      }
    }
    if (!finished) {
      const deadline = job.spec.activeDeadlineSeconds;
      const started = Date.parse(status.startTime ?? '') || now;
      if (failed > (job.spec.backoffLimit ?? 6) || pastBackoffLimitOnFailure(job, pods))
        finished = condition('FailureTarget', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit', now);
      else if (deadline !== undefined && !job.spec.suspend && now - started >= deadline * 1000)
        finished = condition('FailureTarget', 'DeadlineExceeded', 'Job was active longer than specified deadline', now);
      else if (deadline !== undefined && !job.spec.suspend) this.queue.addAfter(key, deadline * 1000 - (now - started));
    }
    const succeededIndexes = indexed ? parseIndexes(status.completedIndexes, completions ?? 0) : new Set<number>();
    if (indexed) {
      for (const p of newSucceeded) succeededIndexes.add(completionIndex(p));
      succeeded = succeededIndexes.size;
    }

    if (finished) {
      // A finished Job's active pods go (the success case has none left).
      for (const pod of activePods) {
        if (this.deletePod(job, pod, false)) {
          terminating++;
          if (isPodReady(pod)) ready--;
        }
      }
      activePods = [];
    } else {
      const result = this.manage(job, key, activePods, succeeded, succeededIndexes, record, now);
      activePods = result.active;
      terminating += result.deleted;
      ready -= result.deletedReady;
      const complete = completions === undefined ? succeeded > 0 : succeeded >= completions;
      if (complete && activePods.length === 0)
        finished = condition('SuccessCriteriaMet', 'CompletionsReached', 'Reached expected number of succeeded pods', now);
      else this.suspension(job, status, now);
    }

    // trackJobStatusAndRemoveFinalizers: count what finished, then drop the finalizers of the counted pods.
    let countedSucceeded = 0;
    let countedFailed = 0;
    const counted: Pod[] = [];
    const failing = finished && finished.type !== 'SuccessCriteriaMet';
    for (const pod of uncounted) {
      const considerFailed = isPodFailed(pod);
      if (!finished && pod.status?.phase !== 'Succeeded' && !considerFailed) continue;
      counted.push(pod);
      if (pod.status?.phase === 'Succeeded') {
        if (!indexed) countedSucceeded++;
      } else if (considerFailed || failing) {
        if (matchPodFailurePolicy(job.spec.podFailurePolicy, pod).count) countedFailed++;
      }
    }
    if (finished?.type === 'FailureTarget') {
      status.conditions.push(finished);
      finished = condition('Failed', finished.reason!, finished.message!, now);
    }
    if (finished?.type === 'SuccessCriteriaMet') {
      if (!status.conditions.some((c) => c.type === 'SuccessCriteriaMet')) status.conditions.push(finished);
      finished = condition('Complete', finished.reason!, finished.message!, now);
    }
    for (const pod of counted) this.dropFinalizer(uid, pod);
    if (indexed) {
      status.completedIndexes = formatIndexes(succeededIndexes);
      setCount(status, 'succeeded', succeededIndexes.size);
    } else setCount(status, 'succeeded', (status.succeeded ?? 0) + countedSucceeded);
    setCount(status, 'failed', (status.failed ?? 0) + countedFailed);
    if (counted.length > 0) this.backoff.set(key, record);
    setCount(status, 'active', activePods.length);
    status.ready = Math.max(0, ready);
    status.terminating = terminating;
    status.uncountedTerminatedPods = {};
    const done = finished !== undefined && terminating === 0;
    if (done) {
      const i = status.conditions.findIndex((c) => c.type === finished!.type);
      if (i >= 0) status.conditions[i] = finished!;
      else status.conditions.push(finished!);
      if (finished!.type === 'Complete') status.completionTime = finished!.lastTransitionTime;
    }
    if (status.conditions.length === 0) delete status.conditions;
    this.deps.store.updateStatus('Job', namespace, name, orderStatus(status), uid);
    if (done) this.recordFinished(job, status, finished!);
  }

  /** The Suspended condition: True while suspended (startTime cleared); False on resume (startTime now), with its event. */
  private suspension(job: Job, status: JobStatus, now: number): void {
    const conditions = status.conditions!;
    const i = conditions.findIndex((c) => c.type === 'Suspended');
    const old = conditions[i];
    const [state, reason, message, event] = job.spec.suspend
      ? (['True', 'JobSuspended', 'Job suspended', 'Suspended'] as const)
      : (['False', 'JobResumed', 'Job resumed', 'Resumed'] as const);
    if (!old && state === 'False') return;
    if (old && old.status === state && old.reason === reason && old.message === message) return;
    const next = { ...condition('Suspended', reason, message, now), status: state };
    if (i >= 0) conditions[i] = next;
    else conditions.push(next);
    this.deps.record({ object: job, type: 'Normal', reason: event, message });
    if (job.spec.suspend) delete status.startTime;
    else status.startTime = rfc3339(now);
  }

  /** manageJob: the pods to delete (too many) or to make (too few, once the back-off allows). */
  private manage(
    job: Job,
    key: string,
    activePods: Pod[],
    succeeded: number,
    succeededIndexes: Set<number>,
    record: BackoffRecord,
    now: number,
  ): { active: Pod[]; deleted: number; deletedReady: number } {
    let deleted = 0;
    let deletedReady = 0;
    const remove = (pods: Pod[]) => {
      for (const pod of pods)
        if (this.deletePod(job, pod, true)) {
          deleted++;
          if (isPodReady(pod)) deletedReady++;
        }
      const gone = new Set(pods.map((p) => p.metadata.uid));
      return { active: activePods.filter((p) => !gone.has(p.metadata.uid)), deleted, deletedReady };
    };
    if (job.spec.suspend) return remove(activePods);
    const parallelism = job.spec.parallelism ?? 1;
    const completions = job.spec.completions ?? undefined;
    const active = activePods.length;
    const want =
      completions === undefined ? (succeeded > 0 ? active : parallelism) : Math.max(0, Math.min(completions - succeeded, parallelism));
    const extra = podsForRemoval(job, activePods, Math.max(0, active - want), now);
    if (extra.length > 0) return remove(extra.slice(0, MAX_PODS_PER_SYNC));
    let diff = Math.min(want - active, MAX_PODS_PER_SYNC);
    if (diff <= 0) return { active: activePods, deleted, deletedReady };
    const wait = backoffRemaining(record, now);
    if (wait > 0) {
      this.queue.addAfter(key, wait);
      return { active: activePods, deleted, deletedReady };
    }
    const indexes = isIndexed(job) ? firstPendingIndexes(succeededIndexes, activePods, diff, completions ?? 0) : [];
    if (isIndexed(job)) diff = indexes.length;
    const made = [...activePods];
    for (let i = 0; i < diff; i++) {
      const pod = this.podFor(job, isIndexed(job) ? indexes[i] : undefined);
      try {
        const created = createPod(this.deps.store, pod);
        made.push(created);
        this.deps.record({ object: job, type: 'Normal', reason: 'SuccessfulCreate', message: `Created pod: ${created.metadata.name}` });
      } catch (err) {
        this.deps.record({ object: job, type: 'Warning', reason: 'FailedCreate', message: `Error creating: ${(err as Error).message}` });
        break;
      }
    }
    return { active: made, deleted, deletedReady };
  }

  /** A pod of JOB's template, with the tracking finalizer and, for an index, its annotation, label, env and hostname. */
  private podFor(job: Job, index: number | undefined): Pod {
    const template = structuredClone(job.spec.template);
    let generateName = `${job.metadata.name}-`;
    if (index !== undefined) {
      for (const c of [...(template.spec.initContainers ?? []), ...template.spec.containers]) {
        c.env ??= [];
        if (!c.env.some((e) => e.name === COMPLETION_INDEX_ENV))
          c.env.push({ name: COMPLETION_INDEX_ENV, valueFrom: { fieldRef: { fieldPath: `metadata.labels['${COMPLETION_INDEX}']` } } });
      }
      template.spec.hostname = `${job.metadata.name}-${index}`;
      const suffix = `-${index}-`;
      generateName = job.metadata.name! + suffix;
      if (generateName.length > MAX_GENERATED_NAME) generateName = generateName.slice(0, MAX_GENERATED_NAME - suffix.length) + suffix;
    }
    const extra = index === undefined ? undefined : { [COMPLETION_INDEX]: String(index) };
    const pod = podFromTemplate(this.deps, template, job, { generateName, labels: extra, annotations: extra });
    pod.metadata.finalizers = [...(template.metadata?.finalizers ?? []).filter((f) => f !== TRACKING_FINALIZER), TRACKING_FINALIZER];
    return pod;
  }

  /** Deletes POD gracefully (the node stops it, then deletes it with grace 0); when UNTRACK, it is not counted as a failure. */
  private deletePod(job: Job, pod: Pod, untrack: boolean): boolean {
    try {
      if (untrack) this.dropFinalizer(job.metadata.uid!, pod);
      this.deps.store.delete('Pod', pod.metadata.namespace!, pod.metadata.name!, { uid: pod.metadata.uid });
      this.deps.record({ object: job, type: 'Normal', reason: 'SuccessfulDelete', message: `Deleted pod: ${pod.metadata.name}` });
      return true;
    } catch (err) {
      if (ClusterError.notFound(err)) return true;
      this.deps.record({ object: job, type: 'Warning', reason: 'FailedDelete', message: `Error deleting: ${(err as Error).message}` });
      return false;
    }
  }

  private dropFinalizer(jobUid: string, pod: Pod): void {
    const list = this.gone.get(jobUid);
    if (list?.some((p) => p.metadata.uid === pod.metadata.uid)) {
      const rest = list.filter((p) => p.metadata.uid !== pod.metadata.uid);
      if (rest.length > 0) this.gone.set(jobUid, rest);
      else this.gone.delete(jobUid);
      return;
    }
    const current = this.deps.store.get<KubeObject>('Pod', pod.metadata.namespace!, pod.metadata.name!);
    if (!current || current.metadata.uid !== pod.metadata.uid || !current.metadata.finalizers?.includes(TRACKING_FINALIZER)) return;
    const metadata: ObjectMeta = { ...current.metadata, finalizers: current.metadata.finalizers.filter((f) => f !== TRACKING_FINALIZER) };
    if (metadata.finalizers!.length === 0) delete metadata.finalizers;
    this.deps.store.update({ ...current, metadata });
  }

  private recordFinished(job: Job, status: JobStatus, finished: Finished): void {
    if (finished.type === 'Complete') {
      const completions = job.spec.completions ?? undefined;
      if (completions !== undefined && (status.succeeded ?? 0) > completions)
        this.deps.record({
          object: job,
          type: 'Warning',
          reason: 'TooManySucceededPods',
          message: 'Too many succeeded pods running after completion count reached',
        });
      this.deps.record({ object: job, type: 'Normal', reason: 'Completed', message: 'Job completed' });
    } else this.deps.record({ object: job, type: 'Warning', reason: finished.reason!, message: finished.message! });
  }

  private failed(key: string, err: Error): void {
    const [namespace, name] = splitKey(key);
    const job = this.deps.store.get<Job>('Job', namespace, name);
    if (job) this.deps.record({ object: job, type: 'Warning', reason: 'SyncFailed', message: err.message });
    this.queue.addAfter(key, 1000);
  }
}
