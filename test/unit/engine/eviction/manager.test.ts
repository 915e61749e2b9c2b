import { beforeEach, describe, expect, it } from 'vitest';
import type { Pod, PodStatus } from '../../../../src/engine/api/v1.js';
import { EVICTION_MONITORING_PERIOD_MS, EvictionManager } from '../../../../src/engine/eviction/manager.js';
import type { NodeSignals } from '../../../../src/engine/eviction/signals.js';
import { parseThresholdConfig } from '../../../../src/engine/eviction/thresholds.js';
import { EventStream, type LifecycleEvent } from '../../../../src/engine/events.js';
import type { PodStats } from '../../../../src/engine/stats/types.js';
import { FakeClock, flushMicrotasks } from '../../../../src/util/clock.js';

const Mi = 1024 * 1024;
const none = { evictionHard: {}, evictionSoft: {}, evictionSoftGracePeriod: {}, evictionMinimumReclaim: {} };

function pod(name: string, opts: { memory?: string; priority?: number; static?: boolean; grace?: number } = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      ...(opts.static ? { annotations: { 'kubernetes.io/config.source': 'file' } } : {}),
    },
    spec: {
      containers: [{ name: 'app', image: 'busybox', ...(opts.memory ? { resources: { requests: { memory: opts.memory } } } : {}) }],
      ...(opts.priority !== undefined ? { priority: opts.priority } : {}),
      ...(opts.grace !== undefined ? { terminationGracePeriodSeconds: opts.grace } : {}),
    },
  } as Pod;
}

function stats(p: Pod, workingSet: number): PodStats {
  return {
    podRef: { name: p.metadata.name!, namespace: 'default', uid: p.metadata.uid! },
    startTime: '',
    memory: { time: '', workingSetBytes: workingSet },
    containers: [{ name: 'app', startTime: '', memory: { time: '', workingSetBytes: workingSet } }],
  };
}

