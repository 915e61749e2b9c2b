// Which running pods a re-apply must sync before it ends (those whose
// volumes show a ConfigMap or Secret the apply made or changed), and the
// wait for their sync and readiness, over the real local controllers.
import { expect, it } from 'vitest';
import { changedMounts } from '../../../src/cli/apply-synced.js';
import type { Pod } from '../../../src/engine/api/v1.js';
import type { KubeObject } from '../../../src/engine/api/workloads.js';
import { EventStream } from '../../../src/engine/events.js';
import { FakeClock, flushMicrotasks } from '../../../src/util/clock.js';
import { startedWorkloads, webDeployment } from '../../helpers/workloads.js';

const configMap = (value: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'site' },
  data: { page: value },
});
const secret: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'token' }, data: { t: 'dA==' } };
/** Deployment NAME (app=NAME), two replicas whose pods have VOLUMES. */
function deployment(name: string, volumes: Pod['spec']['volumes']): KubeObject {
  const d = webDeployment(
    { name: 'c', image: 'busybox' },
    {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }], volumes } },
    },
  );
  return { ...d, metadata: { name } };
}
const mounting = deployment('web', [{ name: 'site', configMap: { name: 'site' } }]);
const projected = deployment('api', [{ name: 'all', projected: { sources: [{ secret: { name: 'token' } }] } }]);

it('names the pods that mount a ConfigMap or Secret changed since it began, and waits for their sync and readiness', async () => {
  const clock = new FakeClock();
  const workloads = startedWorkloads(clock);
  workloads.api.applyObjects('file', [configMap('one'), secret, mounting, projected]);
  await flushMicrotasks();
  const keys = ['Deployment/default/web', 'Deployment/default/api'];
  const events = new EventStream(() => clock.now());
  const ready = new Set<string>();
  const unchanged = changedMounts(events, workloads, (uid) => ready.has(uid));
  workloads.api.applyObjects('file', [configMap('one'), secret, mounting, projected]);
  await flushMicrotasks();
  expect(unchanged.mountersOfChanged(keys)).toEqual([]);
  unchanged.close();

  const mounts = changedMounts(events, workloads, (uid) => ready.has(uid));
  workloads.api.applyObjects('file', [configMap('two'), { ...secret, data: { t: 'dTI=' } }, mounting, projected]);
  await flushMicrotasks();
  const pods = mounts.mountersOfChanged(keys);
  expect(pods.map((p) => p.metadata.labels?.app).sort()).toEqual(['api', 'api', 'web', 'web']);
  expect(mounts.mountersOfChanged(['Deployment/default/web']).map((p) => p.metadata.labels?.app)).toEqual(['web', 'web']);

  let done = false;
  void mounts.wait(pods, new AbortController().signal).then(() => (done = true));
  const synced = (uid: string) =>
    events.emit({ type: 'PodSynced', pod: '', uid, detail: { updateType: 'sync', state: 'syncing', durationMs: 1 } });
  for (const p of pods) synced(p.metadata.uid!);
  await flushMicrotasks();
  expect(done).toBe(false); // synced, not ready again yet
  for (const p of pods.slice(1)) ready.add(p.metadata.uid!);
  synced(pods[1].metadata.uid!);
  await flushMicrotasks();
  expect(done).toBe(false);
  // A failed sync ends the wait for that pod too.
  events.emit({ type: 'SyncFailed', pod: '', uid: pods[0].metadata.uid!, reason: 'FailedMount', message: 'no key' });
  await flushMicrotasks();
  expect(done).toBe(true);
  mounts.close();
  workloads.stop();
});
