// A CronJob's schedule as kube-controller-manager reads it (robfig/cron's
// ParseStandard): five fields, the descriptors (@hourly, @every 1h30m...),
// an optional TZ= or CRON_TZ= prefix, in the CronJob's time zone or the
// host's. The fields are parsed by cron-parser; this file only shapes the
// input and the errors as the apiserver words them.
import { createRequire } from 'node:module';
import type * as CronParser from 'cron-parser';

// Loaded on the first schedule read: cron-parser and luxon take ~100 ms to
// load, which every command that decodes a manifest would pay otherwise.
let parser: typeof CronParser.CronExpressionParser | undefined;
function cronParser(): typeof CronParser.CronExpressionParser {
  return (parser ??= (createRequire(import.meta.url)('cron-parser') as typeof CronParser).CronExpressionParser);
}

export interface CronSchedule {
  /** The first activation strictly after AFTER (ms since the epoch). */
  next(after: number): number;
}

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const GO_DURATION_UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses SCHEDULE (in TIMEZONE when given); throws an Error with robfig/cron's text for a bad one. */
export function parseCronSchedule(schedule: string, timeZone?: string): CronSchedule {
  let spec = schedule.trim();
  if (spec === '') throw new Error('empty spec string');
  let tz = timeZone;
  const prefix = /^(?:CRON_)?TZ=(\S*)\s*/.exec(spec);
  if (prefix) {
    const problem = timeZoneProblem(prefix[1]);
    if (problem) throw new Error(`provided bad location ${prefix[1]}: ${problem}`);
    tz = prefix[1];
    spec = spec.slice(prefix[0].length);
  }
  if (spec.startsWith('@every ')) {
    const every = goDuration(spec.slice('@every '.length).trim());
    if (every === undefined) throw new Error(`failed to parse duration ${spec}: time: invalid duration "${spec.slice(7).trim()}"`);
    // ConstantDelaySchedule: at least a second, whole seconds, from the last activation.
    const delay = Math.max(1000, Math.floor(every / 1000) * 1000);
    return { next: (after) => Math.floor(after / 1000) * 1000 + delay };
  }
  if (spec.startsWith('@')) {
    const expanded = DESCRIPTORS[spec];
    if (!expanded) throw new Error(`unrecognized descriptor: ${spec}`);
    spec = expanded;
  }
  const fields = spec.split(/\s+/);
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  // robfig/cron takes numbers, names, *, ?, ranges, steps and lists; not cron-parser's L, W, # or H.
  const NAMES = /\b(JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC|SUN|MON|TUE|WED|THU|FRI|SAT)\b/gi;
  const odd = fields.find((f) => !/^[\d*?,/-]+$/.test(f.replace(NAMES, '0')));
  if (odd) throw new Error(`failed to parse int from ${odd}: strconv.Atoi: parsing ${JSON.stringify(odd)}: invalid syntax`);
  const options = (currentDate: number) => ({ currentDate: new Date(currentDate), ...(tz ? { tz } : {}) });
  // Parse once now, so a bad field is reported when the schedule is read, not when it fires.
  const CronExpressionParser = cronParser();
  CronExpressionParser.parse(spec, options(Date.UTC(2000, 0, 1)));
  return {
    next: (after) => CronExpressionParser.parse(spec, options(after)).next().getTime(),
  };
}

/** Why time.LoadLocation refuses NAME, or undefined when it is a zone Node knows. */
export function timeZoneProblem(name: string): string | undefined {
  if (name === '' || name === 'UTC') return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return undefined;
  } catch {
    return `unknown time zone ${name}`;
  }
}

/** MS as Go's time.Format(time.RFC3339) writes it in zone TZ ("Z" in UTC, else the offset). */
export function rfc3339InZone(ms: number, tz?: string): string {
  const seconds = Math.floor(ms / 1000) * 1000;
  if (!tz || tz === 'UTC' || tz === 'Etc/UTC') return new Date(seconds).toISOString().replace('.000Z', 'Z');
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(new Date(seconds))
      .map((p) => [p.type, p.value]),
  );
  const wall = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second);
  const offset = Math.round((wall - seconds) / 60_000);
  const local = new Date(wall).toISOString().slice(0, 19);
  if (offset === 0) return `${local}Z`;
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** A Go duration ("1h30m", "90s") in ms. */
function goDuration(text: string): number | undefined {
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(text)) return undefined;
  let total = 0;
  for (const [, n, , unit] of text.matchAll(/(\d+(\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) total += Number(n) * GO_DURATION_UNITS[unit];
  return total;
}