describe('the eviction manager', () => {
  let clock: FakeClock;
  let events: LifecycleEvent[];
  let available: number;
  let pods: Pod[];
  let usage: Map<string, number>;
  let killed: { pod: string; grace: number; status: PodStatus }[];
  let reclaimed: string[];
  let diskFree: number;
  let freedByImages: number;
  let volumeUsed: number;
  let signalsError: Error | undefined;

  const make = (settings: Partial<typeof none> & { transition?: number; maxGrace?: number }) => {
    const stream = new EventStream(() => clock.now());
    stream.subscribe((e) => events.push(e));
    return new EvictionManager({
      thresholds: parseThresholdConfig({ ...none, ...settings }),
      pressureTransitionPeriodMs: settings.transition ?? 300_000,
      maxPodGracePeriodSeconds: settings.maxGrace ?? 30,
      clock,
      events: stream,
      nodeName: 'n1',
      nodeSignals: async (): Promise<NodeSignals> => {
        if (signalsError) throw signalsError;
        return {
          memory: { time: new Date(clock.now()).toISOString(), availableBytes: available, workingSetBytes: 8192 * Mi - available },
          fs: {
            time: new Date(clock.now()).toISOString(),
            availableBytes: diskFree,
            capacityBytes: 100 * 1024 * Mi,
            inodes: 1000,
            inodesFree: 900,
          },
        };
      },
      podStats: async () =>
        pods
          .filter((p) => usage.has(p.metadata.name!))
          .map((p) => ({
            ...stats(p, usage.get(p.metadata.name!)!),
            volume: [{ name: 'scratch', time: '', usedBytes: volumeUsed }],
            'ephemeral-storage': { time: '', usedBytes: volumeUsed },
          })),
      activePods: () => pods,
      killPod: async (p, grace, statusFn) => {
        const status: PodStatus = { phase: 'Running', conditions: [] };
        statusFn(status);
        killed.push({ pod: p.metadata.name!, grace, status });
        pods = pods.filter((x) => x !== p);
      },
      reclaim: {
        containers: async () => void reclaimed.push('containers'),
        images: async () => {
          reclaimed.push('images');
          diskFree += freedByImages;
        },
      },
    });
  };

  beforeEach(() => {
    clock = new FakeClock();
    events = [];
    available = 4096 * Mi;
    usage = new Map();
    killed = [];
    reclaimed = [];
    pods = [];
    diskFree = 50 * 1024 * Mi;
    freedByImages = 0;
    volumeUsed = 0;
    signalsError = undefined;
  });

  it('says its conditions are known once its first pass has ended, a failed pass too', async () => {
    const known = async (m: EvictionManager) => {
      let done = false;
      void m.observed.then(() => (done = true));
      await flushMicrotasks();
      return done;
    };
    const m = make({ evictionHard: { 'memory.available': '8192Mi' } });
    expect(await known(m)).toBe(false);
    m.start();
    expect(await known(m)).toBe(true);
    expect(m.pressure()).toEqual(['MemoryPressure']);
    await m.stop();

    signalsError = new Error('no stats yet');
    const failing = make({ evictionHard: { 'memory.available': '8192Mi' } });
    failing.start();
    expect(await known(failing)).toBe(true);
    expect(events.at(-1)).toMatchObject({ reason: 'EvictionFailed', message: 'eviction manager: no stats yet' });
    await failing.stop();
  });

  it('does nothing while every signal is above its threshold, and admits every pod', async () => {
    pods = [pod('a')];
    const m = make({ evictionHard: { 'memory.available': '100Mi' } });
    expect(await m.synchronize()).toEqual([]);
    expect(m.pressure()).toEqual([]);
    expect(m.admit(pod('new')).admit).toBe(true);
    expect(killed).toEqual([]);
  });

  it('evicts the pod over its request first, then by priority, with the kubelet’s message and status', async () => {
    const within = pod('within', { memory: '500Mi' });
    const over = pod('over', { memory: '10Mi', priority: 1000 });
    const low = pod('low', { memory: '10Mi' });
    const critical = pod('static', { static: true });
    pods = [within, over, low, critical];
    usage = new Map([
      ['within', 100 * Mi],
      ['over', 300 * Mi],
      ['low', 20 * Mi],
      ['static', 900 * Mi],
    ]);
    available = 1000 * Mi;
    const m = make({ evictionHard: { 'memory.available': '2Gi' } });
    const first = await m.synchronize();
    // Both "over" and "low" use more than they asked; "low" has the lower priority.
    expect(first.map((p) => p.metadata.name)).toEqual(['low']);
    // A hard threshold gives one second, as upstream's immediateEvictionGracePeriodSeconds.
    expect(killed[0].grace).toBe(1);
    expect(killed[0].status).toMatchObject({
      phase: 'Failed',
      reason: 'Evicted',
      message:
        'The node was low on resource: memory. Threshold quantity: 2Gi, available: 1000Mi. Container app was using 20Mi, request is 10Mi, has larger consumption of memory. ',
      conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'TerminationByKubelet' }],
    });
    expect(m.pressure()).toEqual(['MemoryPressure']);
    expect(events.map((e) => [e.type, e.reason])).toEqual([
      ['NodePressureChanged', 'NodeHasInsufficientMemory'],
      ['EvictionThresholdMet', 'EvictionThresholdMet'],
      ['PodEvicted', 'Evicted'],
    ]);
    await clock.advance(EVICTION_MONITORING_PERIOD_MS);
    expect((await m.synchronize())[0]?.metadata.name).toBe('over');
    // A pass on the same reading as the last evicts nobody (thresholdsUpdatedStats).
    expect(await m.synchronize()).toEqual([]);
    await clock.advance(EVICTION_MONITORING_PERIOD_MS);
    expect((await m.synchronize())[0]?.metadata.name).toBe('within');
    await clock.advance(EVICTION_MONITORING_PERIOD_MS);
    // The static pod is critical: never evicted, whatever it uses.
    expect(await m.synchronize()).toEqual([]);
    expect(killed.map((k) => k.pod)).toEqual(['low', 'over', 'within']);
  });

  it('under memory pressure alone rejects BestEffort pods unless they tolerate the taint; critical pods always pass', async () => {
    available = 50 * Mi;
    const m = make({ evictionHard: { 'memory.available': '100Mi' } });
    await m.synchronize();
    expect(m.admit(pod('best-effort'))).toEqual({ admit: false, reason: 'Evicted', message: 'The node had condition: [MemoryPressure]. ' });
    expect(m.admit(pod('burstable', { memory: '10Mi' })).admit).toBe(true);
    expect(m.admit(pod('static', { static: true })).admit).toBe(true);
    const tolerant = pod('tolerant');
    tolerant.spec.tolerations = [{ key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' }];
    expect(m.admit(tolerant).admit).toBe(true);
  });

  it('waits out a soft threshold’s grace period, gives the pod at most evictionMaxPodGracePeriod', async () => {
    pods = [pod('a', { grace: 60 })];
    usage = new Map([['a', 10 * Mi]]);
    available = 500 * Mi;
    const m = make({ evictionSoft: { 'memory.available': '1Gi' }, evictionSoftGracePeriod: { 'memory.available': '30s' }, maxGrace: 20 });
    expect(await m.synchronize()).toEqual([]);
    // The condition is reported at once; the eviction waits for the grace period.
    expect(m.pressure()).toEqual(['MemoryPressure']);
    await clock.advance(20_000);
    expect(await m.synchronize()).toEqual([]);
    await clock.advance(10_000);
    expect((await m.synchronize())[0]?.metadata.name).toBe('a');
    expect(killed[0].grace).toBe(20);
  });

  it('keeps a condition for the transition period after the signal recovers, then reports it gone', async () => {
    available = 50 * Mi;
    const m = make({ evictionHard: { 'memory.available': '100Mi' }, transition: 60_000 });
    await m.synchronize();
    available = 4096 * Mi;
    await clock.advance(30_000);
    await m.synchronize();
    expect(m.pressure()).toEqual(['MemoryPressure']);
    await clock.advance(30_000);
    await m.synchronize();
    expect(m.pressure()).toEqual([]);
    expect(events.filter((e) => e.type === 'NodePressureChanged').map((e) => e.reason)).toEqual([
      'NodeHasInsufficientMemory',
      'NodeHasSufficientMemory',
    ]);
  });

  it('reclaims dead containers and images before it evicts for disk, and evicts nobody when that was enough', async () => {
    pods = [pod('a')];
    usage = new Map([['a', Mi]]);
    const m = make({ evictionHard: { 'nodefs.available': '60%' } });
    expect(await m.synchronize()).toHaveLength(1);
    expect(reclaimed).toEqual(['containers', 'images']);
    expect(m.pressure()).toEqual(['DiskPressure']);
    expect(m.admit(pod('burstable', { memory: '10Mi' }))).toMatchObject({
      admit: false,
      message: 'The node had condition: [DiskPressure]. ',
    });

    // Images that free enough past the minimum reclaim spare the pods.
    freedByImages = 20 * 1024 * Mi;
    pods = [pod('b')];
    usage.set('b', Mi);
    await clock.advance(EVICTION_MONITORING_PERIOD_MS);
    expect(await m.synchronize()).toEqual([]);
    expect(reclaimed).toEqual(['containers', 'images', 'containers', 'images']);
    expect(killed.map((k) => k.pod)).toEqual(['a']);
  });

  it('evicts a pod over its emptyDir sizeLimit whatever the thresholds, without a DisruptionTarget condition', async () => {
    const p = pod('scratchy');
    p.spec.volumes = [{ name: 'scratch', emptyDir: { sizeLimit: '1Mi' } }];
    pods = [p, pod('plain')];
    usage = new Map([['scratchy', Mi]]);
    volumeUsed = 2 * Mi;
    const m = make({});
    expect((await m.synchronize())[0]?.metadata.name).toBe('scratchy');
    expect(killed[0].status).toEqual({
      phase: 'Failed',
      reason: 'Evicted',
      message: 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". ',
      conditions: [],
    });
    expect(m.pressure()).toEqual([]);
  });

  it('evicts every pod over a local storage limit in the same pass, as upstream’s localStorageEviction', async () => {
    const scratchy = pod('scratchy');
    scratchy.spec.volumes = [{ name: 'scratch', emptyDir: { sizeLimit: '1Mi' } }];
    const limited = pod('limited');
    limited.spec.containers[0].resources = { limits: { 'ephemeral-storage': '1Mi' } };
    pods = [scratchy, pod('plain'), limited];
    usage = new Map([
      ['scratchy', Mi],
      ['plain', Mi],
      ['limited', Mi],
    ]);
    volumeUsed = 2 * Mi;
    const m = make({});
    expect((await m.synchronize()).map((p) => p.metadata.name)).toEqual(['scratchy', 'limited']);
    expect(killed.map((k) => k.grace)).toEqual([1, 1]);
    expect(killed.map((k) => [k.pod, k.status.message])).toEqual([
      ['scratchy', 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". '],
      ['limited', 'Pod ephemeral local storage usage exceeds the total limit of containers 1Mi. '],
    ]);
  });
});
