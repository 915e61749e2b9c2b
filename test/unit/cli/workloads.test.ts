// The workloads' rows on the node's event stream, through the real local
// controllers and their store: a row when it changes, none when it does not,
// a ReplicaSet shown through its Deployment, and every row again on announce.
import { expect, it } from 'vitest';
import { startWorkloads } from '../../../src/cli/workloads.js';
import { EventStream, type LifecycleEvent } from '../../../src/engine/events.js';
import { FakeClock, flushMicrotasks } from '../../../src/util/clock.js';
import type { Pod } from '../../../src/engine/api/v1.js';
import type { KubeObject } from '../../../src/engine/api/workloads.js';
import { testWorkloads, webDeployment } from '../../helpers/workloads.js';

it('reports each workload row as it changes, and all of them again when asked', async () => {
  const clock = new FakeClock();
  const workloads = testWorkloads(clock);
  const events = new EventStream(() => clock.now());
  const rows: LifecycleEvent[] = [];
  events.subscribe((e) => {
    if (e.type === 'WorkloadStatus') rows.push(e);
  });
  const face = startWorkloads(workloads, events, { pressure: () => [], staticPods: () => [] });
  workloads.api.applyObjects('file', [webDeployment({ name: 'c', image: 'busybox' })]);
  await flushMicrotasks();
  const details = rows.map((e) => e.type === 'WorkloadStatus' && e.detail);
  expect(details.every((d) => d && d.kind === 'Deployment')).toBe(true);
  expect(details.at(-1)).toEqual({
    kind: 'Deployment',
    namespace: 'default',
    name: 'web',
    resource: 'deployment.apps',
    cells: [
      ['READY', '0/2'],
      ['UP-TO-DATE', '2'],
      ['AVAILABLE', '0'],
    ],
  });
  // No two rows in a row are the same: a write that changes nothing shown says nothing.
  const texts = details.map((d) => JSON.stringify(d));
  expect(texts.some((t, i) => i > 0 && t === texts[i - 1])).toBe(false);
  const before = rows.length;
  face.announce();
  expect(rows.length).toBe(before + 1);
  expect(rows.at(-1)!.message).toBe('READY 0/2, UP-TO-DATE 2, AVAILABLE 0');
  workloads.api.applyObjects('file', []);
  await flushMicrotasks();
  expect(rows.at(-1)!.type === 'WorkloadStatus' && rows.at(-1)!.detail).toMatchObject({ name: 'web', deleted: true });
  workloads.stop();
});

it('places no pod until the node’s pressure is known, then places them, a daemon pod too', async () => {
  const clock = new FakeClock();
  const workloads = testWorkloads(clock);
  const events = new EventStream(() => clock.now());
  let known!: () => void;
  const pressureKnown = new Promise<void>((resolve) => (known = resolve));
  startWorkloads(workloads, events, { pressure: () => [], staticPods: () => [], pressureKnown });
  const daemon = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent' },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    },
  };
  workloads.api.applyObjects('file', [webDeployment({ name: 'c', image: 'busybox' }), daemon]);
  await flushMicrotasks();
  const pods = () => workloads.store.list<KubeObject>('Pod') as unknown as Pod[];
  expect(pods().map((p) => p.metadata.labels?.app)).toEqual(['web', 'web']);
  for (const p of pods()) {
    expect(p.spec.nodeName).toBeUndefined();
    expect(p.status?.conditions?.find((c) => c.type === 'PodScheduled')).toMatchObject({
      status: 'False',
      reason: 'Unschedulable',
      message: expect.stringContaining('1 node(s) had untolerated taint(s)'),
    });
  }
  known();
  await flushMicrotasks();
  expect(
    pods()
      .map((p) => p.metadata.labels?.app)
      .sort(),
  ).toEqual(['agent', 'web', 'web']);
  expect(pods().every((p) => p.spec.nodeName === 'n1')).toBe(true);
  workloads.stop();
});
