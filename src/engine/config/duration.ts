/** Why a duration did not parse, and (in `hint`) how to write one. */
export class DurationError extends Error {
  readonly hint = 'use Go duration syntax, e.g. 20s, 1m30s, 500ms';
}

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A Go duration (`20s`, `1m30s`, `500ms`, `.5s`, `1h`) in milliseconds, as
 * the kubelet's flags and configuration file write them. Negative durations
 * and anything else are errors (the message names what is wrong).
 */
export function parseGoDuration(text: string): number {
  if (text.startsWith('-')) throw new DurationError(`duration "${text}" must not be negative`);
  const body = text.startsWith('+') ? text.slice(1) : text;
  if (body === '0') return 0;
  let total = 0;
  let consumed = 0;
  for (const match of body.matchAll(/(\d+\.?\d*|\.\d+)(ns|us|µs|ms|s|m|h)/g)) {
    if (match.index !== consumed) break;
    total += Number(match[1]) * UNITS[match[2]];
    consumed += match[0].length;
  }
  if (consumed !== body.length || consumed === 0) throw new DurationError(`invalid duration "${text}"`);
  return total;
}

/** Milliseconds as a Go duration (`1m0s` style simplified: `1m`, `20s`, `1m30s`, `500ms`). */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`;
}
