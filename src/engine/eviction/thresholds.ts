// Eviction thresholds as the kubelet reads them (pkg/kubelet/eviction/helpers.go,
// ParseThresholdConfig): evictionHard and evictionSoft statements of a signal
// and a quantity or a percentage, grace periods for the soft ones, and the
// minimum each eviction reclaims. Errors carry upstream's texts.
import { parseQuantity, quantityProblem } from '../api/quantity.js';
import { parseGoDuration } from '../config/duration.js';

export const SIGNALS = [
  'memory.available',
  'allocatableMemory.available',
  'nodefs.available',
  'nodefs.inodesFree',
  'imagefs.available',
  'imagefs.inodesFree',
  'containerfs.available',
  'containerfs.inodesFree',
  'pid.available',
] as const;
export type Signal = (typeof SIGNALS)[number];

export type PressureCondition = 'MemoryPressure' | 'DiskPressure' | 'PIDPressure';
export type StarvedResource = 'memory' | 'ephemeral-storage' | 'inodes' | 'pids';

/** signalToNodeCondition and signalToResource. */
export const SIGNAL_INFO: Record<Signal, { condition: PressureCondition; resource: StarvedResource }> = {
  'memory.available': { condition: 'MemoryPressure', resource: 'memory' },
  'allocatableMemory.available': { condition: 'MemoryPressure', resource: 'memory' },
  'nodefs.available': { condition: 'DiskPressure', resource: 'ephemeral-storage' },
  'nodefs.inodesFree': { condition: 'DiskPressure', resource: 'inodes' },
  'imagefs.available': { condition: 'DiskPressure', resource: 'ephemeral-storage' },
  'imagefs.inodesFree': { condition: 'DiskPressure', resource: 'inodes' },
  'containerfs.available': { condition: 'DiskPressure', resource: 'ephemeral-storage' },
  'containerfs.inodesFree': { condition: 'DiskPressure', resource: 'inodes' },
  'pid.available': { condition: 'PIDPressure', resource: 'pids' },
};

/** The taints a node under pressure gets (TaintNodesByCondition): pods that do not tolerate them are not scheduled there. */
export function pressureTaints(conditions: readonly PressureCondition[]): { key: string; effect: 'NoSchedule' }[] {
  const keys: Record<PressureCondition, string> = {
    MemoryPressure: 'node.kubernetes.io/memory-pressure',
    DiskPressure: 'node.kubernetes.io/disk-pressure',
    PIDPressure: 'node.kubernetes.io/pid-pressure',
  };
  return conditions.map((c) => ({ key: keys[c], effect: 'NoSchedule' }));
}

/** The kubelet's hard thresholds when evictionHard is not set (defaults_linux.go). */
export const DEFAULT_EVICTION_HARD: Readonly<Record<string, string>> = {
  'memory.available': '100Mi',
  'nodefs.available': '10%',
  'nodefs.inodesFree': '5%',
  'imagefs.available': '15%',
  'imagefs.inodesFree': '5%',
};

/** A quantity, or a fraction of the signal's capacity (a float32, as upstream keeps it). */
export interface ThresholdValue {
  quantity?: number;
  percentage?: number;
}

export interface Threshold {
  signal: Signal;
  value: ThresholdValue;
  /** 0 for a hard threshold; a soft one waits this long after it is first met. */
  gracePeriodMs: number;
  minReclaim?: ThresholdValue;
}

export interface EvictionSettings {
  /** The kubelet's defaults fill the signals evictionHard leaves out. */
  mergeDefaultEvictionSettings?: boolean;
  evictionHard: Record<string, string>;
  evictionSoft: Record<string, string>;
  evictionSoftGracePeriod: Record<string, string>;
  evictionMinimumReclaim: Record<string, string>;
}

const isSignal = (s: string): s is Signal => (SIGNALS as readonly string[]).includes(s);

function signalOf(name: string): Signal {
  if (!isSignal(name)) throw new Error(`unsupported eviction signal ${name}`);
  return name;
}

