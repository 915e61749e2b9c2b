import { describe, expect, it } from 'vitest';
import type { Container, Pod } from '../../../src/engine/api/v1.js';
import { canAdmitPod, parseCpu, parseMemory, type AdmitResult, type NodeAllocatable } from '../../../src/engine/admission.js';

const node: NodeAllocatable = { cpu: 4_000, memory: 8 * 2 ** 30, pods: 3 };

function pod(name: string, containers: Partial<Container>[] = [{}], spec: Partial<Pod['spec']> = {}): Pod {
  return {
    metadata: { uid: name, name, namespace: 'default' },
    spec: { containers: containers.map((c, i) => ({ name: `c${i}`, image: 'busybox', ...c })), ...spec },
  };
}

const requests = (cpu?: string | number, memory?: string | number): Partial<Container> => ({
  resources: { requests: { ...(cpu !== undefined ? { cpu } : {}), ...(memory !== undefined ? { memory } : {}) } },
});
const hostPort = (port: number, extra: { protocol?: 'TCP' | 'UDP'; hostIP?: string } = {}): Partial<Container> => ({
  ports: [{ containerPort: 80, hostPort: port, ...extra }],
});

describe('canAdmitPod', () => {
  it.each<[string, Pod, Pod[], AdmitResult]>([
    ['an empty node', pod('new'), [], { admit: true }],
    ['the last free pod slot', pod('new'), [pod('a'), pod('b')], { admit: true }],
    [
      'no pod slot left',
      pod('new'),
      [pod('a'), pod('b'), pod('c')],
      { admit: false, reason: 'OutOfpods', message: "Node didn't have enough resource: pods, requested: 1, used: 3, capacity: 3" },
    ],
    ['CPU that just fits', pod('new', [requests('1')]), [pod('a', [requests('3000m')])], { admit: true }],
    [
      'too much CPU',
      pod('new', [requests('1500m')]),
      [pod('a', [requests(2)]), pod('b', [requests('0.6')])],
      { admit: false, reason: 'OutOfcpu', message: "Node didn't have enough resource: cpu, requested: 1500, used: 2600, capacity: 4000" },
    ],
    [
      'CPU from the sum of containers',
      pod('new', [requests('2'), requests('2500m')]),
      [],
      { admit: false, reason: 'OutOfcpu', message: "Node didn't have enough resource: cpu, requested: 4500, used: 0, capacity: 4000" },
    ],
    [
      'CPU from the largest init container when that is more',
      pod('new', [requests('100m')], { initContainers: [{ name: 'init', image: 'busybox', resources: { requests: { cpu: '5' } } }] }),
      [],
      { admit: false, reason: 'OutOfcpu', message: "Node didn't have enough resource: cpu, requested: 5000, used: 0, capacity: 4000" },
    ],
    [
      'CPU limits count when requests are not set',
      pod('new', [{ resources: { limits: { cpu: '4' } } }]),
      [pod('a', [requests('1m')])],
      { admit: false, reason: 'OutOfcpu', message: "Node didn't have enough resource: cpu, requested: 4000, used: 1, capacity: 4000" },
    ],
    [
      'too much memory',
      pod('new', [requests(undefined, '5Gi')]),
      [pod('a', [requests(undefined, '4Gi')])],
      {
        admit: false,
        reason: 'OutOfmemory',
        message: `Node didn't have enough resource: memory, requested: ${5 * 2 ** 30}, used: ${4 * 2 ** 30}, capacity: ${8 * 2 ** 30}`,
      },
    ],
    ['no requests at all on a busy node', pod('new'), [pod('a', [requests('4', '8Gi')])], { admit: true }],
    [
      'a host port another pod holds',
      pod('new', [hostPort(8080)]),
      [pod('a', [hostPort(8080)])],
      {
        admit: false,
        reason: 'NodePorts',
        message: "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports",
      },
    ],
    [
      'a host port on all addresses against one on a single address',
      pod('new', [hostPort(8080)]),
      [pod('a', [hostPort(8080, { hostIP: '127.0.0.1' })])],
      {
        admit: false,
        reason: 'NodePorts',
        message: "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports",
      },
    ],
    [
      'a host port on one address against one on all addresses',
      pod('new', [hostPort(8080, { hostIP: '127.0.0.1' })]),
      [pod('a', [hostPort(8080)])],
      {
        admit: false,
        reason: 'NodePorts',
        message: "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports",
      },
    ],
    ['the same host port over UDP', pod('new', [hostPort(8080, { protocol: 'UDP' })]), [pod('a', [hostPort(8080)])], { admit: true }],
    [
      'the same host port on another host IP',
      pod('new', [hostPort(8080, { hostIP: '127.0.0.2' })]),
      [pod('a', [hostPort(8080, { hostIP: '127.0.0.1' })])],
      { admit: true },
    ],
    ['another host port', pod('new', [hostPort(8081)]), [pod('a', [hostPort(8080)])], { admit: true }],
    [
      'container ports without host ports',
      pod('new', [{ ports: [{ containerPort: 80 }] }]),
      [pod('a', [{ ports: [{ containerPort: 80 }] }])],
      { admit: true },
    ],
    [
      'a Windows pod',
      pod('new', [{}], { os: { name: 'windows' } }),
      [],
      {
        admit: false,
        reason: 'PodOSNotSupported',
        message: "Failed to admit pod as the OS field doesn't match node OS",
      },
    ],
    ['a Linux pod', pod('new', [{}], { os: { name: 'linux' } }), [], { admit: true }],
  ])('%s', (_case, candidate, active, expected) => {
    expect(canAdmitPod(candidate, active, node)).toEqual(expected);
  });

  it('rejects a pod that selects another OS by node selector', () => {
    const verdict = canAdmitPod(pod('new', [{}], { nodeSelector: { 'kubernetes.io/os': 'windows' } }), [], node);
    expect(verdict.admit).toBe(false);
  });

  it.each<[string, Partial<Pod['spec']>, Partial<AdmitResult>]>([
    ['a node selector for another OS', { nodeSelector: { 'kubernetes.io/os': 'windows' } }, { admit: false, reason: 'NodeAffinity' }],
    ["a node selector for the node's OS", { nodeSelector: { 'kubernetes.io/os': 'linux' } }, { admit: true }],
    ['the OS field set to another OS', { os: { name: 'windows' } }, { admit: false, reason: 'PodOSNotSupported' }],
  ])('on a node labelled linux: %s', (_case, spec, expected) => {
    const verdict = canAdmitPod(pod('new', [{}], spec), [], node, { 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' });
    expect(verdict).toMatchObject(expected);
  });

  it('checks the OS before the pod count', () => {
    const verdict = canAdmitPod(pod('new', [{}], { os: { name: 'windows' } }), [pod('a'), pod('b'), pod('c')], node);
    expect(verdict.reason).toBe('PodOSNotSupported');
  });
});

describe('parseCpu', () => {
  it.each<[string | number, number]>([
    ['500m', 500],
    ['1', 1_000],
    ['1.5', 1_500],
    ['0.1', 100],
    ['1500m', 1_500],
    ['100u', 1],
    ['250m', 250],
    [2, 2_000],
    [0.25, 250],
    ['0', 0],
    ['lots', 0],
  ])('%j → %s millicores', (q, millicores) => {
    expect(parseCpu(q)).toBe(millicores);
  });
});

describe('parseMemory', () => {
  it.each<[string | number, number]>([
    ['64Mi', 64 * 2 ** 20],
    ['1Gi', 2 ** 30],
    ['1.5Gi', 1.5 * 2 ** 30],
    ['128Ki', 128 * 1024],
    ['1G', 1e9],
    ['500M', 5e8],
    ['1k', 1_000],
    ['1e3', 1_000],
    ['1E3', 1_000],
    ['1E', 1e18],
    ['129e6', 129_000_000],
    ['128974848', 128_974_848],
    [1024, 1024],
    [' 64Mi ', 64 * 2 ** 20],
    ['1Ti', 2 ** 40],
    ['64MB', 0],
    ['lots', 0],
  ])('%j → %s bytes', (q, bytes) => {
    expect(parseMemory(q)).toBe(bytes);
  });
});

describe('admission in the kubelet words', () => {
  const labels = { 'kubernetes.io/os': 'linux', 'kubernetes.io/hostname': 'n1', disk: 'ssd', gen: '5' };
  const admit = (p: Pod, active: Pod[] = []) => canAdmitPod(p, active, node, labels, 'n1');
  const affinity = (...terms: object[]): Partial<Pod['spec']> =>
    ({
      affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } },
    }) as Partial<Pod['spec']>;
  const NODE_AFFINITY = {
    admit: false,
    reason: 'NodeAffinity',
    message: "Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector",
  };
  const staticPod = (p: Pod): Pod => ({ ...p, metadata: { ...p.metadata, annotations: { 'kubernetes.io/config.source': 'file' } } });

  it.each<[string, Partial<Pod['spec']>, boolean]>([
    ['a nodeSelector the node lacks', { nodeSelector: { disk: 'hdd' } }, false],
    ['a nodeSelector the node has', { nodeSelector: { disk: 'ssd' } }, true],
    ['an In term that matches', affinity({ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd', 'nvme'] }] }), true],
    ['a NotIn term on its value', affinity({ matchExpressions: [{ key: 'disk', operator: 'NotIn', values: ['ssd'] }] }), false],
    ['DoesNotExist on a label it has', affinity({ matchExpressions: [{ key: 'disk', operator: 'DoesNotExist' }] }), false],
    ['Gt below its value', affinity({ matchExpressions: [{ key: 'gen', operator: 'Gt', values: ['4'] }] }), true],
    ['Lt below its value', affinity({ matchExpressions: [{ key: 'gen', operator: 'Lt', values: ['4'] }] }), false],
    ['its name by matchFields', affinity({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }), true],
    ['another name by matchFields', affinity({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }), false],
    [
      'one term of two matching',
      affinity({ matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, { matchExpressions: [{ key: 'disk', operator: 'Exists' }] }),
      true,
    ],
    ['an empty term', affinity({}), false],
  ])('node affinity: %s', (_case, spec, fits) => {
    expect(admit(pod('new', [{}], spec))).toEqual(fits ? { admit: true } : NODE_AFFINITY);
  });

  it('rejects a pod labelled for another OS before looking at its OS field', () => {
    const p = pod('new', [{}], { os: { name: 'windows' } });
    p.metadata.labels = { 'kubernetes.io/os': 'windows' };
    expect(admit(p)).toEqual({
      admit: false,
      reason: 'PodOSSelectorNodeLabelDoesNotMatch',
      message: "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label",
    });
  });

  it('reports the first failure of all: resources before node affinity before ports', () => {
    const p = pod('new', [{ ...requests('5'), ...hostPort(80) }], { nodeSelector: { disk: 'hdd' } });
    expect(admit(p, [pod('a', [hostPort(80)])]).reason).toBe('OutOfcpu');
    expect(
      admit({ ...p, spec: { ...p.spec, containers: [{ name: 'c', image: 'busybox', ...hostPort(80) }] } }, [pod('a', [hostPort(80)])]),
    ).toEqual(NODE_AFFINITY);
  });

  it('gives a static pod short of CPU the preemption error when no pod can be preempted', () => {
    expect(admit(staticPod(pod('new', [requests('5')])), [staticPod(pod('a', [requests('1')]))])).toEqual({
      admit: false,
      reason: 'UnexpectedAdmissionError',
      message:
        'Unexpected error while attempting to recover from admission failure: preemption: error finding a set of pods to preempt: no set of running pods found to reclaim resources: [(res: cpu, q: 2000), ]',
    });
  });

  it('lists every resource a critical pod lacks, and counts a pod slot as one', () => {
    const full = [pod('a'), pod('b'), pod('c')].map(staticPod);
    const verdict = admit(staticPod(pod('new', [requests('6', '9Gi')])), full);
    expect(verdict.reason).toBe('UnexpectedAdmissionError');
    expect(verdict.message).toMatch(/\[\(res: pods, q: 1\), \(res: cpu, q: 2000\), \(res: memory, q: 1073741824\), \]$/);
  });

  it('reports what else is wrong with a critical pod instead of preempting', () => {
    expect(admit(staticPod(pod('new', [requests('5')], { nodeSelector: { disk: 'hdd' } })))).toEqual(NODE_AFFINITY);
  });

  it('admits a critical pod by preempting the non-critical pods nearest to what it lacks', () => {
    // Full (3 pods of 3) and 3.5 CPUs of 4 requested: one pod slot and 1.5 CPUs short.
    const small = pod('small', [requests('500m')]);
    const big = pod('big', [requests('2')]);
    const peer = staticPod(pod('peer', [requests('1')]));
    expect(admit(staticPod(pod('new', [requests('2')])), [small, big, peer])).toEqual({ admit: true, preempt: [big] });
    // BestEffort goes before Burstable, even when a Burstable pod would be nearer.
    const idle = pod('idle');
    expect(admit(staticPod(pod('new')), [idle, big, peer])).toEqual({ admit: true, preempt: [idle] });
    // A pod of system-critical priority is critical too; another critical pod is never preempted.
    const priority = pod('prio', [requests('2')], { priority: 2_000_000_000 });
    expect(admit(priority, [pod('x', [requests('3')])])).toEqual({
      admit: true,
      preempt: [expect.objectContaining({ spec: expect.anything() })],
    });
    expect(admit(priority, [staticPod(pod('x', [requests('3')]))]).reason).toBe('UnexpectedAdmissionError');
  });
});

describe('canAdmitPod: ephemeral storage', () => {
  const disk: NodeAllocatable = { ...node, 'ephemeral-storage': 10 * 2 ** 30 };
  const storage = (q: string): Partial<Container> => ({ resources: { requests: { 'ephemeral-storage': q } } });

  it('admits what the filesystem holds, and refuses more with the kubelet’s reason and numbers', () => {
    expect(canAdmitPod(pod('new', [storage('4Gi')]), [pod('a', [storage('6Gi')])], disk)).toEqual({ admit: true });
    expect(canAdmitPod(pod('new', [storage('5Gi')]), [pod('a', [storage('6Gi')])], disk)).toEqual({
      admit: false,
      reason: 'OutOfephemeral-storage',
      message: "Node didn't have enough resource: ephemeral-storage, requested: 5368709120, used: 6442450944, capacity: 10737418240",
    });
  });

  it('does not check ephemeral storage when the capacity is unknown', () => {
    expect(canAdmitPod(pod('new', [storage('5Ti')]), [], node)).toEqual({ admit: true });
  });
});
