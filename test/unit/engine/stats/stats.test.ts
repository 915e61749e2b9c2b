import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CriError, GrpcCode } from '../../../../src/cri/errors.js';
import type { Container, ContainerStats, PodSandbox } from '../../../../src/cri/types.js';
import { readBootTime, readHostCpu, readHostMemory } from '../../../../src/engine/stats/host.js';
import { diskUsage } from '../../../../src/util/disk-usage.js';
import { SummaryProvider } from '../../../../src/engine/stats/summary.js';
import { resourceMetrics } from '../../../../src/engine/stats/resource-metrics.js';
import type { PodStats, Summary } from '../../../../src/engine/stats/types.js';
import { FakeClock } from '../../../../src/util/clock.js';
import { formatCpu, formatMemory, podUsage, topNodeTable, topPodsTable } from '../../../../src/ui/top-table.js';
import { FakeRuntimeService } from '../../../helpers/fake-runtime-service.js';

const T = '2026-11-23T10:00:00.000Z';

describe('host readings', () => {
  it('counts busy CPU time from /proc/stat, leaving out idle and iowait', () => {
    const stat = 'cpu  100 20 30 5000 70 1 2 3 0 0\ncpu0 50 10 15 2500 35 0 1 1 0 0\nbtime 1795380000\n';
    expect(readHostCpu(stat)).toEqual({ usageCoreNanoSeconds: (100 + 20 + 30 + 1 + 2 + 3) * 10_000_000 });
    expect(readBootTime(stat)).toBe(1795380000_000);
    expect(readHostCpu('garbage')).toBeUndefined();
  });

  it('derives usage, working set and rss from /proc/meminfo as cAdvisor does for the root cgroup', () => {
    const meminfo =
      'MemTotal:       1000 kB\nMemFree:         200 kB\nMemAvailable:    600 kB\nInactive(file):  300 kB\nAnonPages:       250 kB\n';
    expect(readHostMemory(meminfo, 'pgfault 42\npgmajfault 7\n')).toEqual({
      capacityBytes: 1000 * 1024,
      usageBytes: 800 * 1024,
      workingSetBytes: 500 * 1024,
      rssBytes: 250 * 1024,
      pageFaults: 42,
      majorPageFaults: 7,
    });
    expect(readHostMemory('', '')).toBeUndefined();
  });

  it('adds up a directory as du does: hard links once, symlinks not followed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'knode-du-'));
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'sub', 'a'), Buffer.alloc(64 * 1024, 1));
    symlinkSync('/etc', join(dir, 'link'));
    const { usedBytes, inodesUsed } = diskUsage(dir);
    expect(inodesUsed).toBe(4);
    expect(usedBytes).toBeGreaterThanOrEqual(64 * 1024);
    expect(usedBytes).toBeLessThan(1024 * 1024);
    expect(diskUsage(join(dir, 'missing'))).toEqual({ usedBytes: 0, inodesUsed: 0 });
    expect(diskUsage(dir, 2).inodesUsed).toBe(2);
  });
});

function pod(name: string, containers: [string, number | undefined, number][]): PodStats {
  return {
    podRef: { name, namespace: 'default', uid: `uid-${name}` },
    startTime: T,
    containers: containers.map(([c, cpu, mem]) => ({
      name: c,
      startTime: T,
      cpu: { time: T, usageCoreNanoSeconds: 5e9, ...(cpu === undefined ? {} : { usageNanoCores: cpu }) },
      memory: { time: T, workingSetBytes: mem },
    })),
    cpu: { time: T, usageCoreNanoSeconds: 5e9 },
    memory: { time: T, workingSetBytes: containers.reduce((n, [, , m]) => n + m, 0) },
  };
}

const summary: Summary = {
  node: {
    nodeName: 'n1',
    startTime: T,
    cpu: { time: T, usageNanoCores: 512_300_000, usageCoreNanoSeconds: 9e12 },
    memory: { time: T, workingSetBytes: 3 * 1024 ** 3 },
  },
  pods: [
    pod('web', [
      ['app', 12_000_001, 50 * 1024 * 1024],
      ['sidecar', 1_000_000, 10 * 1024 * 1024 + 5],
    ]),
    pod('db', [['pg', 250_000_000, 8 * 1024 * 1024]]),
    pod('done', []),
  ],
};

