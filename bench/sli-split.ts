// Where a joined knode's pods spent their start-up, from the bench's own
// watch and knode's lifecycle events (its --output json) on the same epoch
// clock: the control plane's part before knode sees a pod and after it
// reports it Running, and knode's steps between.
import { readFileSync } from 'node:fs';
import type { PodMarks } from './cluster.js';
import { median, table } from './stats.js';

/** The stages of one pod's start, in order; each ends where the next begins. */
export const STAGES = [
  ['scheduled', 'create call sent -> the watch shows the pod bound'],
  ['seen', "bound -> knode's PodSeen"],
  ['volumes', 'PodSeen -> VolumesReady (its service account token, ConfigMaps, Secrets)'],
  ['started', 'VolumesReady -> PodRunning (sandbox, containers, the runtime)'],
  ['reported', 'PodRunning -> the watch shows it Running and ready (the status patch)'],
] as const;

export type Stage = (typeof STAGES)[number][0];

/** Each stage's p50 over the round's pods, and how many pods had every mark. */
export interface StageSplit {
  pods: number;
  p50: Record<Stage, number>;
}

interface LifecycleEvent {
  type: string;
  pod?: string;
  at: number;
}

/** The first time of each event type per pod (`namespace/name`) in knode's --output json log. */
function firstEvents(logFile: string): Map<string, Map<string, number>> {
  const byPod = new Map<string, Map<string, number>>();
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    const e = JSON.parse(line) as LifecycleEvent;
    if (!e.pod) continue;
    const seen = byPod.get(e.pod) ?? new Map<string, number>();
    if (!seen.has(e.type)) seen.set(e.type, e.at);
    byPod.set(e.pod, seen);
  }
  return byPod;
}

/** The round's split: its pods' marks (the bench's watch) beside knode's events for them. */
export function splitRound(logFile: string, namespace: string, marks: Map<string, PodMarks>): StageSplit {
  const events = firstEvents(logFile);
  const samples: Record<Stage, number[]> = { scheduled: [], seen: [], volumes: [], started: [], reported: [] };
  for (const [name, m] of marks) {
    const e = events.get(`${namespace}/${name}`);
    const [seen, volumes, running] = ['PodSeen', 'VolumesReady', 'PodRunning'].map((t) => e?.get(t));
    if (m.bound === undefined || m.ready === undefined || seen === undefined || volumes === undefined || running === undefined) continue;
    samples.scheduled.push(m.bound - m.sent);
    samples.seen.push(seen - m.bound);
    samples.volumes.push(volumes - seen);
    samples.started.push(running - volumes);
    samples.reported.push(m.ready - running);
  }
  const p50 = Object.fromEntries(STAGES.map(([s]) => [s, samples[s].length > 0 ? median(samples[s]) : NaN])) as Record<Stage, number>;
  return { pods: samples.seen.length, p50 };
}

/** One row per knode round: each stage's p50, in ms. */
export function reportSplits(rounds: { agent: string; mode: string; pods: number; split?: StageSplit }[]): string {
  const rows = rounds.filter((r) => r.split && r.split.pods > 0);
  if (rows.length === 0) return '';
  return [
    `\nWhere each knode pod's start-up went, p50 of each stage (ms; the bench's watch and knode's events on one clock):`,
    ...STAGES.map(([s, what]) => `  ${s}: ${what}`),
    '',
    table(
      ['agent', 'round', 'pods', ...STAGES.map(([s]) => s)],
      rows.map((r) => [r.agent, `${r.pods} ${r.mode}`, String(r.split!.pods), ...STAGES.map(([s]) => r.split!.p50[s].toFixed(1))]),
    ),
  ].join('\n');
}
