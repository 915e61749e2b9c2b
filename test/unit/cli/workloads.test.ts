// The workloads' rows on the node's event stream, through the real local
// controllers and their store: a row when it changes, none when it does not,
// a ReplicaSet shown through its Deployment, and every row again on announce.
import { expect, it } from 'vitest';
import { LocalWorkloads } from '../../../src/controllers/index.js';
import { startWorkloads } from '../../../src/cli/workloads.js';
import { EventStream, type LifecycleEvent } from '../../../src/engine/events.js';
import { FakeClock, flushMicrotasks } from '../../../src/util/clock.js';
import { webDeployment } from '../../helpers/workloads.js';

it('reports each workload row as it changes, and all of them again when asked', async () => {
  const clock = new FakeClock();
  let seed = 0;
  // Names from a varying source: a constant one would draw the same pod name for ever.
  const random = () => (seed++ * 0.37) % 1;
  const workloads = new LocalWorkloads({ nodeName: 'n1', nodeLabels: { 'kubernetes.io/hostname': 'n1' }, clock, random });
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
  expect(rows.at(-1)!.message).toBe('deployment.apps/web: READY 0/2, UP-TO-DATE 2, AVAILABLE 0');
  workloads.api.applyObjects('file', []);
  await flushMicrotasks();
  expect(rows.at(-1)!.type === 'WorkloadStatus' && rows.at(-1)!.detail).toMatchObject({ name: 'web', deleted: true });
  workloads.stop();
});
