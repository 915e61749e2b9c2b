// Which pod goes first, and the words it goes with (upstream's rank*
// functions and evictionMessage): under memory pressure the pods using more
// than they requested, then the lowest priority, then the most usage above
// the request; disk the same with ephemeral storage or inodes; PIDs by
// priority, then process count.
import { canonicalQuantity, formatByteQuantity, parseMemory } from '../api/quantity.js';
import type { Pod } from '../api/v1.js';
import { podRequest } from '../resource-request.js';
import type { PodStats } from '../stats/types.js';
import type { Observations } from './signals.js';
import { SIGNAL_INFO, thresholdQuantity, type Signal, type StarvedResource, type Threshold } from './thresholds.js';

export type StatsFor = (pod: Pod) => PodStats | undefined;
type Cmp = (a: Pod, b: Pod) => number;

/** cmpBool: true first. */
const cmpBool = (a: boolean, b: boolean) => (a === b ? 0 : a ? -1 : 1);

const priority: Cmp = (a, b) => Math.sign((a.spec.priority ?? 0) - (b.spec.priority ?? 0));

/** A pod's usage of the resource, as the ranking measures it (undefined: no stats). */
function usage(stats: PodStats, resource: StarvedResource): number {
  switch (resource) {
    case 'memory':
      return stats.memory?.workingSetBytes ?? 0;
    case 'ephemeral-storage':
      return stats['ephemeral-storage']?.usedBytes ?? 0;
    case 'inodes':
      return stats['ephemeral-storage']?.inodesUsed ?? 0;
    case 'pids':
      return stats.process_stats?.process_count ?? 0;
  }
}

const request = (pod: Pod, resource: StarvedResource) =>
  resource === 'memory' || resource === 'ephemeral-storage' ? podRequest(pod, resource) : 0;

/** Pods without stats go first, as upstream evicts the pod it cannot measure. */
function withStats(statsFor: StatsFor, then: (a: PodStats, b: PodStats) => number): Cmp {
  return (p1, p2) => {
    const a = statsFor(p1);
    const b = statsFor(p2);
    if (!a || !b) return cmpBool(!a, !b);
    return then(a, b);
  };
}

function exceedsRequests(statsFor: StatsFor, resource: StarvedResource): Cmp {
  return (p1, p2) =>
    withStats(statsFor, (a, b) => cmpBool(usage(a, resource) > request(p1, resource), usage(b, resource) > request(p2, resource)))(p1, p2);
}

function aboveRequests(statsFor: StatsFor, resource: StarvedResource): Cmp {
  // Disk usage is measured against the ephemeral-storage request whether bytes or inodes are short, as upstream.
  const req = (p: Pod) => (resource === 'inodes' ? podRequest(p, 'ephemeral-storage') : request(p, resource));
  return (p1, p2) => withStats(statsFor, (a, b) => Math.sign(usage(b, resource) - req(p2) - (usage(a, resource) - req(p1))))(p1, p2);
}

function processes(statsFor: StatsFor): Cmp {
  return (p1, p2) => withStats(statsFor, (a, b) => Math.sign(usage(b, 'pids') - usage(a, 'pids')))(p1, p2);
}

/** Sorts by each comparison in turn (upstream's multiSorter). */
function orderedBy(pods: Pod[], ...cmps: Cmp[]): Pod[] {
  return [...pods].sort((a, b) => {
    for (const cmp of cmps) {
      const c = cmp(a, b);
      if (c !== 0) return c;
    }
    return 0;
  });
}

/** The pods in the order they are evicted for the signal. */
export function rankForEviction(pods: Pod[], signal: Signal, statsFor: StatsFor): Pod[] {
  const resource = SIGNAL_INFO[signal].resource;
  if (resource === 'pids') return orderedBy(pods, priority, processes(statsFor));
  return orderedBy(pods, exceedsRequests(statsFor, resource), priority, aboveRequests(statsFor, resource));
}

/** A Go resource.Quantity's text for bytes (BinarySI) or counts (DecimalSI). */
export function quantityText(value: number, resource: StarvedResource): string {
  if (value === 0) return '0';
  if ((resource === 'memory' || resource === 'ephemeral-storage') && Math.abs(value) >= 1024) return formatByteQuantity(value);
  const suffixes = ['', 'k', 'M', 'G', 'T', 'P', 'E'];
  let n = value;
  let i = 0;
  while (i < suffixes.length - 1 && n % 1000 === 0) {
    n /= 1000;
    i++;
  }
  return `${n}${suffixes[i]}`;
}

/**
 * evictionMessage: the starved resource, the threshold and what was
 * available, and each container using more of it than it requested.
 */
export function evictionMessage(
  resource: StarvedResource,
  pod: Pod,
  stats: PodStats | undefined,
  thresholds: Threshold[],
  observations: Observations,
): string {
  let message = `The node was low on resource: ${resource}. `;
  const met = thresholds.find((t) => SIGNAL_INFO[t.signal].resource === resource && observations.has(t.signal));
  if (met) {
    const seen = observations.get(met.signal)!;
    message += `Threshold quantity: ${quantityText(thresholdQuantity(met.value, seen.capacity), resource)}, available: ${quantityText(seen.available, resource)}. `;
  }
  if (!stats) return message;
  const containers = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])];
  for (const cs of stats.containers) {
    const container = containers.find((c) => c.name === cs.name);
    if (!container) continue;
    const req = container.resources?.requests?.[resource];
    const requested = req === undefined ? 0 : parseMemory(req);
    let used: number | undefined;
    if (resource === 'memory') used = cs.memory?.workingSetBytes;
    else if (resource === 'ephemeral-storage' && cs.rootfs?.usedBytes !== undefined && cs.logs?.usedBytes !== undefined)
      used = cs.rootfs.usedBytes + cs.logs.usedBytes;
    if (used !== undefined && used > requested) {
      const reqText = req === undefined ? '0' : canonicalQuantity(req);
      message += `Container ${container.name} was using ${quantityText(used, resource)}, request is ${reqText}, has larger consumption of ${resource}. `;
    }
  }
  return message;
}
