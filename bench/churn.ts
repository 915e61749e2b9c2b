// Churn (issue #7): static pods created and deleted at a steady rate through
// knode's real path (manifest files written into and removed from the static
// pod directory), on a fresh node on the embedded runtime. Nothing may leak
// (knode's RSS, the lowest in a quiet minute on an empty node, and its open
// files, before and after; RSS after the last churn once glibc has given back
// the free pages it keeps) and no worker may get stuck (at the end every pod still wanted is
// Running in /pods, every removed pod is gone from the runtime over CRI, and
// knode keeps no worker for a pod nobody wants).
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { NodeClient } from '../src/cli/node-client.js';
import type { CriClient } from '../src/cri/client.js';
import { KubeletLabels } from '../src/cri/types.js';
import type { PodWorkerInfo } from '../src/engine/pod-workers.js';
import { cpuSeconds, openFiles, sleep, statusKiB, writeManifest, type Running } from './agent.js';
import { NODE, runningPods, untilEvery, withNode } from './density.js';
import { mallocInfo, trimMalloc, type MallocInfo } from './malloc.js';

export interface ChurnFigures {
  /** Pods created (and as many deleted) per second. */
  rate: number;
  seconds: number;
  /** How long each churned pod is wanted before its manifest is removed. */
  lifetimeSeconds: number;
  /** The warm-up churn before `before` was read. */
  warmSeconds: number;
  created: number;
  removed: number;
  /** knode's CPU seconds during the churn. */
  cpuSeconds: number;
  peakRssMiB: number;
  /** End of churn → every wanted pod Running and every removed pod gone; undefined when that never came. */
  settledMs?: number;
  /** What was still wrong when the wait ended: wanted pods not Running, removed pods with sandboxes or containers, workers of unwanted pods. */
  notRunning: number;
  leftovers: number;
  strayWorkers: number;
  /** On an empty node, settled: after a warm-up churn, and after the measured one. */
  before: Footprint;
  after: Footprint;
  /** With more than one round: the footprint after each further churn like the measured one (a leak grows every round; memory a peak left behind does not). */
  again: Footprint[];
  /** knode's RSS after the last footprint once glibc gave the kernel every free page it kept (malloc_trim through gdb); undefined without gdb. */
  trimmedRssMiB?: number;
}

export interface Footprint {
  rssMiB: number;
  openFiles: number;
  /** Where the resident memory is, read at the window's end: live JavaScript (the V8 heap in use, from /metrics) and glibc's main heap (the `[heap]` mapping's resident pages). */
  jsHeapMiB: number;
  /** Memory outside the V8 heap that JavaScript objects hold (buffers' backing stores, much of it in glibc's heap), from /metrics. */
  externalMiB: number;
  mallocHeapMiB: number;
  /** What malloc has handed out and not had back, against what it keeps free (bench/malloc.ts); undefined without gdb. */
  malloc?: MallocInfo;
}

/**
 * The quiet window on an empty node in which the footprint is read: V8 gives
 * pages back only when its memory reducer runs, which on an idle process can
 * come long after the work ended (bench/notes/churn.md). RSS is the lowest
 * seen in the window.
 */
const QUIET_MS = 60_000;
const SAMPLE_MS = 2_000;
const TICK_MS = 100;
/** Each check reads /pods, /node and every sandbox and container over CRI: not so often that it slows what it waits for. */
const CHECK_EVERY_MS = 2_000;

/**
 * `seconds` of churn at `rate` pods/s after a warm-up of `warmSeconds` at the
 * same rate; with `rounds` above 1, the same churn again that many times
 * less one, each followed by the quiet window.
 */
export async function benchChurn(
  rate: number,
  seconds: number,
  lifetimeSeconds: number,
  rounds = 1,
  warmSeconds = 10,
): Promise<ChurnFigures> {
  return withNode(rate * (rounds * seconds + warmSeconds) + 10, async (run, client, node) => {
    await churn(run, 'w', rate, warmSeconds, lifetimeSeconds);
    await emptyNode(run, client, node, rate * warmSeconds);
    const before = await quietFootprint(run.pid, node);

    const cpu0 = cpuSeconds(run.pid);
    const { wanted, removed } = await churn(run, 'c', rate, seconds, lifetimeSeconds);
    const cpu = cpuSeconds(run.pid) - cpu0;
    const ended = performance.now();
    const check = () => converged(client, node, wanted, removed);
    let settledMs: number | undefined;
    try {
      await untilEvery(async () => (await check()).ok, 'the churned pods to settle', 120_000 + rate * seconds * 50, CHECK_EVERY_MS);
      settledMs = performance.now() - ended;
    } catch {
      // reported below, with what was left
    }
    const left = await check();
    const peakRssMiB = statusKiB(run.pid, 'VmHWM') / 1024;

    await emptyNode(run, client, node, rate * seconds);
    const after = await quietFootprint(run.pid, node);
    const again: Footprint[] = [];
    for (let round = 2; round <= rounds; round++) {
      await churn(run, `c${round}`, rate, seconds, lifetimeSeconds);
      await emptyNode(run, client, node, rate * seconds);
      again.push(await quietFootprint(run.pid, node));
    }
    const trimmedRssMiB = trimMalloc(run.pid) ? await lowestRss(run.pid, 5 * SAMPLE_MS) : undefined;
    return {
      rate,
      seconds,
      lifetimeSeconds,
      warmSeconds,
      cpuSeconds: cpu,
      peakRssMiB,
      settledMs,
      before,
      after,
      again,
      trimmedRssMiB,
      created: wanted.size + removed.size,
      removed: removed.size,
      notRunning: left.notRunning,
      leftovers: left.leftovers,
      strayWorkers: left.strayWorkers,
    };
  });
}

