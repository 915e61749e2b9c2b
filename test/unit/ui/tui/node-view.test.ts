import { describe, expect, it } from 'vitest';
import type { LifecycleEvent, LifecycleEventType } from '../../../../src/engine/events.js';
import { applyEvent, emptyNodeView, type NodeView, type PodView } from '../../../../src/ui/tui/node-view.js';

// ---- helpers ----------------------------------------------------------------

/** The fields a test sets; a detail may be partial, as the view keeps what it had for a field left out. */
type Over = Partial<Omit<LifecycleEvent, 'type' | 'detail'>> & { detail?: object };

const node = (type: LifecycleEventType, over: Over = {}) => ({ type, pod: '', uid: '', at: 1000, ...over }) as LifecycleEvent;
const podEvent = (type: LifecycleEventType, over: Over = {}) =>
  ({ type, pod: 'default/web', uid: 'uid-web', at: 1000, ...over }) as LifecycleEvent;

function fold(events: LifecycleEvent[]): NodeView {
  return events.reduce((view, e) => applyEvent(view, e), emptyNodeView());
}
const web = (view: NodeView): PodView | undefined => view.pods.get('uid-web');

const nodeStarted = node('NodeStarted', {
  detail: { nodeName: 'node-a', runtimeName: 'knode-runtime', runtimeVersion: '0.1.0', sources: ['file', 'http'], evented: false },
});
const statusChanged = (detail: object, at = 1000) => podEvent('StatusChanged', { at, detail });

// ---- the table --------------------------------------------------------------

interface Row {
  name: string;
  events: LifecycleEvent[];
  /** Picks what the row is about out of the view. */
  pick: (view: NodeView) => unknown;
  want: unknown;
}

