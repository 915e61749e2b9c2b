import { beforeEach, describe, expect, it } from 'vitest';
import { FakeClock, flushMicrotasks } from '../../../src/util/clock.js';
import { LocalWorkloads, type ControllerEvent } from '../../../src/controllers/index.js';
import { rfc3339, type Pod } from '../../../src/engine/api/v1.js';
import type { Job, KubeObject } from '../../../src/engine/api/workloads.js';

const NODE = 'n1';
const START = Date.UTC(2026, 0, 1);

function job(spec: Partial<Job['spec']> = {}): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'pi' },
    spec: {
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'busybox:1' }] } },
      ...spec,
    },
  };
}

describe('the local Job controller', () => {
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

  const pods = () => workloads.store.list<KubeObject>('Pod') as unknown as Pod[];
  const live = () => pods().filter((p) => !p.metadata.deletionTimestamp && !['Succeeded', 'Failed'].includes(p.status?.phase ?? ''));
  const get = () => workloads.store.get<Job>('Job', 'default', 'pi');
  const conditions = () => get()?.status?.conditions?.map((c) => [c.type, c.reason, c.message]);
  const messages = () => events.map((e) => `${e.reason}: ${e.message.replace(/-[a-z0-9]{5}$/, '-xxxxx')}`);
  const at = () => rfc3339(clock.now());

  async function apply(spec: Partial<Job['spec']> = {}): Promise<void> {
    workloads.api.applyObjects('file', [job(spec)]);
    await flushMicrotasks();
  }

  /** The kubelet: the pod's one container ran and exited with CODE now. */
  async function exit(pod: Pod, code: number): Promise<void> {
    workloads.store.updateStatus('Pod', 'default', pod.metadata.name!, {
      ...pod.status,
      phase: code === 0 ? 'Succeeded' : 'Failed',
      containerStatuses: [
        {
          name: 'pi',
          ready: false,
          restartCount: 0,
          image: 'busybox:1',
          imageID: '',
          state: { terminated: { exitCode: code, reason: code === 0 ? 'Completed' : 'Error', startedAt: at(), finishedAt: at() } },
        },
      ],
    });
    await flushMicrotasks();
  }

  /** The kubelet: every pod marked for deletion stopped and is deleted with grace 0. */
  async function reap(): Promise<void> {
    for (const pod of pods().filter((p) => p.metadata.deletionTimestamp))
      workloads.store.delete('Pod', 'default', pod.metadata.name!, { gracePeriodSeconds: 0 });
    await flushMicrotasks();
  }

  it('runs completions pods, parallelism at a time, and completes with the upstream conditions', async () => {
    await apply({ completions: 3, parallelism: 2 });
    const j = get()!;
    // As the apiserver stores it: the generated selector's labels on the Job too, since it had none.
    expect(j.metadata.labels).toEqual({
      'batch.kubernetes.io/controller-uid': j.metadata.uid,
      'batch.kubernetes.io/job-name': 'pi',
      'controller-uid': j.metadata.uid,
      'job-name': 'pi',
    });
    expect(live()).toHaveLength(2);
    for (const pod of pods()) {
      expect(pod.metadata.name).toMatch(/^pi-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      expect(pod.metadata.labels).toEqual({
        'batch.kubernetes.io/controller-uid': j.metadata.uid,
        'batch.kubernetes.io/job-name': 'pi',
        'controller-uid': j.metadata.uid,
        'job-name': 'pi',
      });
      expect(pod.metadata.ownerReferences).toEqual([
        { apiVersion: 'batch/v1', kind: 'Job', name: 'pi', uid: j.metadata.uid, controller: true, blockOwnerDeletion: true },
      ]);
      expect(pod.metadata.finalizers).toEqual(['batch.kubernetes.io/job-tracking']);
      expect(pod.spec.nodeName).toBe(NODE);
    }
    expect(get()!.status).toMatchObject({ startTime: at(), active: 2, ready: 0, terminating: 0 });
    await clock.advance(5_000);
    await exit(live()[0], 0);
    expect(live()).toHaveLength(2);
    expect(get()!.status).toMatchObject({ active: 2, succeeded: 1 });
    for (const pod of live()) await exit(pod, 0);
    expect(live()).toHaveLength(0);
    expect(pods().every((p) => !p.metadata.finalizers)).toBe(true);
    expect(get()!.status).toEqual({
      conditions: [
        {
          type: 'SuccessCriteriaMet',
          status: 'True',
          lastProbeTime: at(),
          lastTransitionTime: at(),
          reason: 'CompletionsReached',
          message: 'Reached expected number of succeeded pods',
        },
        {
          type: 'Complete',
          status: 'True',
          lastProbeTime: at(),
          lastTransitionTime: at(),
          reason: 'CompletionsReached',
          message: 'Reached expected number of succeeded pods',
        },
      ],
      startTime: rfc3339(START),
      completionTime: at(),
      succeeded: 3,
      terminating: 0,
      ready: 0,
      uncountedTerminatedPods: {},
    });
    expect(messages()).toEqual([
      'SuccessfulCreate: Created pod: pi-xxxxx',
      'SuccessfulCreate: Created pod: pi-xxxxx',
      'SuccessfulCreate: Created pod: pi-xxxxx',
      'Completed: Job completed',
    ]);
  });

  it('makes a new pod 10s, then 20s, after each failure, and fails with BackoffLimitExceeded past the limit', async () => {
    await apply({ backoffLimit: 2 });
    const created: number[] = [];
    for (let failure = 0; failure < 3; failure++) {
      expect(live()).toHaveLength(1);
      await exit(live()[0], 1);
      const failedAt = clock.now();
      for (let waited = 0; live().length === 0 && waited < 60_000; waited += 1_000) await clock.advance(1_000);
      if (live().length > 0) created.push(clock.now() - failedAt);
    }
    expect(created).toEqual([10_000, 20_000]);
    expect(get()!.status).toMatchObject({ failed: 3, terminating: 0 });
    expect(get()!.status?.active).toBeUndefined();
    expect(conditions()).toEqual([
      ['FailureTarget', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
      ['Failed', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit'],
    ]);
    expect(messages().slice(-1)).toEqual(['BackoffLimitExceeded: Job has reached the specified backoff limit']);
  });

  it('counts container restarts of an OnFailure pod toward backoffLimit and deletes the running pod', async () => {
    const spec = job({ backoffLimit: 2 }).spec as Job['spec'];
    spec.template.spec.restartPolicy = 'OnFailure';
    await apply(spec);
    const [pod] = live();
    workloads.store.updateStatus('Pod', 'default', pod.metadata.name!, {
      ...pod.status,
      phase: 'Running',
      containerStatuses: [
        { name: 'pi', ready: true, restartCount: 2, image: 'busybox:1', imageID: '', state: { running: { startedAt: at() } } },
      ],
    });
    await flushMicrotasks();
    expect(pods()[0].metadata.deletionTimestamp).toBeDefined();
    expect(conditions()).toEqual([['FailureTarget', 'BackoffLimitExceeded', 'Job has reached the specified backoff limit']]);
    expect(get()!.status).toMatchObject({ terminating: 1, failed: 1 });
    await reap();
    expect(conditions()?.map((c) => c[0])).toEqual(['FailureTarget', 'Failed']);
    expect(get()!.status?.terminating).toBe(0);
  });

  it('names Indexed pods <job>-<index>-<random> with the index annotation, label, env and hostname', async () => {
    await apply({ completions: 3, parallelism: 3, completionMode: 'Indexed' });
    const byIndex = pods().sort((a, b) => a.metadata.name!.localeCompare(b.metadata.name!));
    expect(byIndex.map((p) => p.metadata.name!.replace(/[a-z0-9]{5}$/, 'xxxxx'))).toEqual(['pi-0-xxxxx', 'pi-1-xxxxx', 'pi-2-xxxxx']);
    byIndex.forEach((pod, i) => {
      expect(pod.metadata.annotations).toEqual({ 'batch.kubernetes.io/job-completion-index': String(i) });
      expect(pod.metadata.labels?.['batch.kubernetes.io/job-completion-index']).toBe(String(i));
      expect(pod.spec.hostname).toBe(`pi-${i}`);
      expect(pod.spec.subdomain).toBeUndefined();
      expect(pod.spec.containers[0].env).toEqual([
        {
          name: 'JOB_COMPLETION_INDEX',
          valueFrom: { fieldRef: { fieldPath: "metadata.labels['batch.kubernetes.io/job-completion-index']" } },
        },
      ]);
    });
    await exit(byIndex[0], 0);
    await exit(byIndex[2], 0);
    expect(get()!.status).toMatchObject({ completedIndexes: '0,2', succeeded: 2 });
    await exit(byIndex[1], 0);
    expect(get()!.status).toMatchObject({ completedIndexes: '0-2', succeeded: 3 });
    expect(conditions()?.map((c) => c[0])).toEqual(['SuccessCriteriaMet', 'Complete']);
  });

  it('fails a Job active longer than activeDeadlineSeconds, after its pods are gone', async () => {
    await apply({ activeDeadlineSeconds: 30, parallelism: 2, completions: 4 });
    await clock.advance(29_000);
    expect(get()!.status?.conditions).toBeUndefined();
    await clock.advance(1_000);
    expect(conditions()).toEqual([['FailureTarget', 'DeadlineExceeded', 'Job was active longer than specified deadline']]);
    expect(pods().every((p) => p.metadata.deletionTimestamp)).toBe(true);
    await reap();
    expect(conditions()?.map((c) => c[0])).toEqual(['FailureTarget', 'Failed']);
    expect(get()!.status).toMatchObject({ failed: 2, terminating: 0 });
    expect(messages().filter((m) => m.startsWith('SuccessfulDelete'))).toHaveLength(2);
    expect(messages().slice(-1)).toEqual(['DeadlineExceeded: Job was active longer than specified deadline']);
  });

  it('fails the Job at once on a FailJob exit-code rule, and ignores failures an Ignore rule matches', async () => {
    const podFailurePolicy = {
      rules: [
        { action: 'Ignore' as const, onExitCodes: { operator: 'In' as const, values: [3] } },
        { action: 'FailJob' as const, onExitCodes: { containerName: 'pi', operator: 'In' as const, values: [42] } },
      ],
    };
    await apply({ backoffLimit: 0, podFailurePolicy });
    await exit(live()[0], 3);
    expect(get()!.status?.failed).toBeUndefined();
    // An ignored failure is not counted, but the back-off still waits it out, as upstream's does.
    await clock.advance(10_000);
    expect(live()).toHaveLength(1);
    const pod = live()[0];
    await exit(pod, 42);
    const message = `Container pi for pod default/${pod.metadata.name} failed with exit code 42 matching FailJob rule at index 1`;
    expect(conditions()).toEqual([
      ['FailureTarget', 'PodFailurePolicy', message],
      ['Failed', 'PodFailurePolicy', message],
    ]);
    expect(get()!.status?.failed).toBe(1);
  });

  it('does not count a failure an onPodConditions Ignore rule matches toward backoffLimit', async () => {
    await apply({ backoffLimit: 0, podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] } });
    const [pod] = live();
    workloads.store.updateStatus('Pod', 'default', pod.metadata.name!, {
      ...pod.status,
      phase: 'Failed',
      conditions: [...(pod.status?.conditions ?? []), { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI' }],
    });
    await flushMicrotasks();
    expect(get()!.status?.failed).toBeUndefined();
    expect(get()!.status?.conditions).toBeUndefined();
    await clock.advance(10_000);
    expect(live()).toHaveLength(1);
  });

  it('replaces a failed Indexed pod with one of the same index, after the back-off', async () => {
    await apply({ completions: 2, parallelism: 2, completionMode: 'Indexed', backoffLimit: 3 });
    const first = pods().find((p) => p.metadata.labels?.['batch.kubernetes.io/job-completion-index'] === '1')!;
    await exit(first, 1);
    await clock.advance(9_000);
    expect(live()).toHaveLength(1);
    await clock.advance(1_000);
    const again = live().find((p) => p.metadata.uid !== first.metadata.uid && p.metadata.name!.startsWith('pi-1-'));
    expect(again?.metadata.annotations?.['batch.kubernetes.io/job-completion-index']).toBe('1');
    expect(get()!.status).toMatchObject({ failed: 1, active: 2 });
  });

  it('deletes a finished Job with its pods ttlSecondsAfterFinished after it finished', async () => {
    await apply({ ttlSecondsAfterFinished: 60 });
    await exit(live()[0], 0);
    expect(conditions()?.map((c) => c[0])).toEqual(['SuccessCriteriaMet', 'Complete']);
    await clock.advance(59_000);
    expect(get()).toBeDefined();
    await clock.advance(1_000);
    expect(get()).toBeUndefined();
    expect(pods()).toEqual([]);
    // The source sends the same manifest again at its next read: the Job is not run again; a changed one is.
    await apply({ ttlSecondsAfterFinished: 60 });
    expect(get()).toBeUndefined();
    await apply({ ttlSecondsAfterFinished: 30 });
    expect(get()).toBeDefined();
  });

  it('deletes the finished Job in the foreground: a pod held by a finalizer keeps it, marked, until the pod goes', async () => {
    await apply({ ttlSecondsAfterFinished: 10 });
    const [pod] = live();
    await exit(pod, 0);
    const done = workloads.store.get<KubeObject>('Pod', 'default', pod.metadata.name!)!;
    workloads.store.update({ ...done, metadata: { ...done.metadata, finalizers: ['example.com/keep'] } });
    const seen: string[] = [];
    workloads.store.watch((e) => seen.push(`${e.type} ${e.object.kind} ${e.object.metadata.finalizers?.join() ?? ''}`.trim()));
    await clock.advance(10_000);
    expect(get()!.metadata).toMatchObject({ deletionTimestamp: at(), finalizers: ['foregroundDeletion'] });
    expect(pods()[0].metadata.deletionTimestamp).toBe(at());
    await clock.advance(60_000);
    expect(get()).toBeDefined(); // no second delete, no replacement pod
    expect(pods()).toHaveLength(1);
    const held = workloads.store.get<KubeObject>('Pod', 'default', pod.metadata.name!)!;
    workloads.store.update({ ...held, metadata: { ...held.metadata, finalizers: [] } });
    await flushMicrotasks();
    expect(get()).toBeUndefined();
    expect(seen).toEqual([
      'MODIFIED Job foregroundDeletion',
      'MODIFIED Pod example.com/keep',
      'MODIFIED Pod',
      'DELETED Pod',
      'MODIFIED Job',
      'DELETED Job',
    ]);
  });

  it('deletes the pods of a suspended Job and sets Suspended, then resumes with a new startTime', async () => {
    await apply({ parallelism: 2, completions: 2 });
    await clock.advance(5_000);
    await apply({ parallelism: 2, completions: 2, suspend: true });
    expect(live()).toEqual([]);
    expect(conditions()).toEqual([['Suspended', 'JobSuspended', 'Job suspended']]);
    expect(get()!.status?.startTime).toBeUndefined();
    await reap();
    expect(get()!.status).toMatchObject({ terminating: 0, ready: 0 });
    expect(get()!.status?.failed).toBeUndefined();
    await clock.advance(5_000);
    await apply({ parallelism: 2, completions: 2, suspend: false });
    expect(live()).toHaveLength(2);
    expect(conditions()).toEqual([['Suspended', 'JobResumed', 'Job resumed']]);
    expect(get()!.status?.startTime).toBe(at());
    expect(messages().filter((m) => /^(Suspended|Resumed)/.test(m))).toEqual(['Suspended: Job suspended', 'Resumed: Job resumed']);
  });

  it('counts a pod deleted by someone else as failed and replaces it', async () => {
    await apply({ backoffLimit: 3 });
    const [pod] = live();
    workloads.store.delete('Pod', 'default', pod.metadata.name!, { gracePeriodSeconds: 0 });
    await flushMicrotasks();
    expect(get()!.status?.failed).toBe(1);
    await clock.advance(10_000);
    expect(live()).toHaveLength(1);
  });
});