/** Writes `rate` manifests a second for `seconds`, removing each `lifetimeSeconds` after it was written. */
async function churn(
  run: Running,
  prefix: string,
  rate: number,
  seconds: number,
  lifetimeSeconds: number,
): Promise<{ wanted: Set<string>; removed: Set<string> }> {
  const written: { name: string; at: number }[] = [];
  const wanted = new Set<string>();
  const removed = new Set<string>();
  const t0 = performance.now();
  for (let tick = 1; tick <= (seconds * 1000) / TICK_MS; tick++) {
    const now = performance.now() - t0;
    while (written.length < Math.floor((rate * tick * TICK_MS) / 1000)) {
      const name = `${prefix}-${written.length}`;
      writeManifest(run.podsDir, name);
      written.push({ name, at: now });
      wanted.add(name);
    }
    for (const w of written) {
      if (!wanted.has(w.name) || now - w.at < lifetimeSeconds * 1000) continue;
      rmSync(join(run.podsDir, `${w.name}.yaml`));
      wanted.delete(w.name);
      removed.add(w.name);
    }
    await sleep(Math.max(0, t0 + tick * TICK_MS - performance.now()));
  }
  return { wanted, removed };
}

/** Whether every wanted pod is Running, every removed one gone from the runtime, and no worker left for a pod nobody wants. */
async function converged(
  client: CriClient,
  node: NodeClient,
  wanted: Set<string>,
  removed: Set<string>,
): Promise<{ ok: boolean; notRunning: number; leftovers: number; strayWorkers: number }> {
  const full = (name: string) => `${name}-${NODE}`;
  const running = await runningPods(node);
  const notRunning = [...wanted].filter((n) => !running.has(full(n))).length;
  const gone = new Set([...removed].map(full));
  const [sandboxes, containers] = await Promise.all([client.listPodSandbox(), client.listContainers()]);
  const leftovers = new Set([
    ...sandboxes.filter((s) => gone.has(s.metadata?.name ?? '')).map((s) => s.metadata!.name),
    ...containers.filter((c) => gone.has(c.labels[KubeletLabels.podName] ?? '')).map((c) => c.labels[KubeletLabels.podName]),
  ]).size;
  const wantedNames = new Set([...wanted].map(full));
  const { body } = await node.json<{ workers: PodWorkerInfo[] }>('/node');
  const strayWorkers = body.workers.filter((w) => !wantedNames.has(w.pod.split('/').at(-1)!)).length;
  return { ok: notRunning === 0 && leftovers === 0 && strayWorkers === 0, notRunning, leftovers, strayWorkers };
}

/** Removes every manifest and waits until the runtime has nothing and knode no worker. */
async function emptyNode(run: Running, client: CriClient, node: NodeClient, pods: number): Promise<void> {
  for (const file of readdirSync(run.podsDir)) rmSync(join(run.podsDir, file));
  const empty = new Set<string>();
  await untilEvery(
    async () =>
      (await converged(client, node, empty, empty)).ok &&
      (await client.listPodSandbox()).length + (await client.listContainers()).length === 0,
    'the node to be empty',
    120_000 + pods * 50,
    CHECK_EVERY_MS,
  );
}

/** RSS (the lowest in a quiet window) and open files, JavaScript's heap and glibc's (at its end) of an idle knode. */
async function quietFootprint(pid: number, node: NodeClient): Promise<Footprint> {
  const rssMiB = await lowestRss(pid, QUIET_MS);
  const metrics = (await node.text('/metrics')).body;
  const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? NaN) / 2 ** 20;
  return {
    rssMiB,
    openFiles: openFiles(pid),
    jsHeapMiB: metric('nodejs_heap_size_used_bytes'),
    externalMiB: metric('nodejs_external_memory_bytes'),
    mallocHeapMiB: mappingRssKiB(pid, '[heap]') / 1024,
    malloc: mallocInfo(pid),
  };
}

/** The lowest RSS of a process, sampled over `windowMs`. */
async function lowestRss(pid: number, windowMs: number): Promise<number> {
  let rssMiB = Infinity;
  for (let waited = 0; waited <= windowMs; waited += SAMPLE_MS) {
    rssMiB = Math.min(rssMiB, statusKiB(pid, 'VmRSS') / 1024);
    if (waited < windowMs) await sleep(SAMPLE_MS);
  }
  return rssMiB;
}

/** Resident KiB of a process's mappings of that name in /proc/PID/smaps. */
function mappingRssKiB(pid: number, name: string): number {
  let kib = 0;
  let current = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) current = header[1];
    else if (current === name && line.startsWith('Rss:')) kib += Number(line.split(/\s+/)[1]);
  }
  return kib;
}
