import { describe, expect, it } from 'vitest';
import { emptyPodStatus, type RunningPod } from '../../../src/engine/container/types.js';
import { EventStream } from '../../../src/engine/events.js';
import { Housekeeping, type HousekeepingDeps } from '../../../src/engine/housekeeping.js';
import { PodCache } from '../../../src/engine/pleg/pod-cache.js';
import { ReasonCache } from '../../../src/engine/status/reason-cache.js';
import type { PodWorkerInfo, UpdatePodOptions } from '../../../src/engine/pod-workers.js';

const pod = (uid: string) => ({ metadata: { uid, name: uid, namespace: 'default' }, spec: { containers: [] } });
const deadSandbox = (uid: string): RunningPod => ({
  uid,
  name: uid,
  namespace: 'default',
  sandboxes: [{ id: `s-${uid}`, state: 'notready', createdAt: 1 }],
  containers: [],
});

/** Housekeeping over a pod cache that holds an entry for each of `cached`, with the given desired pods, workers and runtime pods. */
function setup(opts: {
  cached: string[];
  desired: string[];
  workers: string[];
  inRuntime: RunningPod[];
  whileListing?: () => void;
  rejected?: string[];
  pods?: Record<string, ReturnType<typeof pod>>;
  /** Holds the pass in its mirror pod step until the promise resolves. */
  holding?: () => Promise<void>;
}) {
  const podCache = new PodCache();
  for (const uid of opts.cached) podCache.set(uid, emptyPodStatus(uid, uid, 'default'), undefined, 1);
  const killed: string[] = [];
  const created: string[] = [];
  const statusesDeleted: string[] = [];
  const podOf = (uid: string) => opts.pods?.[uid] ?? pod(uid);
  const deps: HousekeepingDeps = {
    podManager: {
      getPods: () => opts.desired.map(podOf),
      getPodByUid: (uid: string) => (opts.desired.includes(uid) ? podOf(uid) : undefined),
    },
    podWorkers: {
      syncKnownPods: () => new Map(opts.workers.map((uid) => [uid, { uid } as PodWorkerInfo])),
      isKnown: (uid: string) => opts.workers.includes(uid),
      updatePod: (u: UpdatePodOptions) => {
        if (u.updateType === 'kill') killed.push(u.runningPod!.uid);
        else {
          created.push(u.pod!.metadata.uid!);
          opts.workers.push(u.pod!.metadata.uid!);
        }
      },
    },
    isRejected: (uid: string) => opts.rejected?.includes(uid) ?? false,
    statusManager: { removeOrphanedStatuses: () => {}, deletePodStatus: (uid: string) => void statusesDeleted.push(uid) },
    reasons: new ReasonCache(),
    podCache,
    runtimePods: () => {
      opts.whileListing?.();
      return opts.inRuntime;
    },
    ...(opts.holding ? { mirrorPods: { deleteOrphans: opts.holding } } : {}),
    events: new EventStream(() => 0),
  };
  return { housekeeping: new Housekeeping(deps), podCache, killed, created, statusesDeleted };
}

const cachedUids = (cache: PodCache) => [...cache.entries()].map(([uid]) => uid).sort();

