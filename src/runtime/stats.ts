import { readdirSync } from 'node:fs';
import { readProcStat, type ProcStat } from './proc.js';

/** USER_HZ and the page size of Linux on the architectures Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;
const PAGE_SIZE = 4096;

export interface GroupUsage {
  cpuNanoseconds: number;
  rssBytes: number;
  processes: number;
}

/**
 * CPU time and resident memory per process group, from one pass over /proc.
 * A container is a process group here, so this is its usage.
 */
export function usageByProcessGroup(): Map<number, GroupUsage> {
  const usage = new Map<number, GroupUsage>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const stat = readProcStat(pid);
    if (!stat) continue;
    const group = usage.get(stat.pgid) ?? { cpuNanoseconds: 0, rssBytes: 0, processes: 0 };
    group.cpuNanoseconds += ((stat.utimeTicks + stat.stimeTicks) * 1e9) / CLOCK_TICKS_PER_SECOND;
    group.rssBytes += stat.rssPages * PAGE_SIZE;
    group.processes++;
    usage.set(stat.pgid, group);
  }
  return usage;
}

/** A group's usage without one of its processes (a wrapper that is not the container's, as a runtime's shim is not). */
export function withoutProcess(group: GroupUsage, stat: ProcStat | undefined): GroupUsage {
  if (!stat) return group;
  return {
    cpuNanoseconds: Math.max(0, group.cpuNanoseconds - ((stat.utimeTicks + stat.stimeTicks) * 1e9) / CLOCK_TICKS_PER_SECOND),
    rssBytes: Math.max(0, group.rssBytes - stat.rssPages * PAGE_SIZE),
    processes: Math.max(0, group.processes - 1),
  };
}

/** Turns cumulative CPU time into a rate (nano-cores) between two readings of the same container. */
export class CpuRate {
  private readonly last = new Map<string, { at: number; cpu: number }>();

  nanoCores(id: string, atNs: number, cpuNanoseconds: number): number {
    const previous = this.last.get(id);
    this.last.set(id, { at: atNs, cpu: cpuNanoseconds });
    if (!previous || atNs <= previous.at || cpuNanoseconds < previous.cpu) return 0;
    return Math.round(((cpuNanoseconds - previous.cpu) / (atNs - previous.at)) * 1e9);
  }

  forget(id: string): void {
    this.last.delete(id);
  }
}
