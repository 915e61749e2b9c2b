import type { PodTrace } from '../engine/trace.js';

const BAR_WIDTH = 40;

/**
 * A pod's start-up as a waterfall: each stage with its offset from the start,
 * its duration and a bar on a shared time axis; the slowest stage marked.
 */
export function formatWaterfall(trace: PodTrace): string {
  const end = trace.finishedAt ?? Math.max(trace.startedAt, ...trace.stages.map((s) => s.end));
  const total = Math.max(1, end - trace.startedAt);
  const slowest = trace.stages.reduce((best, s, i) => (s.end - s.start > trace.stages[best].end - trace.stages[best].start ? i : best), 0);
  const labels = trace.stages.map((s) => `${s.name}${s.container ? ` ${s.container}` : ''}`);
  const width = Math.max(...labels.map((l) => l.length), 10);
  const lines = [
    `${trace.pod} (${trace.uid}) ${trace.kind}: ${trace.outcome ?? 'in progress'} after ${ms(end - trace.startedAt)}`,
    '',
    `${'STAGE'.padEnd(width)}  ${'AT'.padStart(9)}  ${'TOOK'.padStart(9)}  TIMELINE`,
  ];
  trace.stages.forEach((s, i) => {
    const from = Math.round(((s.start - trace.startedAt) / total) * BAR_WIDTH);
    const length = Math.max(1, Math.round(((s.end - s.start) / total) * BAR_WIDTH));
    const bar = `${' '.repeat(Math.min(from, BAR_WIDTH - 1))}${'█'.repeat(Math.min(length, BAR_WIDTH - from) || 1)}`;
    const mark = i === slowest && trace.stages.length > 1 ? '  ◀ slowest' : '';
    lines.push(
      `${labels[i].padEnd(width)}  ${ms(s.end - trace.startedAt).padStart(9)}  ${ms(s.end - s.start).padStart(9)}  |${bar.padEnd(BAR_WIDTH)}|${mark}`,
    );
  });
  return lines.join('\n');
}

function ms(value: number): string {
  return value >= 1000 ? `${(value / 1000).toFixed(2)}s` : `${value.toFixed(1)}ms`;
}

/**
 * The traces as Chrome trace-event JSON (the format Perfetto and
 * chrome://tracing open): one complete event ("ph": "X") per stage, in
 * microseconds, one track per trace.
 */
export function toChromeTrace(traces: PodTrace[]): { traceEvents: object[]; displayTimeUnit: string } {
  const traceEvents: object[] = [];
  traces.forEach((t, tid) => {
    traceEvents.push({ name: 'thread_name', ph: 'M', pid: 1, tid, args: { name: `${t.pod} ${t.kind}` } });
    for (const s of t.stages) {
      traceEvents.push({
        name: `${s.name}${s.container ? ` ${s.container}` : ''}`,
        cat: 'pod',
        ph: 'X',
        ts: Math.round(s.start * 1000),
        dur: Math.max(1, Math.round((s.end - s.start) * 1000)),
        pid: 1,
        tid,
        args: { pod: t.pod, uid: t.uid },
      });
    }
  });
  return { traceEvents, displayTimeUnit: 'ms' };
}
