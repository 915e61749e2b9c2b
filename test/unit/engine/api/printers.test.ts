import { describe, expect, it } from 'vitest';
import { humanDuration, podRow, type PodRow } from '../../../../src/engine/api/printers.js';
import type { Container, ContainerState, ContainerStatus, Pod, PodCondition, PodStatus } from '../../../../src/engine/api/v1.js';

// ---- builders ---------------------------------------------------------------

const c = (name: string): Container => ({ name, image: 'busybox' });
const sidecar = (name: string): Container => ({ ...c(name), restartPolicy: 'Always' });

function status(name: string, state: ContainerState, over: Partial<ContainerStatus> = {}): ContainerStatus {
  return { name, state, lastState: {}, ready: false, restartCount: 0, image: 'busybox', imageID: '', ...over };
}
const waiting = (name: string, reason?: string, over: Partial<ContainerStatus> = {}) =>
  status(name, { waiting: reason ? { reason } : {} }, over);
const running = (name: string, over: Partial<ContainerStatus> = {}) =>
  status(name, { running: { startedAt: '2026-01-01T00:00:00Z' } }, { ready: true, started: true, ...over });
const terminated = (name: string, exitCode: number, reason?: string, signal?: number, over: Partial<ContainerStatus> = {}) =>
  status(name, { terminated: { exitCode, ...(reason ? { reason } : {}), ...(signal ? { signal } : {}) } }, over);
/** A container that ran `restarts` times before, the last run ending at `finishedAt`. */
const restarted = (restarts: number, finishedAt: string) => ({
  restartCount: restarts,
  lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt } },
});

const readyTrue: PodCondition = { type: 'Ready', status: 'True' };
const initializedTrue: PodCondition = { type: 'Initialized', status: 'True' };

function pod(containers: Container[], st: PodStatus, opts: { inits?: Container[]; deletionTimestamp?: string } = {}): Pod {
  return {
    metadata: {
      name: 'web',
      namespace: 'default',
      uid: 'uid-1',
      creationTimestamp: '2026-01-01T00:00:00Z',
      ...(opts.deletionTimestamp ? { deletionTimestamp: opts.deletionTimestamp } : {}),
    },
    spec: { containers, ...(opts.inits ? { initContainers: opts.inits } : {}), nodeName: 'node-a' },
    status: st,
  };
}

const one = [c('app')];
const two = [c('a'), c('b')];
const T1 = '2026-01-01T00:01:00Z';
const T2 = '2026-01-01T00:02:00Z';

// ---- podRow: the table --------------------------------------------------------

interface Row {
  name: string;
  pod: Pod;
  want: Partial<PodRow>;
}

