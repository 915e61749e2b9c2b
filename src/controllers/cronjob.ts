import { ClusterError } from '../engine/cluster/client.js';
import { rfc3339 } from '../engine/api/v1.js';
import { parseCronSchedule, rfc3339InZone, timeZoneProblem, type CronSchedule } from '../engine/api/cron-schedule.js';
import { controllerOf, type CronJob, type Job, type ObjectReference } from '../engine/api/workloads.js';
import { objectKey, ownerKey, splitKey, WorkQueue, type Controller, type ControllerDeps } from './controller.js';
import { finishedCondition } from './job-util.js';
import { compareStrings } from '../util/compare.js';

export const SCHEDULED_TIMESTAMP = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
/** nextScheduleDelta: the requeue lands this long after the scheduled time, against clock skew. */
const NEXT_SCHEDULE_DELTA_MS = 100;

type Status = NonNullable<CronJob['status']>;

/**
 * The CronJob controller (pkg/controller/cronjob, v2) for one node: a Job
 * `<cronjob>-<scheduled minutes since the epoch>` at each time the schedule
 * gives (in timeZone, else the host's zone), concurrencyPolicy
 * Allow/Forbid/Replace, startingDeadlineSeconds, suspend, the finished Jobs
 * kept to the history limits, and lastScheduleTime, lastSuccessfulTime and
 * active in the status. It wakes on the clock at the next scheduled time.
 */
