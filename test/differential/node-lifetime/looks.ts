// The looks of the node-lifetime differential, the same for both agents: a
// container's log directory as rotation leaves it, and what the runtime and
// the pod log directory hold of a pod (its containers, sandboxes, logs).
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CriClient } from '../../../src/cri/client.js';
import { KubeletLabels } from '../../../src/cri/types.js';
import { LOG_MAX_FILES, LOG_MAX_SIZE, LOG_MONITOR_SECONDS } from './scenarios.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A log file's name as a shape: `N.log`, `N.log.<timestamp>` (the kubelet's 20060102-150405), `.gz`, `.tmp` (being compressed). */
export function shapeOf(name: string): string {
  return name
    .replace(/^\d+\.log/, 'N.log')
    .replace(/\.\d{8}-\d{6}/, '.<timestamp>')
    .replace(/^N\.log\.<timestamp>\.gz$/, 'N.log.<timestamp>.gz');
}

const isTmp = (name: string) => name.endsWith('.tmp');

function listLogs(dir: string): { name: string; size: number }[] {
  try {
    return readdirSync(dir)
      .sort()
      .map((name) => {
        try {
          return { name, size: statSync(join(dir, name)).size };
        } catch {
          return { name, size: -1 };
        }
      })
      .filter((f) => f.size >= 0);
  } catch {
    return [];
  }
}

/** The batch number (`b=N`) of the last whole line of the CRI log file FILE, or -1. */
function lastBatchInFile(file: string): number {
  const fd = openSync(file, 'r');
  try {
    const size = statSync(file).size;
    const len = Math.min(size, 8192);
    const buf = Buffer.alloc(len);
    readSync(fd, buf, 0, len, size - len);
    const lines = buf.toString('utf8').split('\n').slice(0, -1);
    const m = lines.at(-1)?.match(/ b=(\d+) /);
    return m ? Number(m[1]) : -1;
  } finally {
    closeSync(fd);
  }
}

export interface LogLook {
  checkpoints: Map<string, string>;
}

const MIB = 1024 * 1024;
const mib = (n: number) => `${(n / MIB).toFixed(2)} MiB`;

/**
 * Watches DIR (a container's log directory) from STARTED: once a second until
 * the agent has rotated it to LOG_MAX_FILES files with a compressed one and
 * 40 s have passed (70 s at most), keeping the most files seen at once; then
 * its files' shapes and sizes, whether the current file grows, and whether
 * the agent's log read (READ, the last TAIL lines) returns the newest lines.
 */
export async function logLook(
  dir: string,
  started: number,
  fact: (line: string) => void,
  read: (tailLines: number) => Promise<string>,
): Promise<LogLook> {
  const out = new Map<string, string>();
  let most = 0;
  let files: { name: string; size: number }[];
  for (;;) {
    files = listLogs(dir);
    const kept = files.filter((f) => !isTmp(f.name));
    most = Math.max(most, kept.length);
    const settled = kept.length === LOG_MAX_FILES && kept.some((f) => f.name.endsWith('.gz'));
    const elapsed = Date.now() - started;
    if ((settled && elapsed >= 40_000) || elapsed >= 70_000) break;
    await sleep(1000);
  }
  const kept = files.filter((f) => !isTmp(f.name));
  fact(`log directory after ${((Date.now() - started) / 1000).toFixed(0)} s: ${files.map((f) => `${f.name} ${f.size}`).join(', ')}`);
  out.set('file names', kept.map((f) => shapeOf(f.name)).join('\n') || 'none');
  out.set('most files at once', `${most} (containerLogMaxFiles ${LOG_MAX_FILES})`);

  // The current file grows: its size twice, half a second apart, until it grew (a rotation between starts over).
  const current = kept.find((f) => shapeOf(f.name) === 'N.log');
  let grew = false;
  let rate = 0;
  if (current) {
    const path = join(dir, current.name);
    for (let i = 0; i < 10 && !grew; i++) {
      const t1 = Date.now();
      const s1 = statSync(path).size;
      await sleep(2000);
      const s2 = statSync(path).size;
      grew = s2 > s1;
      if (grew) rate = (s2 - s1) / ((Date.now() - t1) / 1000);
    }
  }
  out.set('current file grows', current ? (grew ? 'yes' : 'no') : 'no current file');
  fact(`writing ${(rate / 1024).toFixed(0)} KiB/s`);

  // Sizes: a rotated file was past maxSize when rotated; none is more than maxSize plus what
  // two monitor intervals write (the size is looked at every interval, so a file overshoots).
  const interval = Math.max(rate, 100 * 1024) * LOG_MONITOR_SECONDS;
  const bound = LOG_MAX_SIZE + 2 * interval;
  const plain = kept.filter((f) => shapeOf(f.name) === 'N.log.<timestamp>');
  const gz = kept.filter((f) => shapeOf(f.name) === 'N.log.<timestamp>.gz');
  const total = kept.reduce((n, f) => n + f.size, 0);
  fact(
    `total ${mib(total)} (maxSize × maxFiles ${mib(LOG_MAX_SIZE * LOG_MAX_FILES)}); bound per file ${mib(bound)}; ` +
      `rotated ${plain.map((f) => mib(f.size)).join(', ') || 'none'}; compressed ${gz.map((f) => mib(f.size)).join(', ') || 'none'}`,
  );
  out.set(
    'sizes',
    [
      `rotated files past maxSize: ${plain.length ? (plain.every((f) => f.size >= LOG_MAX_SIZE) ? 'yes' : 'no') : 'none rotated'}`,
      `compressed files under maxSize: ${gz.length ? (gz.every((f) => f.size < LOG_MAX_SIZE) ? 'yes' : 'no') : 'none compressed'}`,
      `each file within maxSize + two intervals of writing: ${kept.every((f) => f.size <= bound) ? 'yes' : 'no'}`,
      `total within maxFiles × (maxSize + two intervals of writing): ${total <= LOG_MAX_FILES * bound ? 'yes' : 'no'}`,
    ].join('\n'),
  );

  // The agent's log read: its last lines are the newest batch the current file held just before, or later.
  let readText = 'no current file';
  if (current) {
    const path = join(dir, current.name);
    const inFile = existsSync(path) ? lastBatchInFile(path) : -1;
    let body: string;
    try {
      body = await read(5);
    } catch (err) {
      body = `error: ${String(err)}`;
    }
    const lines = body.split('\n').filter(Boolean);
    const batches = lines.map((l) => Number(l.match(/^b=(\d+) 0{100}$/)?.[1] ?? -1));
    const newest = Math.max(-1, ...batches);
    fact(`log read: ${lines.length} lines, newest batch ${newest}; the current file's last batch before it ${inFile}`);
    readText = [
      `lines: ${lines.length}`,
      `each as the container wrote it: ${batches.length && batches.every((b) => b >= 0) ? 'yes' : 'no'}`,
      `the newest: ${inFile >= 0 && newest >= inFile ? 'yes' : 'no'}`,
    ].join('\n');
  }
  out.set('log read (tailLines=5)', readText);
  return { checkpoints: out };
}

export interface GCSnapshot {
  /** Dead (exited or unknown) instances per container name. */
  deadByContainer: Record<string, number>;
  deadText: string;
  sandboxText: string;
  /** How many containers of the pod the runtime holds, and how many of them are not dead. */
  containers: number;
  live: number;
  readySandboxes: number;
  /** Whether the pod's log directory is there. */
  logDir: boolean;
  /** Containers, sandboxes and the log directory, one line. */
  text: string;
  empty: boolean;
}

/** What the runtime holds of the pod UID (its containers and sandboxes, by state) and whether its log directory LOGS is there. */
export async function gcSnapshot(cri: CriClient, uid: string, logs: string): Promise<GCSnapshot> {
  const ofPod = (labels: Record<string, string> | undefined) => labels?.[KubeletLabels.podUid] === uid;
  const containers = (await cri.listContainers()).filter((c) => ofPod(c.labels));
  const sandboxes = (await cri.listPodSandbox()).filter((s) => ofPod(s.labels));
  const deadByContainer: Record<string, number> = {};
  const byName = new Map<string, Record<string, number>>();
  for (const c of containers) {
    const name = c.metadata?.name ?? '?';
    const state = String(c.state).replace('CONTAINER_', '').toLowerCase();
    const counts = byName.get(name) ?? byName.set(name, {}).get(name)!;
    counts[state] = (counts[state] ?? 0) + 1;
    if (state === 'exited' || state === 'unknown') deadByContainer[name] = (deadByContainer[name] ?? 0) + 1;
  }
  const counted = (counts: Record<string, number>) =>
    Object.entries(counts)
      .sort()
      .map(([s, n]) => `${n} ${s}`)
      .join(', ');
  const deadText =
    [...byName.keys()]
      .sort()
      .map((n) => `${n}: ${deadByContainer[n] ?? 0} dead`)
      .join('\n') || 'no containers';
  const sandboxCounts: Record<string, number> = {};
  for (const s of sandboxes) {
    const state = String(s.state).replace('SANDBOX_', '').toLowerCase();
    sandboxCounts[state] = (sandboxCounts[state] ?? 0) + 1;
  }
  const sandboxText = `sandboxes: ${counted(sandboxCounts) || 'none'}`;
  const logFiles = existsSync(logs) ? readdirSync(logs, { recursive: true }).length : -1;
  const containersText = [...byName.entries()].map(([n, c]) => `${n} ${counted(c)}`).join('; ') || 'none';
  const text = `containers: ${containersText}; ${sandboxText}; log directory: ${logFiles < 0 ? 'gone' : `there (${logFiles} ${logFiles === 1 ? 'entry' : 'entries'})`}`;
  return {
    deadByContainer,
    deadText,
    sandboxText,
    text,
    containers: containers.length,
    live: containers.length - Object.values(deadByContainer).reduce((a, b) => a + b, 0),
    readySandboxes: sandboxCounts.ready ?? 0,
    logDir: logFiles >= 0,
    empty: !containers.length && !sandboxes.length && logFiles < 0,
  };
}