const rows: Row[] = [
  // The node.
  {
    name: 'an empty view',
    events: [],
    pick: (v) => v,
    want: {
      nodeName: '',
      runtime: '',
      sources: new Map(),
      plegMode: 'starting',
      runtimeHealthy: true,
      pods: new Map(),
      workloads: new Map(),
      events: [],
    },
  },
  {
    name: 'NodeStarted fills the node name and runtime',
    events: [nodeStarted],
    pick: (v) => [v.nodeName, v.runtime],
    want: ['node-a', 'knode-runtime 0.1.0'],
  },
  {
    name: 'NodeStarted lists its sources, none ready yet',
    events: [nodeStarted],
    pick: (v) => v.sources,
    want: new Map([
      ['file', false],
      ['http', false],
    ]),
  },
  {
    name: 'SourceReady marks a source ready',
    events: [nodeStarted, node('SourceReady', { detail: { source: 'file' } })],
    pick: (v) => v.sources,
    want: new Map([
      ['file', true],
      ['http', false],
    ]),
  },
  {
    name: 'a source ready before NodeStarted stays ready',
    events: [node('SourceReady', { detail: { source: 'http' } }), nodeStarted],
    pick: (v) => v.sources,
    want: new Map([
      ['http', true],
      ['file', false],
    ]),
  },
  {
    name: 'PLEGRelist with a mode sets the PLEG mode',
    events: [node('PLEGRelist', { reason: 'EventedPLEG', detail: { mode: 'evented' } })],
    pick: (v) => [v.plegMode, v.lastRelistMs],
    want: ['evented', undefined],
  },
  {
    name: 'PLEGRelist with a duration sets the last relist time, mode unchanged',
    events: [node('PLEGRelist', { detail: { durationMs: 3.5, pods: 2, containers: 3, events: 0 } })],
    pick: (v) => [v.plegMode, v.lastRelistMs],
    want: ['starting', 3.5],
  },
  {
    name: 'PLEGRelist keeps the last mode through later relists',
    events: [node('PLEGRelist', { detail: { mode: 'generic' } }), node('PLEGRelist', { detail: { durationMs: 1.25 } })],
    pick: (v) => [v.plegMode, v.lastRelistMs],
    want: ['generic', 1.25],
  },
  { name: 'RuntimeUnhealthy', events: [node('RuntimeUnhealthy')], pick: (v) => v.runtimeHealthy, want: false },
  {
    name: 'RuntimeHealthy after RuntimeUnhealthy',
    events: [node('RuntimeUnhealthy'), node('RuntimeHealthy')],
    pick: (v) => v.runtimeHealthy,
    want: true,
  },
  { name: 'NodeShutdown: the node drains', events: [node('NodeShutdown')], pick: (v) => v.draining, want: true },
  {
    name: 'node-level events make no pod',
    events: [nodeStarted, node('SourceReady', { detail: { source: 'file' } }), node('PLEGRelist', { detail: { durationMs: 1 } })],
    pick: (v) => v.pods.size,
    want: 0,
  },

  // A pod.
  {
    name: 'a pod first seen starts Pending, syncing, at the event time',
    events: [podEvent('PodSeen', { at: 4242 })],
    pick: web,
    want: {
      pod: 'default/web',
      uid: 'uid-web',
      phase: 'Pending',
      status: 'Pending',
      ready: '0/0',
      restarts: 0,
      worker: 'syncing',
      containers: new Map(),
      seenAt: 4242,
    },
  },
  {
    name: 'StatusChanged sets phase, status, ready and restarts',
    events: [statusChanged({ phase: 'Running', version: 3, status: 'Running', ready: '1/2', restarts: 3, ip: '10.0.0.7', containers: [] })],
    pick: (v) => {
      const p = web(v)!;
      return [p.phase, p.status, p.ready, p.restarts];
    },
    want: ['Running', 'Running', '1/2', 3],
  },
  {
    name: 'StatusChanged sets the containers, with their state, reason and restarts',
    events: [
      statusChanged({
        phase: 'Running',
        status: 'CrashLoopBackOff',
        ready: '1/3',
        restarts: 5,
        containers: [
          { name: 'setup', state: 'exited', reason: 'Completed', restartCount: 0 },
          { name: 'app', state: 'running', reason: '', restartCount: 2 },
          { name: 'side', state: 'waiting', reason: 'CrashLoopBackOff', restartCount: 5 },
        ],
      }),
    ],
    pick: (v) => web(v)!.containers,
    want: new Map([
      ['setup', { name: 'setup', state: 'exited', reason: 'Completed', restartCount: 0 }],
      ['app', { name: 'app', state: 'running', reason: '', restartCount: 2 }],
      ['side', { name: 'side', state: 'waiting', reason: 'CrashLoopBackOff', restartCount: 5 }],
    ]),
  },
  {
    name: 'a later StatusChanged updates a container in place',
    events: [
      statusChanged({ containers: [{ name: 'app', state: 'waiting', reason: 'ContainerCreating', restartCount: 0 }] }),
      statusChanged({ containers: [{ name: 'app', state: 'running', reason: '', restartCount: 0 }] }),
    ],
    pick: (v) => [...web(v)!.containers.values()],
    want: [{ name: 'app', state: 'running', reason: '', restartCount: 0 }],
  },
  {
    name: 'StatusChanged without fields keeps what the pod had',
    events: [statusChanged({ phase: 'Running', status: 'Running', ready: '1/1', restarts: 2 }), statusChanged({ version: 4 })],
    pick: (v) => {
      const p = web(v)!;
      return [p.phase, p.status, p.ready, p.restarts];
    },
    want: ['Running', 'Running', '1/1', 2],
  },
  {
    name: 'PodRejected: worker rejected, status the reason',
    events: [podEvent('PodRejected', { reason: 'OutOfcpu', message: 'not enough cpu' })],
    pick: (v) => [web(v)!.worker, web(v)!.status],
    want: ['rejected', 'OutOfcpu'],
  },
  { name: 'PodTerminating', events: [podEvent('PodSeen'), podEvent('PodTerminating')], pick: (v) => web(v)!.worker, want: 'terminating' },
  {
    name: 'PodTerminated',
    events: [podEvent('PodSeen'), podEvent('PodTerminating'), podEvent('PodTerminated')],
    pick: (v) => web(v)!.worker,
    want: 'terminated',
  },
  {
    name: 'WorkerFinished',
    events: [podEvent('PodSeen'), podEvent('PodTerminated'), podEvent('WorkerFinished')],
    pick: (v) => web(v)!.worker,
    want: 'finished',
  },
  { name: 'WorkerFinished of a pod never seen makes no pod', events: [podEvent('WorkerFinished')], pick: (v) => v.pods.size, want: 0 },
  {
    name: 'PodRemoved of a running worker: terminating',
    events: [podEvent('PodSeen'), podEvent('PodRemoved')],
    pick: (v) => web(v)!.worker,
    want: 'terminating',
  },
  {
    name: 'PodRemoved after WorkerFinished stays finished',
    events: [podEvent('PodSeen'), podEvent('WorkerFinished'), podEvent('PodRemoved')],
    pick: (v) => web(v)!.worker,
    want: 'finished',
  },
  { name: 'PodSynced sets the last sync', events: [podEvent('PodSynced', { at: 7000 })], pick: (v) => web(v)!.lastSync, want: 7000 },
  {
    name: 'SyncFailed sets the last error',
    events: [podEvent('SyncFailed', { message: 'CreatePodSandbox failed' })],
    pick: (v) => web(v)!.lastError,
    want: 'CreatePodSandbox failed',
  },
  {
    name: 'PodSynced clears the last error',
    events: [podEvent('SyncFailed', { message: 'boom' }), podEvent('PodSynced', { at: 8000 })],
    pick: (v) => [web(v)!.lastError, web(v)!.lastSync],
    want: [undefined, 8000],
  },
  {
    name: 'ContainerBackOff with remainingMs sets when the back-off ends',
    events: [podEvent('ContainerBackOff', { at: 1000, container: 'app', reason: 'BackOff', detail: { remainingMs: 10_000 } })],
    pick: (v) => web(v)!.backoffUntil,
    want: 11_000,
  },
  {
    name: 'ContainerBackOff without remainingMs sets nothing',
    events: [podEvent('ContainerBackOff', { container: 'app', reason: 'BackOff' })],
    pick: (v) => web(v)!.backoffUntil,
    want: undefined,
  },
  {
    name: 'a status other than CrashLoopBackOff clears the back-off',
    events: [podEvent('ContainerBackOff', { at: 1000, detail: { remainingMs: 10_000 } }), statusChanged({ status: 'Running' }, 2000)],
    pick: (v) => web(v)!.backoffUntil,
    want: undefined,
  },
  {
    name: 'a CrashLoopBackOff status keeps the back-off',
    events: [
      podEvent('ContainerBackOff', { at: 1000, detail: { remainingMs: 10_000 } }),
      statusChanged({ status: 'CrashLoopBackOff' }, 2000),
    ],
    pick: (v) => web(v)!.backoffUntil,
    want: 11_000,
  },
  {
    name: 'ContainerStarted: the container runs, with its restart count',
    events: [
      podEvent('ContainerStarted', { container: 'app', detail: { containerId: 'c1', restartCount: 2, containerType: 'container' } }),
    ],
    pick: (v) => web(v)!.containers.get('app'),
    want: { name: 'app', state: 'running', reason: '', restartCount: 2 },
  },
  {
    name: 'ContainerWaiting: the container waits with its reason, the message is the last error',
    events: [podEvent('ContainerWaiting', { container: 'app', reason: 'ErrImagePull', message: 'pull access denied' })],
    pick: (v) => [web(v)!.containers.get('app'), web(v)!.lastError],
    want: [{ name: 'app', state: 'waiting', reason: 'ErrImagePull', restartCount: 0 }, 'pull access denied'],
  },
  {
    name: 'pods are kept apart by uid',
    events: [podEvent('PodSeen'), podEvent('PodSeen', { pod: 'default/db', uid: 'uid-db' })],
    pick: (v) => [...v.pods.keys()],
    want: ['uid-web', 'uid-db'],
  },
];

