import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diskUsage, readBootTime, readHostCpu, readHostMemory } from '../../src/engine/stats/host.js';
import { resourceMetrics } from '../../src/engine/stats/resource-metrics.js';
import type { PodStats, Summary } from '../../src/engine/stats/types.js';
import { formatCpu, formatMemory, podUsage, topNodeTable, topPodsTable } from '../../src/ui/top-table.js';

const T = '2026-11-23T10:00:00.000Z';

describe('host readings', () => {
  it('counts busy CPU time from /proc/stat, leaving out idle and iowait', () => {
    const stat = 'cpu  100 20 30 5000 70 1 2 3 0 0\ncpu0 50 10 15 2500 35 0 1 1 0 0\nbtime 1795380000\n';
    expect(readHostCpu(stat)).toEqual({ usageCoreNanoSeconds: (100 + 20 + 30 + 1 + 2 + 3) * 10_000_000 });
    expect(readBootTime(stat)).toBe(1795380000_000);
    expect(readHostCpu('garbage')).toBeUndefined();
  });

  it('derives usage, working set and rss from /proc/meminfo as cAdvisor does for the root cgroup', () => {
    const meminfo = 'MemTotal:       1000 kB\nMemFree:         200 kB\nMemAvailable:    600 kB\nInactive(file):  300 kB\nAnonPages:       250 kB\n';
    expect(readHostMemory(meminfo, 'pgfault 42\npgmajfault 7\n')).toEqual({
      capacityBytes: 1000 * 1024, usageBytes: 800 * 1024, workingSetBytes: 500 * 1024, rssBytes: 250 * 1024, pageFaults: 42, majorPageFaults: 7,
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
    containers: containers.map(([c, cpu, mem]) => ({ name: c, startTime: T, cpu: { time: T, usageCoreNanoSeconds: 5e9, ...(cpu === undefined ? {} : { usageNanoCores: cpu }) }, memory: { time: T, workingSetBytes: mem } })),
    cpu: { time: T, usageCoreNanoSeconds: 5e9 },
    memory: { time: T, workingSetBytes: containers.reduce((n, [, , m]) => n + m, 0) },
  };
}

const summary: Summary = {
  node: { nodeName: 'n1', startTime: T, cpu: { time: T, usageNanoCores: 512_300_000, usageCoreNanoSeconds: 9e12 }, memory: { time: T, workingSetBytes: 3 * 1024 ** 3 } },
  pods: [pod('web', [['app', 12_000_001, 50 * 1024 * 1024], ['sidecar', 1_000_000, 10 * 1024 * 1024 + 5]]), pod('db', [['pg', 250_000_000, 8 * 1024 * 1024]]), pod('done', [])],
};

describe('kubectl top from a Summary', () => {
  it('prints millicores rounded up and mebibytes rounded down', () => {
    expect([formatCpu(0), formatCpu(1), formatCpu(1_000_000), formatCpu(1_000_001), formatCpu(undefined)]).toEqual(['0m', '1m', '1m', '2m', '<unknown>']);
    expect([formatMemory(0), formatMemory(1024 * 1024 - 1), formatMemory(5 * 1024 * 1024), formatMemory(undefined)]).toEqual(['0Mi', '0Mi', '5Mi', '<unknown>']);
  });

  it("sums a pod's containers, and leaves its CPU unknown while a container has no rate yet", () => {
    expect(podUsage(summary.pods[0])).toMatchObject({ name: 'web', nanoCores: 13_000_001, workingSetBytes: 60 * 1024 * 1024 + 5 });
    expect(podUsage(pod('new', [['a', undefined, 1], ['b', 5, 1]])).nanoCores).toBeUndefined();
  });

  it('lists pods by name, or by usage, and per container, leaving out pods with nothing running', () => {
    expect(topPodsTable(summary, { containers: false, allNamespaces: false, sortBy: undefined }).split('\n')).toEqual([
      'NAME   CPU(cores)   MEMORY(bytes)',
      'db     250m         8Mi',
      'web    14m          60Mi',
    ]);
    expect(topPodsTable(summary, { containers: false, allNamespaces: true, sortBy: 'memory' }).split('\n').map((l) => l.split(/ +/)[1])).toEqual(['NAME', 'web', 'db']);
    expect(topPodsTable(summary, { containers: true, allNamespaces: false, sortBy: 'cpu' }).split('\n')).toEqual([
      'POD   NAME      CPU(cores)   MEMORY(bytes)',
      'db    pg        250m         8Mi',
      'web   app       13m          50Mi',
      'web   sidecar   1m           10Mi',
    ]);
  });

  it("sorts by usage as kubectl does: pods by their sums, then each pod's containers among themselves", () => {
    const mi = 1024 * 1024;
    const many: Summary = { node: summary.node, pods: [pod('big', [['small', 1, 2 * mi], ['large', 1, 3 * mi]]), pod('one', [['only', 1, 4 * mi]])] };
    expect(topPodsTable(many, { containers: true, allNamespaces: false, sortBy: 'memory' }).split('\n').slice(1).map((l) => l.split(/ +/).slice(0, 2).join('/'))).toEqual(['big/large', 'big/small', 'one/only']);
    expect(topPodsTable(many, { containers: true, allNamespaces: false, sortBy: undefined }).split('\n').slice(1).map((l) => l.split(/ +/).slice(0, 2).join('/'))).toEqual(['big/large', 'big/small', 'one/only']);
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
