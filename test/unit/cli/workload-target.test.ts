// kubectl's TYPE/NAME in logs, exec, attach and port-forward (src/cli/workload-target.ts):
// how an argument is read, and which pod of a workload each command takes.
// The orders are also set against the real kubectl's picks in
// test/integration/cluster.test.ts.
import { describe, expect, it } from 'vitest';
import { pickPod } from '../../../src/cli/workload-target.js';
import { parseTarget } from '../../../src/cli/target-kinds.js';
import type { Pod } from '../../../src/engine/api/v1.js';
import type { KubeObject } from '../../../src/engine/api/workloads.js';

const deployment = (name: string, app: string): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: { selector: { matchLabels: { app } } },
  }) as KubeObject;

interface Shape {
  phase?: string;
  node?: string;
  readyAt?: string;
  restarts?: number;
  created?: string;
  deleting?: string;
  namespace?: string;
}

const pod = (name: string, app: string, s: Shape = {}): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: s.namespace ?? 'default',
    labels: { app },
    creationTimestamp: s.created ?? '2026-12-01T00:00:00Z',
    ...(s.deleting ? { deletionTimestamp: s.deleting } : {}),
  },
  spec: { nodeName: s.node ?? 'n1', containers: [{ name: 'c', image: 'busybox' }] },
  status: {
    phase: (s.phase ?? 'Running') as 'Running',
    conditions: s.readyAt ? [{ type: 'Ready', status: 'True', lastTransitionTime: s.readyAt }] : [{ type: 'Ready', status: 'False' }],
    containerStatuses: [
      { name: 'c', image: 'busybox', imageID: '', ready: !!s.readyAt, restartCount: s.restarts ?? 0, state: {} },
    ] as NonNullable<Pod['status']>['containerStatuses'],
  },
});

const pick = (arg: string, objects: KubeObject[], pods: Pod[], purpose: 'logs' | 'attach') =>
  pickPod(parseTarget(arg, undefined), objects, pods, purpose).pod.metadata.name;

describe('a pod argument', () => {
  it('reads TYPE/NAME by kubectl’s names for the kind, NAMESPACE/NAME otherwise, and a bare NAME as a pod', () => {
    for (const type of ['deploy', 'deployment', 'deployments', 'Deployment', 'deployment.apps', 'deployments.apps'])
      expect(parseTarget(`${type}/web`, undefined)).toEqual({
        kind: 'Deployment',
        resource: 'deployments.apps',
        namespace: 'default',
        name: 'web',
      });
    expect(parseTarget('rs/web-1', 'shop')).toMatchObject({ kind: 'ReplicaSet', namespace: 'shop', name: 'web-1' });
    expect(parseTarget('sts/db', undefined)).toMatchObject({ kind: 'StatefulSet', resource: 'statefulsets.apps' });
    expect(parseTarget('ds/agent', undefined)).toMatchObject({ kind: 'DaemonSet' });
    expect(parseTarget('jobs.batch/pi', undefined)).toMatchObject({ kind: 'Job', resource: 'jobs.batch', name: 'pi' });
    expect(parseTarget('po/web-0', 'shop')).toEqual({ kind: 'Pod', resource: 'pods', namespace: 'shop', name: 'web-0' });
    expect(parseTarget('shop/web-0', undefined)).toMatchObject({ kind: 'Pod', namespace: 'shop', name: 'web-0' });
    expect(parseTarget('web-0', undefined)).toMatchObject({ kind: 'Pod', namespace: 'default', name: 'web-0' });
  });
});

describe('the pod of a workload', () => {
  const web = deployment('web', 'web');

  it('is one its selector matches, in its namespace, and says how many there were', () => {
    const pods = [pod('web-a', 'web'), pod('other', 'db'), pod('web-b', 'web', { namespace: 'shop' })];
    expect(pickPod(parseTarget('deploy/web', undefined), [web], pods, 'logs')).toMatchObject({
      pod: { metadata: { name: 'web-a' } },
      count: 1,
    });
  });

  it('for logs: the most restarted of pods ready alike; for exec, the least', () => {
    const pods = [
      pod('web-a', 'web', { readyAt: '2026-12-01T00:01:00Z', restarts: 3 }),
      pod('web-b', 'web', { readyAt: '2026-12-01T00:01:00Z' }),
    ];
    expect(pick('deploy/web', [web], pods, 'logs')).toBe('web-a');
    expect(pick('deploy/web', [web], pods, 'attach')).toBe('web-b');
  });

  it('puts assigned before unassigned, Running before Pending, ready before not, in both orders', () => {
    const pods = [
      pod('web-a', 'web', { node: '', phase: 'Pending' }),
      pod('web-b', 'web', { phase: 'Pending' }),
      pod('web-c', 'web'),
      pod('web-d', 'web', { readyAt: '2026-12-01T00:01:00Z', restarts: 5 }),
    ];
    for (const purpose of ['logs', 'attach'] as const) expect(pick('deploy/web', [web], pods, purpose)).toBe('web-d');
    expect(pickPod(parseTarget('deploy/web', undefined), [web], pods, 'logs').sorted.map((p) => p.metadata.name)).toEqual([
      'web-d',
      'web-c',
      'web-b',
      'web-a',
    ]);
    expect(pick('deploy/web', [web], pods.slice(0, 2), 'attach')).toBe('web-b');
  });

  it('for logs: ready longest, even while deleted; for exec: not being deleted, then ready longest', () => {
    const pods = [
      pod('web-a', 'web', { readyAt: '2026-12-01T00:00:10Z', deleting: '2026-12-01T00:05:00Z' }),
      pod('web-b', 'web', { readyAt: '2026-12-01T00:03:00Z' }),
      pod('web-c', 'web', { readyAt: '2026-12-01T00:02:00Z' }),
    ];
    expect(pick('deploy/web', [web], pods, 'logs')).toBe('web-a');
    expect(pick('deploy/web', [web], pods, 'attach')).toBe('web-c');
  });

  it('for logs: the oldest of pods alike otherwise; for exec, the oldest too', () => {
    const pods = [pod('web-a', 'web', { created: '2026-12-01T00:02:00Z' }), pod('web-b', 'web', { created: '2026-12-01T00:01:00Z' })];
    expect(pick('deploy/web', [web], pods, 'logs')).toBe('web-b');
    expect(pick('deploy/web', [web], pods, 'attach')).toBe('web-b');
  });

  it('is refused in kubectl’s words when the workload is not there, and plainly when it has no pod here', () => {
    expect(() => pick('deploy/api', [web], [], 'logs')).toThrow('Error from server (NotFound): deployments.apps "api" not found');
    expect(() => pick('job/web', [web], [], 'logs')).toThrow('Error from server (NotFound): jobs.batch "web" not found');
    expect(() => pick('deploy/web', [web], [pod('db-a', 'db')], 'attach')).toThrow(
      'error: deployments.apps "web" has no pods on this node',
    );
  });
});
