import { beforeEach, describe, expect, it } from 'vitest';
import { FakeClock, flushMicrotasks } from '../../../src/util/clock.js';
import { LocalWorkloads, type ControllerEvent } from '../../../src/controllers/index.js';
import { rfc3339, type Pod } from '../../../src/engine/api/v1.js';
import type { CronJob, Job, KubeObject } from '../../../src/engine/api/workloads.js';

const NODE = 'n1';
const START = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;

function cronJob(spec: Partial<CronJob['spec']> = {}): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'tick' },
    spec: {
      schedule: '*/5 * * * *',
      jobTemplate: {
        metadata: { labels: { app: 'tick' } },
        spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'tick', image: 'busybox:1' }] } } },
      },
      ...spec,
    },
  };
}

describe('the local CronJob controller', () => {
  let clock: FakeClock;
  let workloads: LocalWorkloads;
  let events: ControllerEvent[];

  beforeEach(() => {
    clock = new FakeClock(START);
    let seed = 0;
    workloads = new LocalWorkloads({
      nodeName: NODE,
      nodeLabels: { 'kubernetes.io/hostname': NODE },
      clock,
      random: () => (seed++ * 0.37) % 1,
    });
    events = [];
    workloads.start((e) => events.push(e));
  });

  const jobs = () => workloads.store.list<Job>('Job');
  const get = () => workloads.store.get<CronJob>('CronJob', 'default', 'tick')!;
  const cronEvents = () => events.filter((e) => e.object.kind === 'CronJob').map((e) => `${e.reason}: ${e.message}`);
  const jobName = (minutesAfterStart: number) => `tick-${START / MINUTE + minutesAfterStart}`;

  /** Moves the clock to a second past START + MINUTES (the controller wakes 100 ms after a scheduled time). */
  async function until(minutes: number): Promise<void> {
    await clock.advance(START + minutes * MINUTE + 1_000 - clock.now());
  }

  async function apply(spec: Partial<CronJob['spec']> = {}): Promise<void> {
    workloads.api.applyObjects('file', [cronJob(spec)]);
    await flushMicrotasks();
  }

  /** The kubelet: every running pod of JOB exits 0 now. */
  async function finish(job: string): Promise<void> {
    const pods = workloads.store.list<KubeObject>('Pod') as unknown as Pod[];
    for (const pod of pods.filter((p) => p.metadata.labels?.['job-name'] === job && p.status?.phase === 'Pending'))
      workloads.store.updateStatus('Pod', 'default', pod.metadata.name!, { ...pod.status, phase: 'Succeeded' });
    await flushMicrotasks();
  }

  it('makes a Job <cronjob>-<minutes since the epoch> at each scheduled time, and records its completion', async () => {
    await apply();
    await clock.advance(5 * MINUTE - 1);
    expect(jobs()).toEqual([]);
    await clock.advance(1_000);
    const [job] = jobs();
    expect(job.metadata.name).toBe(jobName(5));
    expect(job.metadata.labels).toEqual({ app: 'tick' });
    expect(job.metadata.annotations).toEqual({ 'batch.kubernetes.io/cronjob-scheduled-timestamp': '2026-01-01T00:05:00Z' });
    expect(job.metadata.ownerReferences).toEqual([
      { apiVersion: 'batch/v1', kind: 'CronJob', name: 'tick', uid: get().metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(get().status).toEqual({
      active: [
        {
          kind: 'Job',
          namespace: 'default',
          name: jobName(5),
          uid: job.metadata.uid,
          apiVersion: 'batch/v1',
          resourceVersion: expect.any(String),
        },
      ],
      lastScheduleTime: '2026-01-01T00:05:00Z',
    });
    await finish(jobName(5));
    expect(get().status).toEqual({ lastScheduleTime: '2026-01-01T00:05:00Z', lastSuccessfulTime: rfc3339(clock.now()) });
    expect(cronEvents()).toEqual([
      `SuccessfulCreate: Created job ${jobName(5)}`,
      `SawCompletedJob: Saw completed job: ${jobName(5)}, condition: Complete`,
    ]);
    await until(10);
    expect(jobs().map((j) => j.metadata.name)).toEqual([jobName(5), jobName(10)]);
  });

  it('keeps the finished Jobs to the history limits, oldest deleted first', async () => {
    await apply({ successfulJobsHistoryLimit: 1 });
    for (let i = 1; i <= 3; i++) {
      await until(5 * i);
      await finish(jobName(5 * i));
    }
    expect(jobs().map((j) => j.metadata.name)).toEqual([jobName(15)]);
    expect(cronEvents().filter((e) => e.startsWith('SuccessfulDelete'))).toEqual([
      `SuccessfulDelete: Deleted job ${jobName(5)}`,
      `SuccessfulDelete: Deleted job ${jobName(10)}`,
    ]);
    // The Jobs' pods went with them.
    expect(workloads.store.list('Pod').map((p) => p.metadata.labels?.['job-name'])).toEqual([jobName(15)]);
  });

  it('Forbid skips a time while the last Job runs; Replace deletes it and starts the new one', async () => {
    await apply({ concurrencyPolicy: 'Forbid' });
    await until(10);
    expect(jobs().map((j) => j.metadata.name)).toEqual([jobName(5)]);
    expect(cronEvents()).toContain(
      'JobAlreadyActive: Not starting job because prior execution is running and concurrency policy is Forbid',
    );
    await apply({ concurrencyPolicy: 'Replace' });
    // The 00:10 run is still unmet (no startingDeadlineSeconds): it starts now, in place of 00:05's.
    expect(jobs().map((j) => j.metadata.name)).toEqual([jobName(10)]);
    await until(15);
    expect(jobs().map((j) => j.metadata.name)).toEqual([jobName(15)]);
    expect(get().status?.active?.map((r) => r.name)).toEqual([jobName(15)]);
    expect(cronEvents().slice(-4)).toEqual([
      `SuccessfulDelete: Deleted job ${jobName(5)}`,
      `SuccessfulCreate: Created job ${jobName(10)}`,
      `SuccessfulDelete: Deleted job ${jobName(10)}`,
      `SuccessfulCreate: Created job ${jobName(15)}`,
    ]);
    // The replaced Jobs' pods go with them (in the background: marked to stop), not orphaned.
    const pods = workloads.store.list<KubeObject>('Pod') as unknown as Pod[];
    expect(pods.map((p) => [p.metadata.labels?.['job-name'], p.metadata.deletionTimestamp !== undefined])).toEqual([
      [jobName(5), true],
      [jobName(10), true],
      [jobName(15), false],
    ]);
  });

  it('takes, when the CronJob is deleted without a policy, its Jobs and their pods: the garbage collector deletes in the background', async () => {
    await apply();
    await until(5);
    expect(workloads.store.list('Pod')).toHaveLength(1);
    workloads.store.delete('CronJob', 'default', 'tick');
    await flushMicrotasks();
    expect(jobs()).toEqual([]);
    const pods = workloads.store.list<KubeObject>('Pod');
    expect(pods.map((p) => [p.metadata.ownerReferences?.[0].kind, p.metadata.deletionTimestamp !== undefined])).toEqual([['Job', true]]);
  });

  it('Allow runs the Jobs side by side', async () => {
    await apply();
    await until(10);
    expect(get().status?.active?.map((r) => r.name)).toEqual([jobName(5), jobName(10)]);
  });

  it('reads the schedule in timeZone and writes the scheduled time with its offset', async () => {
    await apply({ schedule: '30 9 * * *', timeZone: 'Asia/Tokyo' });
    await until(30);
    const [job] = jobs();
    expect(job.metadata.name).toBe(jobName(30));
    expect(job.metadata.annotations?.['batch.kubernetes.io/cronjob-scheduled-timestamp']).toBe('2026-01-01T09:30:00+09:00');
  });

  it('starts nothing while suspended, and nothing later than startingDeadlineSeconds', async () => {
    await apply({ suspend: true, startingDeadlineSeconds: 60 });
    await until(7);
    expect(jobs()).toEqual([]);
    await apply({ suspend: false, startingDeadlineSeconds: 60 });
    // 00:05 was missed by more than a minute: the next Job is 00:10's.
    expect(jobs()).toEqual([]);
    await until(10);
    expect(jobs().map((j) => j.metadata.name)).toEqual([jobName(10)]);
  });
});