const rows: Row[] = [
  // Phase and the pod's own reason.
  {
    name: 'no container statuses yet: the phase',
    pod: pod(one, { phase: 'Pending' }),
    want: { status: 'Pending', ready: '0/1', restarts: 0 },
  },
  {
    name: 'every container running and ready',
    pod: pod(two, { phase: 'Running', containerStatuses: [running('a'), running('b')] }),
    want: { status: 'Running', ready: '2/2' },
  },
  {
    name: 'a running container that is not ready is not counted',
    pod: pod(two, { phase: 'Running', containerStatuses: [running('a'), running('b', { ready: false })] }),
    want: { status: 'Running', ready: '1/2' },
  },
  {
    name: "the pod's status.reason wins over the phase",
    pod: pod(one, { phase: 'Failed', reason: 'OutOfcpu' }),
    want: { status: 'OutOfcpu', ready: '0/1' },
  },

  // Init containers.
  {
    name: 'first init container running: Init:0/2',
    pod: pod(
      one,
      {
        phase: 'Pending',
        initContainerStatuses: [running('i1', { ready: false }), waiting('i2', 'PodInitializing')],
        containerStatuses: [waiting('app', 'PodInitializing')],
      },
      { inits: [c('i1'), c('i2')] },
    ),
    want: { status: 'Init:0/2', ready: '0/1' },
  },
  {
    name: 'first init container done, second running: Init:1/2',
    pod: pod(
      one,
      {
        phase: 'Pending',
        initContainerStatuses: [terminated('i1', 0, 'Completed'), running('i2', { ready: false })],
        containerStatuses: [waiting('app', 'PodInitializing')],
      },
      { inits: [c('i1'), c('i2')] },
    ),
    want: { status: 'Init:1/2' },
  },
  {
    name: 'init container waiting without a reason (status not filled in yet): Init:0/1',
    pod: pod(one, { phase: 'Pending', initContainerStatuses: [waiting('i1')] }, { inits: [c('i1')] }),
    want: { status: 'Init:0/1' },
  },
  {
    name: 'init container waiting with PodInitializing: Init:0/1',
    pod: pod(one, { phase: 'Pending', initContainerStatuses: [waiting('i1', 'PodInitializing')] }, { inits: [c('i1')] }),
    want: { status: 'Init:0/1' },
  },
  {
    name: 'init container in CrashLoopBackOff: Init:CrashLoopBackOff, its restarts counted',
    pod: pod(
      one,
      {
        phase: 'Pending',
        initContainerStatuses: [waiting('i1', 'CrashLoopBackOff', restarted(4, T1))],
        containerStatuses: [waiting('app', 'PodInitializing')],
      },
      { inits: [c('i1')] },
    ),
    want: { status: 'Init:CrashLoopBackOff', restarts: 4, lastRestart: Date.parse(T1) },
  },
  {
    name: 'init container waiting on its image: Init:ErrImagePull',
    pod: pod(one, { phase: 'Pending', initContainerStatuses: [waiting('i1', 'ErrImagePull')] }, { inits: [c('i1')] }),
    want: { status: 'Init:ErrImagePull' },
  },
  {
    name: 'init container failed with a reason: Init:Error',
    pod: pod(
      one,
      { phase: 'Failed', initContainerStatuses: [terminated('i1', 1, 'Error')], containerStatuses: [waiting('app', 'PodInitializing')] },
      { inits: [c('i1')] },
    ),
    want: { status: 'Init:Error' },
  },
  {
    name: 'init container failed without a reason: Init:ExitCode:3',
    pod: pod(one, { phase: 'Pending', initContainerStatuses: [terminated('i1', 3)] }, { inits: [c('i1')] }),
    want: { status: 'Init:ExitCode:3' },
  },
  {
    name: 'init container killed by a signal, no reason: Init:Signal:9',
    pod: pod(one, { phase: 'Pending', initContainerStatuses: [terminated('i1', 137, undefined, 9)] }, { inits: [c('i1')] }),
    want: { status: 'Init:Signal:9' },
  },
  {
    name: 'the first blocking init container decides, later ones are not looked at',
    pod: pod(
      one,
      {
        phase: 'Pending',
        initContainerStatuses: [
          terminated('i1', 0, 'Completed'),
          waiting('i2', 'CrashLoopBackOff', restarted(2, T1)),
          waiting('i3', 'ErrImagePull', restarted(5, T2)),
        ],
      },
      { inits: [c('i1'), c('i2'), c('i3')] },
    ),
    want: { status: 'Init:CrashLoopBackOff', restarts: 2, lastRestart: Date.parse(T1) },
  },

  // Restartable init containers (sidecars).
  {
    name: 'a started, ready sidecar counts in READY and does not block',
    pod: pod(
      one,
      { phase: 'Running', initContainerStatuses: [running('proxy')], containerStatuses: [running('app')] },
      { inits: [sidecar('proxy')] },
    ),
    want: { status: 'Running', ready: '2/2' },
  },
  {
    name: 'a started sidecar that is not ready is counted in the total only',
    pod: pod(
      one,
      { phase: 'Running', initContainerStatuses: [running('proxy', { ready: false })], containerStatuses: [running('app')] },
      { inits: [sidecar('proxy')] },
    ),
    want: { status: 'Running', ready: '1/2' },
  },
  {
    name: 'a sidecar not started yet keeps the pod initializing',
    pod: pod(
      one,
      {
        phase: 'Pending',
        initContainerStatuses: [running('proxy', { ready: false, started: false })],
        containerStatuses: [waiting('app', 'PodInitializing')],
      },
      { inits: [sidecar('proxy')] },
    ),
    want: { status: 'Init:0/1', ready: '0/2' },
  },
  {
    name: 'sidecar and regular container restarts are summed, the newest restart kept',
    pod: pod(
      one,
      {
        phase: 'Running',
        initContainerStatuses: [running('proxy', restarted(2, T2))],
        containerStatuses: [running('app', restarted(3, T1))],
      },
      { inits: [sidecar('proxy')] },
    ),
    want: { status: 'Running', ready: '2/2', restarts: 5, lastRestart: Date.parse(T2) },
  },

  // Regular containers.
  {
    name: 'a container in CrashLoopBackOff',
    pod: pod(one, { phase: 'Running', containerStatuses: [waiting('app', 'CrashLoopBackOff', restarted(3, T1))] }),
    want: { status: 'CrashLoopBackOff', ready: '0/1', restarts: 3, lastRestart: Date.parse(T1) },
  },
  {
    name: 'a container being created',
    pod: pod(one, { phase: 'Pending', containerStatuses: [waiting('app', 'ContainerCreating')] }),
    want: { status: 'ContainerCreating', ready: '0/1' },
  },
  {
    name: 'a waiting reason wins over a running sibling',
    pod: pod(two, { phase: 'Running', containerStatuses: [running('a'), waiting('b', 'ImagePullBackOff')] }),
    want: { status: 'ImagePullBackOff', ready: '1/2' },
  },
  {
    name: 'the first container with a reason decides (statuses read last to first)',
    pod: pod(two, { phase: 'Running', containerStatuses: [waiting('a', 'ErrImagePull'), waiting('b', 'CrashLoopBackOff')] }),
    want: { status: 'ErrImagePull' },
  },
  {
    name: 'all containers completed: Completed',
    pod: pod(one, { phase: 'Succeeded', containerStatuses: [terminated('app', 0, 'Completed')] }),
    want: { status: 'Completed', ready: '0/1' },
  },
  {
    name: 'a container failed: Error',
    pod: pod(one, { phase: 'Failed', containerStatuses: [terminated('app', 1, 'Error')] }),
    want: { status: 'Error', ready: '0/1' },
  },
  {
    name: 'terminated without a reason: ExitCode:2',
    pod: pod(one, { phase: 'Failed', containerStatuses: [terminated('app', 2)] }),
    want: { status: 'ExitCode:2' },
  },
  {
    name: 'terminated by a signal without a reason: Signal:15',
    pod: pod(one, { phase: 'Failed', containerStatuses: [terminated('app', 143, undefined, 15)] }),
    want: { status: 'Signal:15' },
  },
  {
    name: 'one completed, one still running, pod Ready: Running',
    pod: pod(two, { phase: 'Running', conditions: [readyTrue], containerStatuses: [running('a'), terminated('b', 0, 'Completed')] }),
    want: { status: 'Running', ready: '1/2' },
  },
  {
    name: 'one completed, one still running, pod not Ready: NotReady',
    pod: pod(two, {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'False' }],
      containerStatuses: [running('a'), terminated('b', 0, 'Completed')],
    }),
    want: { status: 'NotReady', ready: '1/2' },
  },
  {
    name: 'Completed stays when nothing runs any more',
    pod: pod(two, {
      phase: 'Succeeded',
      conditions: [readyTrue],
      containerStatuses: [terminated('a', 0, 'Completed'), terminated('b', 0, 'Completed')],
    }),
    want: { status: 'Completed', ready: '0/2' },
  },

  // Deletion.
  {
    name: 'a deleted running pod: Terminating',
    pod: pod(one, { phase: 'Running', containerStatuses: [running('app')] }, { deletionTimestamp: T1 }),
    want: { status: 'Terminating', ready: '1/1' },
  },
  {
    name: 'a deleted pod in CrashLoopBackOff: Terminating',
    pod: pod(one, { phase: 'Running', containerStatuses: [waiting('app', 'CrashLoopBackOff')] }, { deletionTimestamp: T1 }),
    want: { status: 'Terminating' },
  },

  // The other columns.
  {
    name: 'restarts without a last termination time: no lastRestart',
    pod: pod(one, { phase: 'Running', containerStatuses: [running('app', { restartCount: 2 })] }),
    want: { restarts: 2, lastRestart: undefined },
  },
  // Kubelet-parity rows (kubectl's printPod).
  {
    name: 'a Succeeded pod being deleted stays Completed',
    pod: pod(one, { phase: 'Succeeded', containerStatuses: [terminated('app', 0, 'Completed')] }, { deletionTimestamp: T2 }),
    want: { status: 'Completed' },
  },
  {
    name: 'a Failed pod being deleted stays Error',
    pod: pod(one, { phase: 'Failed', containerStatuses: [terminated('app', 1, 'Error')] }, { deletionTimestamp: T2 }),
    want: { status: 'Error' },
  },
  {
    name: 'a pod of a lost node being deleted is Unknown',
    pod: pod(one, { phase: 'Running', reason: 'NodeLost', containerStatuses: [running('app')] }, { deletionTimestamp: T2 }),
    want: { status: 'Unknown' },
  },
  {
    name: 'once initialized, a finished init container no longer counts its restarts',
    pod: pod(
      one,
      {
        phase: 'Running',
        initContainerStatuses: [terminated('i', 0, 'Completed', undefined, restarted(2, T1))],
        containerStatuses: [running('app')],
      },
      { inits: [c('i')] },
    ),
    want: { restarts: 0, lastRestart: undefined, status: 'Running' },
  },
  {
    name: 'with Initialized True the regular containers decide, even if an init status lags',
    pod: pod(
      one,
      {
        phase: 'Running',
        conditions: [initializedTrue],
        initContainerStatuses: [waiting('i', 'PodInitializing')],
        containerStatuses: [waiting('app', 'CrashLoopBackOff')],
      },
      { inits: [c('i')] },
    ),
    want: { status: 'CrashLoopBackOff' },
  },
  // kubectl remembers the time of any last termination; it shows it only beside a non-zero count.
  {
    name: 'a last termination without restarts: no restarts, the time kept',
    pod: pod(one, {
      phase: 'Running',
      containerStatuses: [running('app', { lastState: { terminated: { exitCode: 0, finishedAt: T1 } } })],
    }),
    want: { restarts: 0, lastRestart: Date.parse(T1) },
  },
];