export class CronJobController implements Controller {
  private readonly queue: WorkQueue;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new WorkQueue(
      deps.clock,
      (key) => this.sync(key),
      (key) => this.queue.addAfter(key, 1000),
    );
  }

  start(): void {
    this.unsubscribe = this.deps.store.watch(
      (e) => {
        const key = e.object.kind === 'CronJob' ? e.type !== 'DELETED' && objectKey(e.object) : ownerKey(e.object, 'CronJob');
        if (key) this.queue.add(key);
      },
      { shared: true },
    );
    for (const cj of this.deps.store.list('CronJob')) this.queue.add(objectKey(cj));
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.stop();
  }

  private sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const cj = this.deps.store.get<CronJob>('CronJob', namespace, name);
    if (!cj) return;
    const jobs = this.deps.store.list<Job>('Job', namespace).filter((j) => controllerOf(j.metadata)?.uid === cj.metadata.uid);
    const status: Status = structuredClone(cj.status ?? {});
    this.cleanupFinished(cj, status, jobs);
    // As upstream, the Jobs listed before the cleanup (a deleted one still gives its completion time).
    const requeue = this.syncCronJob(cj, status, jobs);
    const out: Status = {};
    if (status.active && status.active.length > 0) out.active = status.active;
    if (status.lastScheduleTime) out.lastScheduleTime = status.lastScheduleTime;
    if (status.lastSuccessfulTime) out.lastSuccessfulTime = status.lastSuccessfulTime;
    this.deps.store.updateStatus('CronJob', namespace, name, out, cj.metadata.uid);
    if (requeue !== undefined) this.queue.addAfter(key, Math.max(1, requeue));
  }

  /** syncCronJob: the active list against the Jobs, then the Job for the most recent unmet time, if any; returns when to look again. */
  private syncCronJob(cj: CronJob, status: Status, jobs: Job[]): number | undefined {
    const now = this.deps.clock.now();
    const active = (status.active ??= []);
    for (const j of jobs) {
      const found = active.some((r) => r.uid === j.metadata.uid);
      const finished = finishedCondition(j);
      if (!found && !finished)
        this.event(cj, 'Warning', 'UnexpectedJob', `Saw a job that the controller did not create or forgot: ${j.metadata.name}`);
      else if (finished) {
        if (found) {
          removeActive(active, j.metadata.uid);
          this.event(cj, 'Normal', 'SawCompletedJob', `Saw completed job: ${j.metadata.name}, condition: ${finished.type}`);
        }
        const completed = j.status?.completionTime;
        if (
          finished.type === 'Complete' &&
          completed &&
          (!status.lastSuccessfulTime || Date.parse(completed) > Date.parse(status.lastSuccessfulTime))
        )
          status.lastSuccessfulTime = completed;
      }
    }
    for (const ref of [...active]) {
      if (jobs.some((j) => j.metadata.uid === ref.uid)) continue;
      this.event(cj, 'Normal', 'MissingJob', `Active job went missing: ${ref.name}`);
      removeActive(active, ref.uid);
    }
    if (cj.metadata.deletionTimestamp) return undefined;
    const tz = cj.spec.timeZone;
    if (tz !== undefined && tz !== null) {
      const problem = timeZoneProblem(tz);
      if (problem) {
        this.event(cj, 'Warning', 'UnknownTimeZone', `invalid timeZone: ${JSON.stringify(tz)}: ${problem}`);
        return undefined;
      }
    }
    if (cj.spec.suspend) return undefined;
    let schedule: CronSchedule;
    try {
      schedule = parseCronSchedule(cj.spec.schedule, tz);
    } catch (err) {
      this.event(
        cj,
        'Warning',
        'UnparseableSchedule',
        `unparseable schedule: ${JSON.stringify(cj.spec.schedule)} : ${(err as Error).message}`,
      );
      return undefined;
    }
    const scheduled = mostRecentScheduleTime(cj, status, now, schedule, true);
    const nextIn = () => nextScheduleDelay(cj, status, now, schedule);
    if (scheduled.tooMany) {
      this.event(
        cj,
        'Warning',
        'TooManyMissedTimes',
        'too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew',
      );
    }
    const at = scheduled.mostRecent;
    if (at === undefined) return nextIn();
    const deadline = cj.spec.startingDeadlineSeconds;
    if (deadline !== undefined && deadline !== null && at + deadline * 1000 < now) {
      this.event(cj, 'Warning', 'MissSchedule', `Missed scheduled time to start a job: ${rfc1123z(at)}`);
      return nextIn();
    }
    const jobName = `${cj.metadata.name}-${Math.floor(at / 60_000)}`;
    if (active.some((r) => r.name === jobName) || (status.lastScheduleTime && Date.parse(status.lastScheduleTime) === at)) return nextIn();
    if (cj.spec.concurrencyPolicy === 'Forbid' && active.length > 0) {
      this.event(cj, 'Normal', 'JobAlreadyActive', 'Not starting job because prior execution is running and concurrency policy is Forbid');
      return nextIn();
    }
    if (cj.spec.concurrencyPolicy === 'Replace')
      for (const ref of [...active]) {
        const job = this.deps.store.get<Job>('Job', ref.namespace ?? cj.metadata.namespace!, ref.name!);
        if (job) this.deleteJob(cj, status, job);
        else removeActive(active, ref.uid);
      }
    let job: Job;
    try {
      job = this.deps.store.create(jobFromTemplate(cj, at, jobName));
      this.event(cj, 'Normal', 'SuccessfulCreate', `Created job ${job.metadata.name}`);
    } catch (err) {
      if (!(err instanceof ClusterError && err.reason === 'AlreadyExists')) {
        this.event(cj, 'Warning', 'FailedCreate', `Error creating job: ${(err as Error).message}`);
        throw err;
      }
      const existing = this.deps.store.get<Job>('Job', cj.metadata.namespace!, jobName);
      if (!existing || controllerOf(existing.metadata)?.uid !== cj.metadata.uid) return undefined;
      if (active.some((r) => r.uid === existing.metadata.uid)) return undefined;
      job = existing;
    }
    active.push(reference(job));
    status.lastScheduleTime = rfc3339(at);
    return nextIn();
  }

  /** cleanupFinishedJobs: the oldest finished Jobs past successfulJobsHistoryLimit and failedJobsHistoryLimit go. */
  private cleanupFinished(cj: CronJob, status: Status, jobs: Job[]): void {
    const limits: [string, number | undefined][] = [
      ['Complete', cj.spec.successfulJobsHistoryLimit],
      ['Failed', cj.spec.failedJobsHistoryLimit],
    ];
    for (const [type, limit] of limits) {
      if (limit === undefined || limit === null) continue;
      const finished = jobs.filter((j) => finishedCondition(j)?.type === type).sort(byStartTime);
      for (const job of finished.slice(0, Math.max(0, finished.length - limit))) this.deleteJob(cj, status, job);
    }
  }

  private deleteJob(cj: CronJob, status: Status, job: Job): void {
    try {
      // In the background, as realJobControl.DeleteJob asks: a Job's own default would orphan its pods.
      this.deps.store.delete('Job', job.metadata.namespace!, job.metadata.name!, {
        uid: job.metadata.uid,
        propagationPolicy: 'Background',
      });
    } catch (err) {
      if (!ClusterError.notFound(err)) {
        this.event(cj, 'Warning', 'FailedDelete', `Deleted job: ${(err as Error).message}`);
        return;
      }
    }
    removeActive((status.active ??= []), job.metadata.uid);
    this.event(cj, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata.name}`);
  }

  private event(cj: CronJob, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.deps.record({ object: cj, type, reason, message });
  }
}

/**
 * mostRecentScheduleTime: the latest scheduled time in (earliest, now],
 * where earliest is the last schedule time (else the creation), moved up to
 * now - startingDeadlineSeconds when asked.
 */
function mostRecentScheduleTime(
  cj: CronJob,
  status: Status,
  now: number,
  schedule: CronSchedule,
  withDeadline: boolean,
): { earliest: number; mostRecent?: number; missed: boolean; tooMany: boolean } {
  let earliest = Date.parse(status.lastScheduleTime ?? cj.metadata.creationTimestamp ?? '') || now;
  const deadline = cj.spec.startingDeadlineSeconds;
  if (withDeadline && deadline !== undefined && deadline !== null) earliest = Math.max(earliest, now - deadline * 1000);
  const t1 = schedule.next(earliest);
  if (now < t1) return { earliest, missed: false, tooMany: false };
  const t2 = schedule.next(t1);
  if (now < t2) return { earliest, mostRecent: t1, missed: false, tooMany: false };
  const between = Math.round((t2 - t1) / 1000);
  if (between < 1) return { earliest, missed: false, tooMany: false };
  const missed = Math.floor((now - t1) / 1000 / between) + 1;
  let mostRecent: number | undefined;
  for (let t = schedule.next(t1 + (missed - 2) * between * 1000); t <= now; t = schedule.next(t)) mostRecent = t;
  return { earliest, mostRecent, missed: true, tooMany: missed > 100 };
}

/** nextScheduleTimeDuration: how long until the next scheduled time after the most recent one, plus the delta. */
function nextScheduleDelay(cj: CronJob, status: Status, now: number, schedule: CronSchedule): number {
  const { earliest, mostRecent, missed } = mostRecentScheduleTime(cj, status, now, schedule, false);
  const from = mostRecent ?? (missed ? now : earliest);
  return schedule.next(from) + NEXT_SCHEDULE_DELTA_MS - now;
}

/** getJobFromTemplate2: the template's labels and annotations, the scheduled time annotation, the controller reference. */
function jobFromTemplate(cj: CronJob, scheduled: number, name: string): Job {
  const template = cj.spec.jobTemplate;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name,
      namespace: cj.metadata.namespace,
      ...(template.metadata?.labels ? { labels: { ...template.metadata.labels } } : {}),
      annotations: { ...template.metadata?.annotations, [SCHEDULED_TIMESTAMP]: rfc3339InZone(scheduled, cj.spec.timeZone) },
      ownerReferences: [
        {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          name: cj.metadata.name!,
          uid: cj.metadata.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: structuredClone(template.spec),
  };
}

function removeActive(active: ObjectReference[], uid: string | undefined): void {
  const i = active.findIndex((r) => r.uid === uid);
  if (i >= 0) active.splice(i, 1);
}

function reference(job: Job): ObjectReference {
  return {
    kind: 'Job',
    namespace: job.metadata.namespace,
    name: job.metadata.name,
    uid: job.metadata.uid,
    apiVersion: 'batch/v1',
    resourceVersion: job.metadata.resourceVersion,
  };
}

/** byJobStartTime: started first, then by name; a Job not started sorts last. */
function byStartTime(a: Job, b: Job): number {
  const sa = a.status?.startTime;
  const sb = b.status?.startTime;
  if (!sa && sb) return 1;
  if (sa && !sb) return -1;
  if (sa === sb) return compareStrings(a.metadata.name ?? '', b.metadata.name ?? '');
  return Date.parse(sa!) - Date.parse(sb!);
}

/** Go's time.RFC1123Z in UTC: "Mon, 02 Jan 2006 15:04:05 +0000". */
function rfc1123z(ms: number): string {
  return new Date(ms).toUTCString().replace('GMT', '+0000');
}
