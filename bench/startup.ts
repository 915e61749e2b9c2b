// Pod start-up latency through the whole engine: a burst of pods written to a
// static dir, from the source seeing each pod to the status manager seeing all
// its containers running (the PodRunning event), with evented and relist PLEG.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { CriClient } from '../src/cri/client.js';
import { defaultKubeletConfiguration } from '../src/engine/config/kubelet-config.js';
import { Kubelet } from '../src/engine/kubelet.js';
import { NodeNameLabel } from '../src/engine/kuberuntime/labels.js';
import type { BenchRuntime } from './runtimes.js';

export interface StartupFigures {
  runtime: string;
  pleg: 'evented' | 'relist';
  mode: 'burst' | 'one at a time';
  pods: number;
  latencies: number[];
  totalMs: number;
}

/**
 * `burst`: every manifest lands at once (the figure: the runtime's
 * serial work for all pods bounds each pod's latency). `one at a time`: the
 * next manifest is written when the last pod runs (a lone pod's latency).
 */
export async function benchStartup(
  rt: BenchRuntime,
  pods: number,
  pleg: 'evented' | 'relist',
  mode: StartupFigures['mode'],
): Promise<StartupFigures> {
  const root = mkdtempSync(join(tmpdir(), 'knode-bench-startup-'));
  const podsDir = join(root, 'pods');
  mkdirSync(podsDir);
  const nodeName = `bench-${pleg}-${Date.now()}`;
  const client = new CriClient(rt.endpoint);
  if (!(await client.imageStatus({ image: 'busybox:1.36' }))) await client.pullImage({ image: 'busybox:1.36' });
  const config = defaultKubeletConfiguration(root, { nodeName, staticPodPath: podsDir, eventedPleg: pleg === 'evented' });
  const kubelet = new Kubelet(config, { runtime: client });
  const seen = new Map<string, number>();
  const latencies: number[] = [];
  let first = 0;
  let last = 0;
  let resolveAll!: () => void;
  const all = new Promise<void>((r) => (resolveAll = r));
  let onRunning = () => {};
  kubelet.events.subscribe((e) => {
    if (e.type === 'PodSeen') {
      seen.set(e.uid, e.at);
      first ||= e.at;
    }
    if (e.type === 'PodRunning' && seen.has(e.uid)) {
      latencies.push(e.at - seen.get(e.uid)!);
      last = e.at;
      if (latencies.length === pods) resolveAll();
      else onRunning();
    }
  });
  await kubelet.start();
  const write = (i: number) => {
    const manifest = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `pod-${i}` },
      spec: { containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'] }] },
    };
    writeFileSync(join(podsDir, `pod-${i}.yaml`), stringify(manifest));
  };
  if (mode === 'burst') {
    for (let i = 0; i < pods; i++) write(i);
  } else {
    onRunning = () => write(latencies.length);
    write(0);
  }
  const timeout = setTimeout(resolveAll, 300_000);
  await all;
  clearTimeout(timeout);
  await kubelet.stop();
  // Leave nothing behind for the next round.
  for (const s of await client.listPodSandbox({ labelSelector: { [NodeNameLabel]: nodeName } })) await client.removePodSandbox(s.id);
  client.close();
  return { runtime: rt.name, pleg, mode, pods, latencies, totalMs: last - first };
}

/** When the `half`th and the last of `count` processes ran, spawned back to back by a small Node process of its own. */
export interface SpawnFloor {
  count: number;
  halfMs: number;
  allMs: number;
}

/**
 * What a fresh page of memory costs this machine: a fresh Node process
 * touches `mib` MiB it has not touched before, once, and divides the time
 * by the page faults it took. Every command and every process a pod starts
 * pays it for each page it touches first: about 12 us on the VM of
 * 2026-12-05, where an apply of 10 pods took some 8,000 (bench/notes/podman.md).
 */
export function pageFaultCost(mib = 64): PageFaultCost {
  const script = `
    const b = Buffer.allocUnsafeSlow(${mib} * 1048576);
    const f0 = process.resourceUsage().minorPageFault; const t0 = performance.now();
    for (let i = 0; i < b.length; i += 4096) b[i] = 1;
    const ms = performance.now() - t0; const faults = process.resourceUsage().minorPageFault - f0;
    process.stdout.write(JSON.stringify({ mib: ${mib}, faults, usPerFault: (ms * 1000) / Math.max(faults, 1) }));`;
  return inFreshNode<PageFaultCost>(script);
}

/** Runs `script` in a Node process of its own and returns what it wrote to stdout, as JSON. */
function inFreshNode<T>(script: string): T {
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as T;
}

export interface PageFaultCost {
  mib: number;
  faults: number;
  usPerFault: number;
}

/** The line that says what a page fault costs here. */
export function reportPageFaultCost(cost: PageFaultCost): string {
  return `\nThis machine's cost of a fresh page: ${cost.usPerFault.toFixed(2)} us a page fault (${cost.faults} faults for ${cost.mib} MiB touched once by a fresh Node process)`;
}

/**
 * What this machine can do at best for a burst: a fresh Node process spawns
 * `count` processes (`sleep`) one after another and notes when each had
 * exec'd (spawn returns then). A pod's container is at least one process, so
 * no runtime can have half of a burst's pods running before `halfMs`.
 */
export function spawnFloor(count = 100): SpawnFloor {
  const script = `
    const { spawn } = require('node:child_process');
    const t0 = performance.now(); const at = []; const kids = [];
    for (let i = 0; i < ${count}; i++) { kids.push(spawn('sleep', ['60'], { stdio: 'ignore' })); at.push(performance.now() - t0); }
    for (const k of kids) k.kill('SIGKILL');
    process.stdout.write(JSON.stringify(at));`;
  const at = inFreshNode<number[]>(script);
  return { count, halfMs: at[Math.floor(count / 2) - 1], allMs: at[count - 1] };
}