describe('podRow', () => {
  it.each(rows)('$name', ({ pod: p, want }) => {
    const row = podRow(p);
    for (const [key, value] of Object.entries(want)) expect(row[key as keyof PodRow], key).toEqual(value);
  });

  it('fills name, namespace, creation time, IP and node', () => {
    const p = pod(one, { phase: 'Running', podIP: '10.0.0.7', containerStatuses: [running('app')] });
    expect(podRow(p)).toEqual({
      name: 'web',
      namespace: 'default',
      ready: '1/1',
      status: 'Running',
      restarts: 0,
      lastRestart: undefined,
      createdAt: Date.parse('2026-01-01T00:00:00Z'),
      ip: '10.0.0.7',
      node: 'node-a',
      nominatedNode: '',
      readinessGates: '<none>',
    });
  });

  it('counts the readiness gates whose condition is True', () => {
    const p = pod(one, { phase: 'Running', conditions: [{ type: 'example.com/lb', status: 'True' }] });
    p.spec.readinessGates = [{ conditionType: 'example.com/lb' }, { conditionType: 'example.com/dns' }];
    expect(podRow(p).readinessGates).toBe('1/2');
  });

  it('leaves IP and node empty and the namespace default when unset', () => {
    const p: Pod = { metadata: { name: 'x' }, spec: { containers: one } };
    expect(podRow(p)).toMatchObject({ namespace: 'default', ip: '', node: '', createdAt: 0, status: 'Pending', ready: '0/1' });
  });
});

