// The soak's figures as `npm run bench -- soak` prints them (bench/soak.ts
// measures them): the root dir over time against its bound, and knode's and
// the runtime's RSS and open files after the first minute and at the end.
import { availableParallelism } from 'node:os';
import { PROCESSES, type SoakFigures, type SoakSample } from './soak.js';
import { median, ms, percentile, table } from './stats.js';

const MiB = 1024 * 1024;
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
/** Room the bound leaves for the containers' records and sandboxes, and a compression's temporary file. */
export const SLACK = 32 * MiB;
/** The window whose median is a figure "after the first minute" or "at the end" (s). */
const WINDOW = 15;

/** The root dir's bound and its parts: what the bench measured before the pods, and what rotation allows each log. */
export function soakBound(f: SoakFigures): { bytes: number; parts: string } {
  const c = f.config;
  // A log is checked every monitor interval: it may grow by rate × interval past maxSize before it is rotated.
  const perFile = c.maxSize + c.rate * c.monitorSeconds;
  const logs = c.pods * c.maxFiles * perFile;
  const parts =
    `images ${mib(f.imagesBytes)} (every image of the bench pulled at once) + the rest of the root dir before the pods ${mib(f.stateBytes)}` +
    ` + logs ${c.pods} pods × ${c.maxFiles} files × (${mib(c.maxSize)} + ${mib(c.rate)}/s × ${c.monitorSeconds} s) = ${mib(logs)}` +
    ` + slack ${mib(SLACK)}`;
  return { bytes: f.imagesBytes + f.stateBytes + logs + SLACK, parts };
}

/** When "after the first minute" is: 60 s, or half a run shorter than two minutes. */
export function firstAt(seconds: number): number {
  return seconds >= 120 ? 60 : seconds / 2;
}

function windowMedian(samples: SoakSample[], at: number, pick: (s: SoakSample) => number): number {
  const inWindow = samples.filter((s) => s.t <= at + 0.5 && s.t >= at - WINDOW);
  return median((inWindow.length > 0 ? inWindow : [samples.at(-1)!]).map(pick));
}

export function reportSoak(f: SoakFigures): string {
  const c = f.config;
  const bound = soakBound(f);
  const every = c.seconds >= 300 ? 30 : 10;
  const rows: string[][] = [];
  let peak = 0;
  let lastRow = -Infinity;
  for (const s of f.samples) {
    peak = Math.max(peak, s.rootBytes);
    if (s.t - lastRow < every - 0.5 && s !== f.samples.at(-1)) continue;
    lastRow = s.t;
    rows.push([
      `${s.t.toFixed(0)} s`,
      mib(s.rootBytes),
      mib(peak),
      mib(s.logsBytes),
      mib(s.imagesBytes),
      mib(s.rootBytes - s.logsBytes - s.imagesBytes),
      mib(s.largestLog),
      String(s.mostFiles),
      ...PROCESSES.map((p) => mib(s.rssKiB[p] * 1024)),
      ...PROCESSES.map((p) => String(s.files[p])),
    ]);
    peak = 0;
  }
  const largest = f.samples.reduce((a, b) => (b.rootBytes > a.rootBytes ? b : a));
  const first = firstAt(c.seconds);
  const last = f.samples.at(-1)!.t;
  const compare = (what: string, pick: (s: SoakSample) => number, unit: (n: number) => string) => {
    const a = windowMedian(f.samples, first, pick);
    const b = windowMedian(f.samples, last, pick);
    const change = (b / a - 1) * 100;
    // A figure that fell by more than 10 % leaked nothing: the goal guards against growth.
    const verdict = Math.abs(change) <= 10 ? 'met' : change < 0 ? 'met (it fell)' : 'NOT met';
    return `  ${what}: ${unit(a)} after ${first.toFixed(0)} s -> ${unit(b)} at ${last.toFixed(0)} s (${change >= 0 ? '+' : ''}${change.toFixed(1)} %): ${verdict}`;
  };
  const kib = (n: number) => mib(n * 1024);
  const count = (n: number) => n.toFixed(0);
  const rate = f.loggedBytes / f.elapsedSeconds;
  const wanted = c.rate * c.pods;
  const sizes = f.rotations.map((r) => r.size);
  return [
    `\nSoak: ${c.pods} pods each writing ${mib(c.rate)}/s of log lines for ${c.seconds} s on knode run (embedded runtime, its own root dir); containerLogMaxSize ${mib(c.maxSize)}, containerLogMaxFiles ${c.maxFiles}, checked every ${c.monitorSeconds} s; an image pulled and the one before removed every ${c.pullSeconds} s; a sample every ${c.sampleSeconds} s\n`,
    table(
      [
        't',
        'root dir',
        'peak since last row',
        'pod logs',
        'images',
        'other',
        'largest N.log',
        'most log files',
        ...PROCESSES.map((p) => `${p} RSS`),
        ...PROCESSES.map((p) => `${p} fds`),
      ],
      rows,
    ),
    '',
    `Bound: ${bound.parts} = ${mib(bound.bytes)}`,
    `Goal: the root dir stays under its bound: largest ${mib(largest.rootBytes)} at ${largest.t.toFixed(0)} s against ${mib(bound.bytes)}: ${largest.rootBytes <= bound.bytes ? 'met' : 'NOT met'}`,
    `  at the end: ${mib(f.endBytes)} (du -sx: ${mib(f.duBytes)})`,
    `Goal: RSS and open files end within 10 % of the first minute (each the median of the samples of the ${WINDOW} s before):`,
    ...PROCESSES.flatMap((p) => [compare(`${p} RSS`, (s) => s.rssKiB[p], kib), compare(`${p} open files`, (s) => s.files[p], count)]),
    `Logs written: ${mib(rate)}/s in all (${((rate / wanted) * 100).toFixed(0)} % of the ${mib(wanted)}/s asked), ${sizes.length} rotations`,
    `  a log's size when rotated: median ${mib(median(sizes))}, p99 ${mib(percentile(sizes, 99))}, max ${mib(Math.max(...sizes))} (rotated from ${mib(c.maxSize)}; the bound allows ${mib(c.maxSize + c.rate * c.monitorSeconds)}: one check's growth past it)`,
    `  the pod logs peaked at ${mib(Math.max(...f.samples.map((s) => s.logsBytes)))}; ${c.pods} pods × ${c.maxFiles} files × ${mib(c.maxSize)} alone would be ${mib(c.pods * c.maxFiles * c.maxSize)}`,
    `CPU over the run: ${PROCESSES.map((p) => `${p} ${(f.cpuSeconds[p] / f.elapsedSeconds).toFixed(2)} cores`).join(', ')}; the whole machine ${f.machineCores.toFixed(2)} of ${availableParallelism()} cores busy (the writers, and whatever else runs on it)`,
    `Images: ${f.pulls.length} pulls (median ${ms(median(f.pulls))}), ${f.removals} removals${f.pullErrors.length ? `; errors: ${f.pullErrors.join('; ')}` : ''}; the unused image ${f.unusedLeft ? 'was still there at the end' : 'was collected by the image garbage collector'}`,
    `Events: ${Object.entries(f.events)
      .map(([type, n]) => `${type} ${n}`)
      .join(', ')}`,
    ...(f.collected.length ? [`Collected: ${f.collected.join('; ')}`] : []),
    ...(f.failures.length ? [`Failures: ${f.failures.join('; ')}`] : []),
  ].join('\n');
}