describe('kubectl top from a Summary', () => {
  it('prints millicores rounded up and mebibytes rounded down', () => {
    expect([formatCpu(0), formatCpu(1), formatCpu(1_000_000), formatCpu(1_000_001), formatCpu(undefined)]).toEqual([
      '0m',
      '1m',
      '1m',
      '2m',
      '<unknown>',
    ]);
    expect([formatMemory(0), formatMemory(1024 * 1024 - 1), formatMemory(5 * 1024 * 1024), formatMemory(undefined)]).toEqual([
      '0Mi',
      '0Mi',
      '5Mi',
      '<unknown>',
    ]);
  });

  it("sums a pod's containers, and leaves its CPU unknown while a container has no rate yet", () => {
    expect(podUsage(summary.pods[0])).toMatchObject({ name: 'web', nanoCores: 13_000_001, workingSetBytes: 60 * 1024 * 1024 + 5 });
    expect(
      podUsage(
        pod('new', [
          ['a', undefined, 1],
          ['b', 5, 1],
        ]),
      ).nanoCores,
    ).toBeUndefined();
  });

  it('lists pods by name, or by usage, and per container, leaving out pods with nothing running', () => {
    expect(topPodsTable(summary, { containers: false, allNamespaces: false, sortBy: undefined }).split('\n')).toEqual([
      'NAME   CPU(cores)   MEMORY(bytes)',
      'db     250m         8Mi',
      'web    14m          60Mi',
    ]);
    expect(
      topPodsTable(summary, { containers: false, allNamespaces: true, sortBy: 'memory' })
        .split('\n')
        .map((l) => l.split(/ +/)[1]),
    ).toEqual(['NAME', 'web', 'db']);
    expect(topPodsTable(summary, { containers: true, allNamespaces: false, sortBy: 'cpu' }).split('\n')).toEqual([
      'POD   NAME      CPU(cores)   MEMORY(bytes)',
      'db    pg        250m         8Mi',
      'web   app       13m          50Mi',
      'web   sidecar   1m           10Mi',
    ]);
  });

  it("sorts by usage as kubectl does: pods by their sums, then each pod's containers among themselves", () => {
    const mi = 1024 * 1024;
    const many: Summary = {
      node: summary.node,
      pods: [
        pod('big', [
          ['small', 1, 2 * mi],
          ['large', 1, 3 * mi],
        ]),
        pod('one', [['only', 1, 4 * mi]]),
      ],
    };
    expect(
      topPodsTable(many, { containers: true, allNamespaces: false, sortBy: 'memory' })
        .split('\n')
        .slice(1)
        .map((l) => l.split(/ +/).slice(0, 2).join('/')),
    ).toEqual(['big/large', 'big/small', 'one/only']);
    expect(
      topPodsTable(many, { containers: true, allNamespaces: false, sortBy: undefined })
        .split('\n')
        .slice(1)
        .map((l) => l.split(/ +/).slice(0, 2).join('/')),
    ).toEqual(['big/large', 'big/small', 'one/only']);
  });

  it('shows the node against its capacity with kubectl top node percentages', () => {
    expect(topNodeTable(summary, { cpuCores: 2, memoryBytes: 8 * 1024 ** 3 }).split('\n')).toEqual([
      'NAME   CPU(cores)   CPU(%)   MEMORY(bytes)   MEMORY(%)',
      'n1     513m         25%      3072Mi          37%',
    ]);
  });
});

describe('/metrics/resource', () => {
  it('writes the metrics-server families with labels and millisecond timestamps', () => {
    const text = resourceMetrics(summary);
    const ms = Date.parse(T);
    expect(text).toContain('# TYPE container_cpu_usage_seconds_total counter');
    expect(text).toContain(`container_cpu_usage_seconds_total{container="app",namespace="default",pod="web"} 5 ${ms}`);
    expect(text).toContain(`container_memory_working_set_bytes{container="pg",namespace="default",pod="db"} ${8 * 1024 * 1024} ${ms}`);
    expect(text).toContain(`pod_memory_working_set_bytes{namespace="default",pod="web"} ${60 * 1024 * 1024 + 5} ${ms}`);
    expect(text).toContain(`node_cpu_usage_seconds_total 9000 ${ms}`);
    expect(text).toContain(`container_start_time_seconds{container="app",namespace="default",pod="web"} ${ms / 1000}`);
    expect(text).toMatch(/^resource_scrape_error 0$/m);
    expect(text.endsWith('\n')).toBe(true);
  });
});

