import type { PodStats, Summary } from '../engine/stats/types.js';
import { formatTable } from './pod-table.js';
import { compareStrings } from '../util/compare.js';

/** CPU as kubectl top prints it: millicores, rounded up (resource.Quantity's MilliValue). */
export function formatCpu(nanoCores: number | undefined): string {
  return nanoCores === undefined ? '<unknown>' : `${Math.ceil(nanoCores / 1e6)}m`;
}

/** Memory as kubectl top prints it: whole mebibytes, rounded down. */
export function formatMemory(bytes: number | undefined): string {
  return bytes === undefined ? '<unknown>' : `${Math.floor(bytes / (1024 * 1024))}Mi`;
}

export interface PodUsage {
  namespace: string;
  name: string;
  nanoCores?: number;
  workingSetBytes?: number;
  containers: { name: string; nanoCores?: number; workingSetBytes?: number }[];
}

/**
 * What metrics-server makes of a Summary for `kubectl top pods`: a pod's usage
 * is the sum of its containers' (CPU rate and working set). A container whose
 * CPU rate is not known yet (a first reading) leaves its pod's CPU unknown.
 */
export function podUsage(pod: PodStats): PodUsage {
  const containers = pod.containers.map((c) => ({
    name: c.name,
    nanoCores: c.cpu?.usageNanoCores,
    workingSetBytes: c.memory?.workingSetBytes,
  }));
  const sum = (pick: (c: (typeof containers)[number]) => number | undefined) =>
    containers.some((c) => pick(c) === undefined) ? undefined : containers.reduce((n, c) => n + (pick(c) ?? 0), 0);
  return {
    namespace: pod.podRef.namespace,
    name: pod.podRef.name,
    nanoCores: sum((c) => c.nanoCores),
    workingSetBytes: sum((c) => c.workingSetBytes),
    containers,
  };
}

export type TopSort = 'cpu' | 'memory' | undefined;

/**
 * `kubectl top pods` (and `--containers`, `-A`) from a Summary. As kubectl does,
 * `--sort-by` orders the pods by their sums and, with `--containers`, each
 * pod's containers among themselves (by name when unsorted): a pod's rows stay together.
 */
export function topPodsTable(summary: Summary, opts: { containers: boolean; allNamespaces: boolean; sortBy: TopSort }): string {
  const pods = summary.pods.filter((p) => p.containers.length > 0).map(podUsage);
  const key = (u: { nanoCores?: number; workingSetBytes?: number }) =>
    opts.sortBy === 'cpu' ? (u.nanoCores ?? -1) : (u.workingSetBytes ?? -1);
  if (opts.sortBy) pods.sort((a, b) => key(b) - key(a));
  else pods.sort((a, b) => compareStrings(`${a.namespace}/${a.name}`, `${b.namespace}/${b.name}`));
  const ns = (p: PodUsage) => (opts.allNamespaces ? [p.namespace] : []);
  if (opts.containers) {
    const header = [...(opts.allNamespaces ? ['NAMESPACE'] : []), 'POD', 'NAME', 'CPU(cores)', 'MEMORY(bytes)'];
    const ordered = (cs: PodUsage['containers']) =>
      [...cs].sort(opts.sortBy ? (a, b) => key(b) - key(a) : (a, b) => compareStrings(a.name, b.name));
    const rows = pods.flatMap((p) =>
      ordered(p.containers).map((c) => [...ns(p), p.name, c.name, formatCpu(c.nanoCores), formatMemory(c.workingSetBytes)]),
    );
    return formatTable(header, rows);
  }
  const header = [...(opts.allNamespaces ? ['NAMESPACE'] : []), 'NAME', 'CPU(cores)', 'MEMORY(bytes)'];
  return formatTable(
    header,
    pods.map((p) => [...ns(p), p.name, formatCpu(p.nanoCores), formatMemory(p.workingSetBytes)]),
  );
}

/** `kubectl top node`: usage against what the node has (cores, memory). */
export function topNodeTable(summary: Summary, capacity: { cpuCores: number; memoryBytes: number }): string {
  const cpu = summary.node.cpu?.usageNanoCores;
  const memory = summary.node.memory?.workingSetBytes;
  // kubectl's integer arithmetic: millicores (rounded up) and bytes, percentages rounded down.
  const percent = (used: number | undefined, total: number) => (used === undefined ? '<unknown>' : `${Math.floor((used * 100) / total)}%`);
  return formatTable(
    ['NAME', 'CPU(cores)', 'CPU(%)', 'MEMORY(bytes)', 'MEMORY(%)'],
    [
      [
        summary.node.nodeName,
        formatCpu(cpu),
        percent(cpu === undefined ? undefined : Math.ceil(cpu / 1e6), capacity.cpuCores * 1000),
        formatMemory(memory),
        percent(memory, capacity.memoryBytes),
      ],
    ],
  );
}
