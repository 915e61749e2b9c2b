import { describe, expect, it } from 'vitest';
import { parseCronSchedule, rfc3339InZone, timeZoneProblem } from '../../../../src/engine/api/cron-schedule.js';

const T = Date.UTC(2026, 2, 7, 12, 0, 0); // Saturday 7 March 2026, 12:00 UTC
const iso = (ms: number) => new Date(ms).toISOString();

describe('CronJob schedules, read as robfig/cron reads them', () => {
  it('gives the first time strictly after the one given, for fields and descriptors', () => {
    expect(iso(parseCronSchedule('*/15 * * * *', 'UTC').next(T))).toBe('2026-03-07T12:15:00.000Z');
    expect(iso(parseCronSchedule('0 9 * * MON-FRI', 'UTC').next(T))).toBe('2026-03-09T09:00:00.000Z');
    expect(iso(parseCronSchedule('@hourly', 'UTC').next(T))).toBe('2026-03-07T13:00:00.000Z');
    expect(iso(parseCronSchedule('@midnight', 'UTC').next(T))).toBe('2026-03-08T00:00:00.000Z');
    expect(iso(parseCronSchedule('@every 1h30m').next(T))).toBe('2026-03-07T13:30:00.000Z');
  });

  it('reads the fields in the time zone, across a DST change', () => {
    // New York moves to EDT (UTC-4) on 8 March 2026.
    const s = parseCronSchedule('0 9 * * *', 'America/New_York');
    const first = s.next(T);
    const second = s.next(first);
    expect(iso(first)).toBe('2026-03-07T14:00:00.000Z');
    expect(iso(second)).toBe('2026-03-08T13:00:00.000Z');
    expect(rfc3339InZone(first, 'America/New_York')).toBe('2026-03-07T09:00:00-05:00');
    expect(rfc3339InZone(second, 'America/New_York')).toBe('2026-03-08T09:00:00-04:00');
    expect(rfc3339InZone(T, 'America/New_York')).toBe('2026-03-07T07:00:00-05:00');
    expect(rfc3339InZone(T, 'Asia/Kolkata')).toBe('2026-03-07T17:30:00+05:30');
    expect(rfc3339InZone(T)).toBe('2026-03-07T12:00:00Z');
  });

  it('refuses what ParseStandard refuses, with its texts', () => {
    const error = (spec: string) => {
      try {
        parseCronSchedule(spec);
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(error('* * * *')).toBe('expected exactly 5 fields, found 4: [* * * *]');
    expect(error('0 0 * * * *')).toBe('expected exactly 5 fields, found 6: [0 0 * * * *]');
    expect(error('@fortnightly')).toBe('unrecognized descriptor: @fortnightly');
    expect(error('0 0 L * *')).toBe('failed to parse int from L: strconv.Atoi: parsing "L": invalid syntax');
    expect(error('')).toBe('empty spec string');
    expect(error('99 * * * *')).toBeDefined();
    expect(error('0 0 * JAN,FEB MON')).toBeUndefined();
    expect(timeZoneProblem('Mars/Olympus')).toBe('unknown time zone Mars/Olympus');
    expect(timeZoneProblem('Europe/Paris')).toBeUndefined();
  });
});
