// What the eviction manager observes and decides from it, as upstream's
// helpers.go: an observation per signal (available and capacity), the
// thresholds met (optionally until their minimum reclaim), how long each has
// been met, and the node conditions they raise.
import type { NodeStats } from '../stats/types.js';
import { SIGNAL_INFO, thresholdQuantity, type PressureCondition, type Signal, type Threshold } from './thresholds.js';

export interface Observation {
  available: number;
  capacity: number;
  /** When the numbers were read (RFC 3339), to tell a fresh reading from a repeated one. */
  time?: string;
}
export type Observations = Map<Signal, Observation>;

/** The node's part of the summary the signals come from. */
export type NodeSignals = Pick<NodeStats, 'memory' | 'fs' | 'runtime' | 'rlimit'>;

/** makeSignalObservations: one observation for each signal the summary has numbers for. */
export function observe(node: NodeSignals): Observations {
  const out: Observations = new Map();
  const mem = node.memory;
  if (mem?.availableBytes !== undefined && mem.workingSetBytes !== undefined) {
    out.set('memory.available', { available: mem.availableBytes, capacity: mem.availableBytes + mem.workingSetBytes, time: mem.time });
  }
  const fs = (bytes: Signal, inodes: Signal, stats: NodeStats['fs']) => {
    if (!stats) return;
    if (stats.availableBytes !== undefined && stats.capacityBytes !== undefined)
      out.set(bytes, { available: stats.availableBytes, capacity: stats.capacityBytes, time: stats.time });
    if (stats.inodesFree !== undefined && stats.inodes !== undefined)
      out.set(inodes, { available: stats.inodesFree, capacity: stats.inodes, time: stats.time });
  };
  fs('nodefs.available', 'nodefs.inodesFree', node.fs);
  fs('imagefs.available', 'imagefs.inodesFree', node.runtime?.imageFs);
  fs('containerfs.available', 'containerfs.inodesFree', node.runtime?.containerFs);
  const rl = node.rlimit;
  if (rl?.maxpid !== undefined && rl.curproc !== undefined) {
    out.set('pid.available', { available: rl.maxpid - rl.curproc, capacity: rl.maxpid, time: rl.time });
  }
  return out;
}

/** thresholdsMet: the thresholds whose signal is below them (below them plus the minimum reclaim, when enforcing it). */
export function thresholdsMet(thresholds: Threshold[], observations: Observations, enforceMinReclaim: boolean): Threshold[] {
  return thresholds.filter((t) => {
    const seen = observations.get(t.signal);
    if (!seen) return false;
    let quantity = thresholdQuantity(t.value, seen.capacity);
    if (enforceMinReclaim && t.minReclaim) quantity += thresholdQuantity(t.minReclaim, seen.capacity);
    return quantity > seen.available;
  });
}

/** mergeThresholds: A, then what of B is not in A. */
export function mergeThresholds(a: Threshold[], b: Threshold[]): Threshold[] {
  return [...a, ...b.filter((t) => !a.includes(t))];
}

/** The conditions the thresholds raise, each once, in the thresholds' order. */
export function conditionsOf(thresholds: Threshold[]): PressureCondition[] {
  return [...new Set(thresholds.map((t) => SIGNAL_INFO[t.signal].condition))];
}

/** thresholdsFirstObservedAt: keeps when each threshold was first met; a threshold no longer met is forgotten. */
export function firstObservedAt(thresholds: Threshold[], before: Map<Threshold, number>, now: number): Map<Threshold, number> {
  return new Map(thresholds.map((t) => [t, before.get(t) ?? now]));
}

/** thresholdsMetGracePeriod: the thresholds met for at least their grace period. */
export function metGracePeriod(observedAt: Map<Threshold, number>, now: number): Threshold[] {
  return [...observedAt].filter(([t, at]) => now - at >= t.gracePeriodMs).map(([t]) => t);
}

/** thresholdsUpdatedStats: the thresholds whose signal was read again since the last pass. */
export function updatedStats(thresholds: Threshold[], now: Observations, last: Observations): Threshold[] {
  return thresholds.filter((t) => {
    const seen = now.get(t.signal);
    if (!seen) return false;
    const before = last.get(t.signal);
    return !before || !seen.time || !before.time || seen.time > before.time;
  });
}

/** byEvictionPriority: memory first, thresholds without a resource to reclaim last. */
export function byEvictionPriority(thresholds: Threshold[]): Threshold[] {
  const rank = (t: Threshold) => (t.signal === 'memory.available' || t.signal === 'allocatableMemory.available' ? 0 : 1);
  return [...thresholds].sort((a, b) => rank(a) - rank(b));
}
