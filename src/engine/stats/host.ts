import { readFileSync, statfsSync } from 'node:fs';

/** USER_HZ on the architectures Node runs on: /proc/stat counts in hundredths of a second. */
const NS_PER_TICK = 10_000_000;

export interface HostCpu {
  /** CPU time spent outside idle and iowait since boot, over all cores. */
  usageCoreNanoSeconds: number;
}

export interface HostMemory {
  capacityBytes: number;
  usageBytes: number;
  workingSetBytes: number;
  rssBytes: number;
  pageFaults: number;
  majorPageFaults: number;
}

export interface FsUsage {
  capacityBytes: number;
  availableBytes: number;
  usedBytes: number;
  inodes: number;
  inodesFree: number;
  inodesUsed: number;
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** The machine's CPU time from /proc/stat's first line (user nice system idle iowait irq softirq steal). */
export function readHostCpu(text = read('/proc/stat')): HostCpu | undefined {
  const line = text.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return undefined;
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  const busy = [user, nice, system, irq, softirq, steal].reduce((sum, n) => sum + (Number.isFinite(n) ? n : 0), 0);
  return { usageCoreNanoSeconds: busy * NS_PER_TICK };
}

/** When the machine booted (/proc/stat btime), in milliseconds since the epoch. */
export function readBootTime(text = read('/proc/stat')): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith('btime '));
  return line ? Number(line.split(/\s+/)[1]) * 1000 : undefined;
}

/**
 * The machine's memory as cAdvisor reports the root cgroup: usage is what is
 * not free, the working set is usage less inactive file pages (what the
 * kernel can drop first), rss the anonymous pages.
 */
export function readHostMemory(meminfo = read('/proc/meminfo'), vmstat = read('/proc/vmstat')): HostMemory | undefined {
  const kb = new Map<string, number>();
  for (const line of meminfo.split('\n')) {
    const m = /^([^:]+):\s+(\d+)/.exec(line);
    if (m) kb.set(m[1], Number(m[2]) * 1024);
  }
  const total = kb.get('MemTotal');
  const free = kb.get('MemFree');
  if (total === undefined || free === undefined) return undefined;
  const usage = total - free;
  const counters = new Map(
    vmstat
      .split('\n')
      .map((l) => l.split(' ') as [string, string])
      .map(([k, v]) => [k, Number(v)]),
  );
  return {
    capacityBytes: total,
    usageBytes: usage,
    workingSetBytes: Math.max(0, usage - (kb.get('Inactive(file)') ?? 0)),
    rssBytes: kb.get('AnonPages') ?? 0,
    pageFaults: counters.get('pgfault') ?? 0,
    majorPageFaults: counters.get('pgmajfault') ?? 0,
  };
}

/** The filesystem holding `path`: sizes and inodes (statfs). */
export function readFsUsage(path: string): FsUsage | undefined {
  try {
    const s = statfsSync(path);
    return {
      capacityBytes: s.blocks * s.bsize,
      availableBytes: s.bavail * s.bsize,
      usedBytes: (s.blocks - s.bfree) * s.bsize,
      inodes: s.files,
      inodesFree: s.ffree,
      inodesUsed: s.files - s.ffree,
    };
  } catch {
    return undefined;
  }
}

/** The process limit and how many processes run (/proc/sys/kernel/pid_max, /proc/loadavg). */
export function readRlimit(): { maxpid?: number; curproc?: number } {
  const maxpid = Number(read('/proc/sys/kernel/pid_max').trim());
  const total = read('/proc/loadavg').split(' ')[3]?.split('/')[1];
  return { maxpid: Number.isFinite(maxpid) && maxpid > 0 ? maxpid : undefined, curproc: total ? Number(total) : undefined };
}