describe('applyEvent', () => {
  it.each(rows)('$name', ({ events, pick, want }) => {
    expect(pick(fold(events))).toEqual(want);
  });

  it('mutates and returns the view it is given', () => {
    const view = emptyNodeView();
    expect(applyEvent(view, nodeStarted)).toBe(view);
    expect(view.nodeName).toBe('node-a');
  });
});

describe('the events list', () => {
  it('keeps the events in order, leaving out PLEGRelist, PodSynced, StatusChanged and PLEGEvent', () => {
    const view = fold([
      nodeStarted,
      node('PLEGRelist', { detail: { durationMs: 1 } }),
      podEvent('PodSeen'),
      podEvent('PodSynced'),
      statusChanged({ phase: 'Running' }),
      podEvent('PLEGEvent', { reason: 'ContainerStarted', detail: { containerId: 'c1' } }),
      podEvent('ContainerStarted', { container: 'app' }),
      node('RuntimeUnhealthy'),
    ]);
    expect(view.events.map((e) => e.type)).toEqual(['NodeStarted', 'PodSeen', 'ContainerStarted', 'RuntimeUnhealthy']);
    // Left out of the list, the quiet events still count.
    expect(web(view)!.phase).toBe('Running');
    expect(view.lastRelistMs).toBe(1);
  });

  it('keeps at most the newest 200 events, oldest first', () => {
    const view = emptyNodeView();
    for (let i = 0; i < 250; i++) applyEvent(view, podEvent('ContainerStarted', { at: i, container: 'app' }));
    expect(view.events).toHaveLength(200);
    expect(view.events[0].at).toBe(50);
    expect(view.events.at(-1)!.at).toBe(249);
  });
});
