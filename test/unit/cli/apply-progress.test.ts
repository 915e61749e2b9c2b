// What apply's task list reads of the workloads, through the real local
// controllers and their store: kubectl's names, the progress words, each
// pod's STATUS and whether its workload counts it done, and a change told
// once, until apply stops waiting.
import { beforeEach, describe, expect, it } from 'vitest';
import { workloadFeed, workloadProgress } from '../../../src/cli/apply-progress.js';
import type { LocalWorkloads } from '../../../src/controllers/index.js';
import { rfc3339, type Pod } from '../../../src/engine/api/v1.js';
import type { KubeObject } from '../../../src/engine/api/workloads.js';
import type { WorkloadProgress } from '../../../src/ui/workload-tasks.js';
import { FakeClock, flushMicrotasks } from '../../../src/util/clock.js';
import { startedWorkloads, webDeployment } from '../../helpers/workloads.js';

const container = { name: 'main', image: 'busybox:1.36' };

const deployment = webDeployment(container);

const job = (namespace?: string): KubeObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'pi', ...(namespace ? { namespace } : {}) },
  spec: { backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [container] } } },
});

describe('the workloads as apply shows them', () => {
  let clock: FakeClock;
  let workloads: LocalWorkloads;

  beforeEach(() => {
    clock = new FakeClock();
    workloads = startedWorkloads(clock);
  });

  const pods = (namespace = 'default') => workloads.store.list<KubeObject>('Pod', namespace) as unknown as Pod[];

  /** What the kubelet would write for POD. */
  async function report(pod: Pod, status: Pod['status']): Promise<void> {
    workloads.store.updateStatus('Pod', pod.metadata.namespace!, pod.metadata.name!, status);
    await flushMicrotasks();
    // The feed tells once a turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
  }

  const running = (ready: boolean): Pod['status'] => ({
    phase: 'Running',
    conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: rfc3339(clock.now()) }],
    containerStatuses: [
      { name: 'main', image: 'busybox:1.36', imageID: '', ready, restartCount: 0, state: { running: { startedAt: rfc3339(clock.now()) } } },
    ],
  });

  it('shows a Deployment with its pods, each done once Ready, and the Deployment ready once all are', async () => {
    workloads.api.applyObjects('file', [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: {} }, deployment]);
    await flushMicrotasks();
    const feed = workloadFeed(workloads, workloads.api.keysFrom('file'));
    const seen: WorkloadProgress[] = [];
    feed.subscribe((w) => seen.push(w));
    // The ConfigMap is no workload: it has nothing to wait for or to show under it.
    expect(feed.current().map((w) => w.key)).toEqual(['Deployment/default/web']);
    const [first] = feed.current();
    expect(first).toMatchObject({ name: 'deployment.apps/web', summary: '0/2 ready', state: 'waiting' });
    expect(first.pods.map((p) => [p.ready, p.status, p.state])).toEqual([
      ['0/1', 'Pending', 'waiting'],
      ['0/1', 'Pending', 'waiting'],
    ]);
    expect(first.pods[0].name).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]+-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(first.pods[0].ref).toBe(`default/${first.pods[0].name}`);

    const [a, b] = pods();
    await report(a, running(false));
    expect(seen.at(-1)!.pods.find((p) => p.name === a.metadata.name)).toMatchObject({ status: 'Running', ready: '0/1', state: 'waiting' });
    await report(a, running(true));
    expect(seen.at(-1)!.pods.find((p) => p.name === a.metadata.name)).toMatchObject({ ready: '1/1', state: 'done' });
    expect(seen.at(-1)!.summary).toBe('1/2 ready');
    await report(b, running(true));
    expect(seen.at(-1)).toMatchObject({ summary: '2/2 ready', state: 'ready', message: 'deployment "web" successfully rolled out' });

    // Nothing shown changed: nothing told.
    const told = seen.length;
    workloads.store.update({ ...workloads.store.get('ConfigMap', 'default', 'c')!, data: { k: 'v' } });
    await flushMicrotasks();
    expect(seen.length).toBe(told);
    workloads.stop();
  });

  it('shows a Job outside the default namespace, its failed pod with the exit code, and the Job failed', async () => {
    workloads.api.applyObjects('file', [job('batch')]);
    await flushMicrotasks();
    const feed = workloadFeed(workloads, workloads.api.keysFrom('file'));
    expect(feed.current()[0]).toMatchObject({ name: 'job.batch/pi -n batch', summary: '0/1 complete', state: 'waiting' });
    const [pod] = pods('batch');
    await report(pod, {
      phase: 'Failed',
      containerStatuses: [
        {
          name: 'main',
          image: 'busybox:1.36',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode: 3, reason: 'Error', startedAt: rfc3339(0), finishedAt: rfc3339(clock.now()) } },
        },
      ],
    });
    const [failed] = feed.current();
    expect(failed.pods).toEqual([
      expect.objectContaining({ status: 'Error', state: 'failed', message: 'container main exited with code 3' }),
    ]);
    expect(failed).toMatchObject({
      summary: '0/1 complete, 1 failed',
      state: 'failed',
      message: 'job "pi" failed: BackoffLimitExceeded: Job has reached the specified backoff limit',
    });
    workloads.stop();
  });

  it("names the container of a waiting pod that keeps failing, with the command that shows its output or the kubelet's message", async () => {
    workloads.api.applyObjects('file', [deployment]);
    await flushMicrotasks();
    const [a] = pods();
    const exited = { exitCode: 1, reason: 'Error', startedAt: rfc3339(0), finishedAt: rfc3339(clock.now()) };
    const main = { name: 'main', image: 'busybox:1.36', imageID: '', ready: false };
    const pod = () => workloadProgress(workloads, 'Deployment/default/web').pods.find((p) => p.name === a.metadata.name)!;
    // Ended, not restarted yet: its current instance's output.
    await report(a, { phase: 'Running', containerStatuses: [{ ...main, restartCount: 0, state: { terminated: exited } }] });
    expect(pod()).toMatchObject({
      state: 'waiting',
      message: `container main exited with code 1 (knode logs ${a.metadata.name} -c main)`,
    });
    // In its back-off: the instance before.
    await report(a, {
      phase: 'Running',
      containerStatuses: [
        { ...main, restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: exited } },
      ],
    });
    expect(pod()).toMatchObject({
      status: 'CrashLoopBackOff',
      message: `container main exited with code 1 (knode logs ${a.metadata.name} -c main --previous)`,
    });
    // Running, nothing ended before: nothing to tell.
    await report(a, running(false));
    expect(pod().message).toBeUndefined();
    // Waiting with the kubelet's message: the message.
    await report(a, {
      phase: 'Pending',
      containerStatuses: [
        { ...main, restartCount: 0, state: { waiting: { reason: 'ErrImagePull', message: 'failed to pull "busybx:1.36": not found' } } },
      ],
    });
    expect(pod().message).toBe('container main: failed to pull "busybx:1.36": not found');
    workloads.stop();
  });

  it('counts a Job pod done when it succeeds, not when it is Ready', async () => {
    workloads.api.applyObjects('file', [job()]);
    await flushMicrotasks();
    const [pod] = pods();
    await report(pod, running(true));
    expect(workloadProgress(workloads, 'Job/default/pi').pods[0].state).toBe('waiting');
    await report(pod, { ...running(false), phase: 'Succeeded' });
    expect(workloadProgress(workloads, 'Job/default/pi')).toMatchObject({ summary: '1/1 complete', state: 'ready' });
    expect(workloadProgress(workloads, 'Job/default/pi').pods[0].state).toBe('done');
    workloads.stop();
  });

  it('tells once a turn what changed in it, and what changed last before why the waiting ended', async () => {
    workloads.api.applyObjects('file', [deployment]);
    await flushMicrotasks();
    const feed = workloadFeed(workloads, workloads.api.keysFrom('file'));
    const seen: WorkloadProgress[] = [];
    feed.subscribe((w) => seen.push(w));
    const [a, b] = pods();
    workloads.store.updateStatus('Pod', 'default', a.metadata.name!, running(true));
    await flushMicrotasks();
    workloads.store.updateStatus('Pod', 'default', b.metadata.name!, running(false));
    await flushMicrotasks();
    expect(seen).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen.map((w) => w.summary)).toEqual(['1/2 ready']);
    // Ready in the turn apply stops waiting: told as ready, then the end.
    workloads.store.updateStatus('Pod', 'default', b.metadata.name!, running(true));
    await flushMicrotasks();
    feed.finish('done waiting');
    expect(seen.map((w) => [w.summary, w.state])).toEqual([
      ['1/2 ready', 'waiting'],
      ['2/2 ready', 'ready'],
    ]);
    expect(await feed.ended).toBe('done waiting');
    workloads.stop();
  });

  it('tells why apply stopped waiting, and nothing after', async () => {
    workloads.api.applyObjects('file', [deployment]);
    await flushMicrotasks();
    const feed = workloadFeed(workloads, workloads.api.keysFrom('file'));
    const seen: WorkloadProgress[] = [];
    feed.subscribe((w) => seen.push(w));
    feed.finish('timed out after 5s');
    expect(await feed.ended).toBe('timed out after 5s');
    await report(pods()[0], running(true));
    expect(seen).toEqual([]);
    expect(workloadProgress(workloads, 'Deployment/default/gone')).toMatchObject({ state: 'failed', summary: 'deleted' });
    workloads.stop();
  });
});