describe('the stats provider', () => {
  // A runtime like containerd 1.6: no ListPodSandboxStats, and container stats with
  // cumulative CPU time only, so the rate is the provider's to compute.
  const sandbox = (uid: string): PodSandbox => ({
    id: `sb-${uid}`,
    metadata: { name: uid, namespace: 'default', uid, attempt: 0 },
    state: 'SANDBOX_READY',
    createdAt: 1,
    labels: { 'io.kubernetes.pod.uid': uid },
    annotations: {},
    runtimeHandler: '',
  });
  const container = (uid: string, name: string): Container => ({
    id: `${uid}-${name}`,
    podSandboxId: `sb-${uid}`,
    metadata: { name, attempt: 0 },
    image: { image: 'busybox' } as Container['image'],
    imageRef: 'busybox',
    imageId: '',
    state: 'CONTAINER_RUNNING',
    createdAt: 1,
    labels: { 'io.kubernetes.pod.uid': uid, 'io.kubernetes.container.name': name },
    annotations: {},
  });

  function setup() {
    const clock = new FakeClock();
    const containers = [container('a', 'one'), container('b', 'two'), container('a', 'three')];
    /** Each container's CPU time so far (ns): the test moves it. */
    const used = new Map(containers.map((c) => [c.id, 0]));
    const runtime = new FakeRuntimeService();
    for (const s of [sandbox('a'), sandbox('b')]) runtime.addSandbox(s);
    for (const c of containers) runtime.addContainer(c.podSandboxId, c);
    runtime.respond('listPodSandboxStats', () => {
      throw new CriError('ListPodSandboxStats', GrpcCode.UNIMPLEMENTED, 'unknown method');
    });
    runtime.respond('listContainerStats', () =>
      containers.map(
        (c) =>
          ({
            attributes: { id: c.id, metadata: c.metadata, labels: c.labels, annotations: {} },
            cpu: { timestamp: clock.now() * 1e6, usageCoreNanoSeconds: { value: used.get(c.id)! } },
          }) as ContainerStats,
      ),
    );
    const provider = new SummaryProvider({
      runtime,
      clock,
      nodeName: 'n1',
      rootDir: tmpdir(),
      podLogsDir: tmpdir(),
      volumesDir: (uid) => join(tmpdir(), 'no-such-dir', uid),
      startedAt: 0,
      allNodes: true,
    });
    /** Ten seconds pass, each container using CORES of CPU. */
    const run = async (cores: Record<string, number>) => {
      for (const [id, n] of Object.entries(cores)) used.set(id, used.get(id)! + n * 10e9);
      await clock.advance(10_000);
    };
    const rates = async (): Promise<Record<string, Record<string, number | undefined>>> =>
      Object.fromEntries(
        (await provider.get(true)).pods.map((p) => [
          p.podRef.uid,
          { pod: p.cpu?.usageNanoCores, ...Object.fromEntries(p.containers.map((c) => [c.name, c.cpu?.usageNanoCores])) },
        ]),
      );
    return { clock, provider, run, rates, calls: () => runtime.calls('listContainerStats').length };
  }

  it("gives each container's and pod's CPU rate over the last refresh period, each container under its own pod", async () => {
    const { provider, run, rates } = setup();
    expect((await rates()).a.one).toBeUndefined(); // a first reading has no rate
    await run({ 'a-one': 2, 'b-two': 2, 'a-three': 2 });
    await provider.refresh();
    await run({ 'a-one': 0.5, 'b-two': 1, 'a-three': 0.25 });
    expect(await rates()).toEqual({
      a: { pod: 750_000_000, one: 500_000_000, three: 250_000_000 },
      b: { pod: 1_000_000_000, two: 1_000_000_000 },
    });
  });

  it('reads nothing while nobody asks for usage, and stops five minutes after the last request', async () => {
    const { clock, provider, rates, calls } = setup();
    await provider.refresh();
    expect(calls()).toBe(0);
    await rates();
    expect(calls()).toBe(1);
    await provider.refresh();
    expect(calls()).toBe(2);
    await clock.advance(5 * 60_000 + 1);
    await provider.refresh();
    expect(calls()).toBe(2);
  });

  it('gives no rate over a reading older than thirty seconds: it would say little about now', async () => {
    const { run, rates } = setup();
    await rates();
    for (let i = 0; i < 4; i++) await run({ 'a-one': 1 });
    expect((await rates()).a.one).toBeUndefined();
    await run({ 'a-one': 1 });
    expect((await rates()).a.one).toBe(1_000_000_000);
  });
});
