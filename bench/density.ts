// Load and density (issue #7): N one-container static pods on one node, on
// the embedded runtime, through `knode run` as users run it (its own process,
// evented PLEG, the runtime in another process). Per size, a fresh runtime and
// a fresh node: the time from the manifests landing to every container
// started (the runtime's CONTAINER_STARTED events, seen by the bench over CRI)
// and to every pod Running in knode's read-only /pods; then the node's steady
// state: CPU and RSS from /proc, relists from its /pleg stream and pod worker
// durations from its /metrics histograms.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeClient } from '../src/cli/node-client.js';
import { CriClient } from '../src/cri/client.js';
import type { PodList } from '../src/engine/api/v1.js';
import {
  cpuSeconds,
  cpuTimes,
  isContainerStart,
  openFiles,
  sleep,
  startKnode,
  statusKiB,
  until,
  writeManifest,
  type Running,
} from './agent.js';
import { startEmbedded, type BenchRuntime } from './runtimes.js';
import { histogramDelta, parseHistogram, type Histogram } from './stats.js';

export const NODE = 'density';
const WORKER_DURATION = 'kubelet_pod_worker_duration_seconds';

export interface DensityFigures {
  pods: number;
  /** Per pod: manifests written → its container started, over CRI (ms). */
  latencies: number[];
  /** Per start event: the runtime's timestamp of it → the bench receiving it (ms; same host clock). */
  deliveries: number[];
  startedMs: number;
  /** Manifests written → every pod Running in /pods (polled every pollMs(pods) once every container ran). */
  runningMs: number;
  /** knode's CPU seconds from the manifests landing to every pod Running. */
  rampCpuSeconds: number;
  /** Of which in the kernel: on this VM's ext4, creating files and directories costs more for a while after many were deleted. */
  rampSystemSeconds: number;
  peakRssMiB: number;
  /** The same for the embedded runtime's process, which makes every container. */
  runtimeCpuSeconds: number;
  runtimePeakRssMiB: number;
  idle: Steady;
  /** Each full relist in the idle window (ms), from /pleg. */
  relists: number[];
  /** Pod worker passes (kubelet_pod_worker_duration_seconds) during the ramp and in the idle window. */
  workerRamp: Histogram;
  workerIdle: Histogram;
}

export interface Steady {
  seconds: number;
  /** CPU used per second over the window, in cores. */
  cpuCores: number;
  rssMiB: number;
  openFiles: number;
}

