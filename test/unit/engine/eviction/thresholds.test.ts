import { describe, expect, it } from 'vitest';
import {
  DEFAULT_EVICTION_HARD,
  parseThresholdConfig,
  pressureTaints,
  thresholdQuantity,
} from '../../../../src/engine/eviction/thresholds.js';

const none = { evictionHard: {}, evictionSoft: {}, evictionSoftGracePeriod: {}, evictionMinimumReclaim: {} };

describe('eviction thresholds (ParseThresholdConfig)', () => {
  it('reads the default hard thresholds, with containerfs following nodefs', () => {
    const t = parseThresholdConfig({ ...none, evictionHard: { ...DEFAULT_EVICTION_HARD } });
    expect(t.map((x) => x.signal)).toEqual([
      'memory.available',
      'nodefs.available',
      'nodefs.inodesFree',
      'imagefs.available',
      'imagefs.inodesFree',
      'containerfs.available',
      'containerfs.inodesFree',
    ]);
    expect(t[0]).toEqual({ signal: 'memory.available', value: { quantity: 100 * 1024 * 1024 }, gracePeriodMs: 0 });
    expect(t[1].value.percentage).toBe(Math.fround(0.1));
    expect(t.every((x) => x.gracePeriodMs === 0)).toBe(true);
  });

  it('gives soft thresholds their grace period and every threshold its minimum reclaim', () => {
    const t = parseThresholdConfig({
      evictionHard: { 'memory.available': '1Gi' },
      evictionSoft: { 'memory.available': '2Gi' },
      evictionSoftGracePeriod: { 'memory.available': '1m30s' },
      evictionMinimumReclaim: { 'memory.available': '500Mi' },
    });
    expect(t.map((x) => [x.value.quantity, x.gracePeriodMs, x.minReclaim])).toEqual([
      [1024 ** 3, 0, { quantity: 500 * 1024 ** 2 }],
      [2 * 1024 ** 3, 90_000, { quantity: 500 * 1024 ** 2 }],
    ]);
  });

  it('ignores 0% and 100%, and merges the defaults only when asked', () => {
    expect(parseThresholdConfig({ ...none, evictionHard: { 'nodefs.available': '0%', 'pid.available': '100%' } })).toEqual([]);
    const merged = parseThresholdConfig({ ...none, mergeDefaultEvictionSettings: true, evictionHard: { 'memory.available': '1Gi' } });
    expect(merged.find((x) => x.signal === 'memory.available')?.value).toEqual({ quantity: 1024 ** 3 });
    expect(merged.some((x) => x.signal === 'imagefs.available')).toBe(true);
  });

  it.each([
    [{ evictionHard: { 'memory.free': '1Gi' } }, 'unsupported eviction signal memory.free'],
    [{ evictionHard: { 'memory.available': '0' } }, 'eviction threshold memory.available must be positive: 0'],
    [{ evictionHard: { 'nodefs.available': '120%' } }, 'eviction percentage threshold nodefs.available must be <= 100%: 120%'],
    [{ evictionHard: { 'nodefs.available': '-5%' } }, 'eviction percentage threshold nodefs.available must be >= 0%: -5%'],
    [{ evictionSoft: { 'memory.available': '1Gi' } }, 'grace period must be specified for the soft eviction threshold memory.available'],
    [{ evictionMinimumReclaim: { 'memory.available': '-1Mi' } }, 'negative eviction minimum reclaim specified for memory.available'],
    [{ evictionMinimumReclaim: { 'nodefs.available': '0%' } }, 'eviction percentage minimum reclaim nodefs.available must be positive: 0%'],
  ])('refuses %j with the kubelet’s words', (given, message) => {
    expect(() => parseThresholdConfig({ ...none, ...given })).toThrow(message);
  });

  it('takes a percentage of the capacity as upstream’s float32 and int64 do', () => {
    // float32(0.1) is a little over a tenth: of 100 GiB it gives 10737418400 bytes, not 10737418240.
    expect(thresholdQuantity({ percentage: Math.fround(0.1) }, 100 * 1024 ** 3)).toBe(10737418400);
    expect(thresholdQuantity({ quantity: 5 }, 1)).toBe(5);
  });

  it('names the NoSchedule taint of each pressure condition', () => {
    expect(pressureTaints(['MemoryPressure', 'DiskPressure', 'PIDPressure']).map((t) => t.key)).toEqual([
      'node.kubernetes.io/memory-pressure',
      'node.kubernetes.io/disk-pressure',
      'node.kubernetes.io/pid-pressure',
    ]);
  });
});