// ---- humanDuration: kubectl's age format --------------------------------------

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

const durations: [number, string][] = [
  [-5 * s, '<invalid>'],
  [-1 * s, '0s'],
  [730 * d, '2y'],
  [800 * d, '2y70d'],
  [9 * 365 * d, '9y'],
  [0, '0s'],
  [999, '0s'],
  [45 * s, '45s'],
  [45 * s + 999, '45s'],
  [119 * s, '119s'],
  [120 * s, '2m'],
  [2 * m + 5 * s, '2m5s'],
  [9 * m + 59 * s, '9m59s'],
  [10 * m, '10m'],
  [10 * m + 30 * s, '10m'],
  [179 * m, '179m'],
  [180 * m, '3h'],
  [3 * h + 5 * m, '3h5m'],
  [7 * h + 59 * m, '7h59m'],
  [8 * h, '8h'],
  [8 * h + 30 * m, '8h'],
  [47 * h, '47h'],
  [48 * h, '2d'],
  [2 * d + 5 * h, '2d5h'],
  [7 * d + 23 * h, '7d23h'],
  [8 * d, '8d'],
  [8 * d + 23 * h, '8d'],
  [400 * d, '400d'],
  [-1500, '0s'],
];

describe('humanDuration', () => {
  it.each(durations)('%i ms → %s', (ms, want) => {
    expect(humanDuration(ms)).toBe(want);
  });
});