/** A fresh embedded runtime and a fresh `knode run` on it, stopped (and their directories removed) after `fn`. */
export async function withNode<T>(
  maxPods: number,
  fn: (run: Running, client: CriClient, node: NodeClient, rt: BenchRuntime) => Promise<T>,
): Promise<T> {
  const rt = await startEmbedded();
  const dir = mkdtempSync(join(tmpdir(), 'knode-density-'));
  const client = new CriClient(rt.endpoint);
  let run: Running | undefined;
  try {
    run = await startKnode(dir, rt.endpoint, { pleg: 'evented', nodeName: NODE, args: ['--max-pods', String(maxPods)] });
    return await fn(run, client, new NodeClient(run.socketPath!), rt);
  } finally {
    await run?.stop();
    // Removed over CRI before the runtime stops: whatever its shutdown does, no container outlives the bench.
    for (const s of await client.listPodSandbox().catch(() => [])) await client.removePodSandbox(s.id).catch(() => {});
    client.close();
    await rt.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Names of the node's pods that /pods shows Running. */
export async function runningPods(node: NodeClient): Promise<Set<string>> {
  const { body } = await node.json<PodList>('/pods');
  return new Set(body.items.filter((p) => p.status?.phase === 'Running').map((p) => p.metadata.name!));
}

export async function scrape(node: NodeClient, name: string): Promise<Histogram> {
  const res = await node.open('/metrics');
  let text = '';
  for await (const chunk of res) text += chunk;
  return parseHistogram(text, name);
}

/** CPU, RSS and open files of the node over a quiet window. */
export async function steady(pid: number, seconds: number): Promise<Steady> {
  const cpu0 = cpuSeconds(pid);
  await sleep(seconds * 1000);
  return { seconds, cpuCores: (cpuSeconds(pid) - cpu0) / seconds, rssMiB: statusKiB(pid, 'VmRSS') / 1024, openFiles: openFiles(pid) };
}

/** Watches the runtime's event stream: when each wanted pod's container started, and how late its event arrived (ms). */
export function watchStarts(
  client: CriClient,
  signal: AbortSignal,
  onStart: (sandboxName: string, at: number, deliveryMs: number) => void,
): Promise<void> {
  return (async () => {
    for await (const e of client.getContainerEvents(signal)) {
      const pod = e.podSandboxStatus?.metadata?.name;
      if (isContainerStart(e) && pod) onStart(pod, performance.now(), Date.now() - Number(e.createdAt) / 1e6);
    }
  })().catch(() => {});
}

/** `pods` manifests at once into a fresh node; then `idleSeconds` of steady state with them all Running. */
export async function benchDensity(pods: number, idleSeconds: number): Promise<DensityFigures> {
  return withNode(pods + 10, async (run, client, node, rt) => {
    const names = Array.from({ length: pods }, (_, i) => `d-${i}`);
    const wanted = new Set(names.map((n) => `${n}-${NODE}`));
    const startedAt = new Map<string, number>();
    const deliveries: number[] = [];
    const abort = new AbortController();
    const watching = watchStarts(client, abort.signal, (pod, at, deliveryMs) => {
      if (!wanted.has(pod) || startedAt.has(pod)) return;
      startedAt.set(pod, at);
      deliveries.push(deliveryMs);
    });
    await sleep(200); // the stream is open
    const worker0 = await scrape(node, WORKER_DURATION);
    const cpu0 = cpuTimes(run.pid);
    const runtimeCpu0 = cpuSeconds(rt.pid!);
    const t0 = performance.now();
    for (const name of names) writeManifest(run.podsDir, name);
    const timeoutMs = 120_000 + pods * 600;
    await until(() => startedAt.size === pods, `${pods} containers to start (${startedAt.size} did)`, timeoutMs);
    const startedMs = performance.now() - t0;
    abort.abort();
    await watching;
    await untilEvery(async () => (await runningPods(node)).size === pods, `${pods} pods Running in /pods`, timeoutMs, pollMs(pods));
    const runningMs = performance.now() - t0;
    const cpu1 = cpuTimes(run.pid);
    const rampCpuSeconds = cpu1.user + cpu1.system - cpu0.user - cpu0.system;
    const rampSystemSeconds = cpu1.system - cpu0.system;
    const peakRssMiB = statusKiB(run.pid, 'VmHWM') / 1024;
    const runtimeCpuSeconds = cpuSeconds(rt.pid!) - runtimeCpu0;
    const runtimePeakRssMiB = statusKiB(rt.pid!, 'VmHWM') / 1024;

    await sleep(5_000); // statuses and the last relists settle
    const worker1 = await scrape(node, WORKER_DURATION);
    const relists: number[] = [];
    const stream = new AbortController();
    const reading = (async () => {
      for await (const e of node.ndjson<{ type: string; detail?: { durationMs?: number } }>('/pleg', stream.signal)) {
        if (e.type === 'PLEGRelist' && typeof e.detail?.durationMs === 'number') relists.push(e.detail.durationMs);
      }
    })().catch(() => {});
    const idle = await steady(run.pid, idleSeconds);
    stream.abort();
    await reading;
    const worker2 = await scrape(node, WORKER_DURATION);
    return {
      pods,
      startedMs,
      runningMs,
      rampCpuSeconds,
      rampSystemSeconds,
      peakRssMiB,
      runtimeCpuSeconds,
      runtimePeakRssMiB,
      idle,
      relists,
      deliveries,
      latencies: [...startedAt.values()].map((t) => t - t0),
      workerRamp: histogramDelta(worker1, worker0),
      workerIdle: histogramDelta(worker2, worker1),
    };
  });
}

/** How often /pods is read while waiting: each read serializes every pod, so a big node is asked less often. */
export const pollMs = (pods: number) => 100 + Math.round(pods / 2);

/** `until` with a slower poll, for checks that cost the node real work (/pods with every pod's status). */
export async function untilEvery(check: () => Promise<boolean>, what: string, timeoutMs: number, everyMs = 500): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}
