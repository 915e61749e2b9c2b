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
        message: "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports (TCP 0.0.0.0:8080)",
      },
    ],
    [
      'a host port on all addresses against one on a single address',
      pod('new', [hostPort(8080)]),
      [pod('a', [hostPort(8080, { hostIP: '127.0.0.1' })])],
      {
        admit: false,
        reason: 'NodePorts',
        message: "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports (TCP 0.0.0.0:8080)",
      },
    ],
    [
      'a host port on one address against one on all addresses',
      pod('new', [hostPort(8080, { hostIP: '127.0.0.1' })]),
      [pod('a', [hostPort(8080)])],
      {
        admit: false,
        reason: 'NodePorts',
        message: "Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports (TCP 127.0.0.1:8080)",
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
        message: 'Failed to admit pod as the OS field "windows" does not match node OS "linux"',
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