describe('housekeeping and the pod cache', () => {
  it('forgets the cached state of pods gone from the runtime that no source or worker knows, and keeps the rest', async () => {
    // A dead orphan's sandbox stays in the runtime for the container collector (evictSandboxes), as in the kubelet.
    const world = {
      cached: ['desired', 'worker', 'gone', 'dead'],
      desired: ['desired'],
      workers: ['desired', 'worker'],
      inRuntime: [deadSandbox('dead')],
    };
    const { housekeeping, podCache, killed } = setup(world);
    await housekeeping.handlePodCleanups();
    expect(killed).toEqual([]);
    // The dead orphan keeps its entry while its sandbox is in the runtime: a pod back with its UID sees the sandbox.
    expect(cachedUids(podCache)).toEqual(['dead', 'desired', 'worker']);

    // The collector removed the sandbox (its events may write dead's entry again): the next pass forgets it.
    world.inRuntime = [];
    podCache.set('dead', emptyPodStatus('dead'), undefined, 2);
    await housekeeping.handlePodCleanups();
    expect(cachedUids(podCache)).toEqual(['desired', 'worker']);
  });

  it('keeps the entry of a pod somebody waits on', async () => {
    const { housekeeping, podCache } = setup({ cached: ['gone'], desired: [], workers: [], inRuntime: [] });
    void podCache.getNewerThan('gone', 5);
    await housekeeping.handlePodCleanups();
    expect(cachedUids(podCache)).toEqual(['gone']);
  });

  it('kills no pod that a source added while the pass waited on the runtime', async () => {
    const live: RunningPod = {
      uid: 'new',
      name: 'new',
      namespace: 'default',
      sandboxes: [{ id: 's-new', state: 'ready', createdAt: 1 }],
      containers: [],
    };
    const world = {
      cached: [],
      desired: [] as string[],
      workers: [] as string[],
      inRuntime: [live, { ...live, uid: 'orphan', name: 'orphan' }],
    };
    const { housekeeping, killed } = setup({ ...world, whileListing: () => (world.desired.push('new'), world.workers.push('new')) });
    await housekeeping.handlePodCleanups();
    expect(killed).toEqual(['orphan']);
  });
});

describe('housekeeping and a UID used again', () => {
  it('starts anew an admitted pod that no worker knows, its last life forgotten; not a rejected or finished one', async () => {
    const succeeded = { ...pod('done'), status: { phase: 'Succeeded' } };
    const world = {
      cached: [],
      desired: ['again', 'running', 'refused', 'done'],
      workers: ['running'],
      rejected: ['refused'],
      inRuntime: [],
      pods: { done: succeeded },
    };
    const { housekeeping, created, statusesDeleted } = setup(world);
    await housekeeping.handlePodCleanups();
    expect(created).toEqual(['again']);
    expect(statusesDeleted).toEqual(['again']);

    // Known from then on: the next pass leaves it to its worker.
    await housekeeping.handlePodCleanups();
    expect(created).toEqual(['again']);
  });
});

describe('housekeeping and the runtime', () => {
  it('reads the runtime as the PLEG last saw it, and leaves the runtime alone before the PLEG has seen it', async () => {
    const orphan: RunningPod = {
      uid: 'orphan',
      name: 'orphan',
      namespace: 'default',
      sandboxes: [{ id: 's-orphan', state: 'ready', createdAt: 1 }],
      containers: [],
    };
    const world = { cached: [], desired: [] as string[], workers: [] as string[], inRuntime: [orphan, deadSandbox('dead')] };
    const { housekeeping, killed } = setup(world);
    const seen = world.inRuntime;
    (world as { inRuntime: RunningPod[] | undefined }).inRuntime = undefined;
    await housekeeping.handlePodCleanups();
    expect(killed).toEqual([]);
    world.inRuntime = seen;
    await housekeeping.handlePodCleanups();
    // The live orphan is stopped; the dead one is left to the container collector.
    expect(killed).toEqual(['orphan']);
  });
});

describe('housekeeping as /node shows it', () => {
  it('counts its passes, and says for how long a pass has been under way and at which step', async () => {
    const { housekeeping } = setup({ cached: [], desired: [], workers: [], inRuntime: [deadSandbox('dead')] });
    expect(housekeeping.state()).toEqual({ passes: 0, last: undefined, running: undefined });
    await housekeeping.handlePodCleanups();
    expect(housekeeping.state()).toMatchObject({
      passes: 1,
      last: { at: expect.any(String), durationMs: expect.any(Number) },
      running: undefined,
    });
    // A pass held up (by the apiserver here): a second one is not started, and the state names the step it waits in.
    let answer!: () => void;
    const held = setup({
      cached: [],
      desired: [],
      workers: [],
      inRuntime: [deadSandbox('stuck')],
      holding: () => new Promise<void>((resolve) => (answer = resolve)),
    });
    const pass = held.housekeeping.handlePodCleanups();
    await held.housekeeping.handlePodCleanups();
    expect(held.housekeeping.state()).toMatchObject({
      passes: 0,
      running: { step: 'mirror pods', forMs: expect.any(Number) },
    });
    answer();
    await pass;
    expect(held.housekeeping.state()).toMatchObject({ passes: 1, running: undefined });
  });
});
