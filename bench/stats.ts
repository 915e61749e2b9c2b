/** Percentile by nearest rank over a copy of the samples. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export const median = (samples: number[]) => percentile(samples, 50);

export async function timed<T>(samples: number[], fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await fn();
  samples.push(performance.now() - started);
  return result;
}

export const ms = (value: number) => `${value.toFixed(2)} ms`;

/** Prints rows as an aligned table. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** A Prometheus histogram as scraped: cumulative counts by upper bound, ascending, +Inf last. */
export interface Histogram {
  buckets: [number, number][];
  sum: number;
  count: number;
}

/** The histogram `name` in Prometheus text, summed over every label set (e.g. each operation_type). */
export function parseHistogram(text: string, name: string): Histogram {
  const byBound = new Map<number, number>();
  let sum = 0;
  let count = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.startsWith(`${name}_bucket{`)) {
      const le = /le="([^"]+)"/.exec(line)![1];
      const bound = le === '+Inf' ? Infinity : Number(le);
      byBound.set(bound, (byBound.get(bound) ?? 0) + value);
    } else if (line.startsWith(`${name}_sum`)) sum += value;
    else if (line.startsWith(`${name}_count`)) count += value;
  }
  return { buckets: [...byBound].sort((a, b) => a[0] - b[0]), sum, count };
}

/** What was observed between two scrapes of the same histogram. */
export function histogramDelta(after: Histogram, before: Histogram): Histogram {
  const earlier = new Map(before.buckets);
  return {
    buckets: after.buckets.map(([le, n]) => [le, n - (earlier.get(le) ?? 0)]),
    sum: after.sum - before.sum,
    count: after.count - before.count,
  };
}

/**
 * Prometheus's histogram_quantile: linear within the bucket the rank falls in
 * (an estimate: the true value is somewhere in that bucket); a rank in the
 * +Inf bucket gives the highest finite bound. q in 0..1.
 */
export function histogramQuantile(h: Histogram, q: number): number {
  if (h.count === 0) return NaN;
  const rank = q * h.count;
  let lower = 0;
  let below = 0;
  for (const [le, n] of h.buckets) {
    if (n >= rank) {
      if (le === Infinity) return lower;
      return lower + (le - lower) * ((rank - below) / (n - below || 1));
    }
    lower = le;
    below = n;
  }
  return lower;
}