/** "10%" as upstream's float32 fraction. */
function percentage(text: string): number {
  const n = Number(text.slice(0, -1));
  if (text.trim() === '%' || !Number.isFinite(n))
    throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(text.slice(0, -1))}: invalid syntax`);
  return Math.fround(Math.fround(n) / 100);
}

function quantity(text: string): number {
  const problem = quantityProblem(text.replace(/^-/, ''));
  if (problem) throw new Error("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  return (text.startsWith('-') ? -1 : 1) * parseQuantity(text.replace(/^-/, ''));
}

/** parseThresholdStatement: undefined for 0% and 100%, which upstream ignores. */
function statement(name: string, text: string): Threshold | undefined {
  const signal = signalOf(name);
  if (text.endsWith('%')) {
    if (text === '0%' || text === '100%') return undefined;
    const p = percentage(text);
    if (p < 0) throw new Error(`eviction percentage threshold ${signal} must be >= 0%: ${text}`);
    if (p > 1) throw new Error(`eviction percentage threshold ${signal} must be <= 100%: ${text}`);
    return { signal, value: { percentage: p }, gracePeriodMs: 0 };
  }
  const q = quantity(text);
  if (q <= 0) throw new Error(`eviction threshold ${signal} must be positive: ${text}`);
  return { signal, value: { quantity: q }, gracePeriodMs: 0 };
}

/**
 * ParseThresholdConfig: the hard thresholds, then the soft ones with their
 * grace periods (a soft threshold without one is an error), each with its
 * minimum reclaim.
 */
export function parseThresholdConfig(settings: EvictionSettings): Threshold[] {
  const hardMap = settings.mergeDefaultEvictionSettings ? { ...DEFAULT_EVICTION_HARD, ...settings.evictionHard } : settings.evictionHard;
  const hard = Object.entries(hardMap).flatMap(([s, v]) => statement(s, v) ?? []);
  const soft = Object.entries(settings.evictionSoft).flatMap(([s, v]) => statement(s, v) ?? []);
  const grace = new Map<Signal, number>();
  for (const [name, text] of Object.entries(settings.evictionSoftGracePeriod)) {
    const signal = signalOf(name);
    const ms = parseGoDuration(text);
    if (ms < 0) throw new Error(`invalid eviction grace period specified: ${text}, must be a positive value`);
    grace.set(signal, ms);
  }
  const reclaim = new Map<Signal, ThresholdValue>();
  for (const [name, text] of Object.entries(settings.evictionMinimumReclaim)) {
    const signal = signalOf(name);
    if (text.endsWith('%')) {
      const p = percentage(text);
      if (p <= 0) throw new Error(`eviction percentage minimum reclaim ${signal} must be positive: ${text}`);
      reclaim.set(signal, { percentage: p });
    } else {
      const q = quantity(text);
      if (q < 0) throw new Error(`negative eviction minimum reclaim specified for ${signal}`);
      reclaim.set(signal, { quantity: q });
    }
  }
  for (const t of soft) {
    const period = grace.get(t.signal);
    if (period === undefined) throw new Error(`grace period must be specified for the soft eviction threshold ${t.signal}`);
    t.gracePeriodMs = period;
  }
  const all = [...hard, ...soft];
  for (const t of all) {
    const min = reclaim.get(t.signal);
    if (min) t.minReclaim = min;
  }
  return withContainerFs(all);
}

/**
 * UpdateContainerFsThresholds for a single filesystem (knode's runtimes keep
 * containers and images on the node's): containerfs thresholds are the
 * nodefs ones, whatever was given for containerfs.
 */
function withContainerFs(thresholds: Threshold[]): Threshold[] {
  const out = thresholds.filter((t) => t.signal !== 'containerfs.available' && t.signal !== 'containerfs.inodesFree');
  for (const [from, to] of [
    ['nodefs.available', 'containerfs.available'],
    ['nodefs.inodesFree', 'containerfs.inodesFree'],
  ] as const) {
    for (const t of thresholds.filter((x) => x.signal === from)) out.push({ ...t, signal: to });
  }
  return out;
}

export const isHardThreshold = (t: Threshold) => t.gracePeriodMs === 0;

/** GetThresholdQuantity: a percentage of the capacity, truncated as upstream's int64 conversion. */
export function thresholdQuantity(value: ThresholdValue, capacity: number): number {
  if (value.quantity !== undefined) return value.quantity;
  return Math.trunc(capacity * (value.percentage ?? 0));
}
