// CRI call latencies of the embedded runtime and of a real containerd, in one
// run, through the same client (issue: foundation). Each figure is measured on
// a warm connection; pods use the host network on both runtimes.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CriClient } from '../src/cri/client.js';
import type { ContainerConfig, PodSandboxConfig } from '../src/cri/types.js';
import type { BenchRuntime } from './runtimes.js';
import { median, ms, percentile, table, timed } from './stats.js';

const IMAGE = 'busybox:1.36';

function sandbox(i: number, logDirectory: string): PodSandboxConfig {
  return {
    metadata: { name: `bench-${i}`, uid: randomUUID(), namespace: 'bench', attempt: 0 },
    logDirectory,
    labels: { 'knode.bench': 'cri' },
    // A PID namespace per container, as the kubelet asks for a pod that does not share its processes.
    linux: { securityContext: { namespaceOptions: { network: 'NODE', pid: 'CONTAINER' } } },
  };
}

function container(name: string): ContainerConfig {
  return {
    metadata: { name, attempt: 0 },
    image: { image: IMAGE },
    command: ['sleep', '3600'],
    logPath: `${name}/0.log`,
    linux: { securityContext: { namespaceOptions: { pid: 'CONTAINER' } } },
  };
}

export interface CriFigures {
  runtime: string;
  samples: Record<string, number[]>;
  podsBackToBackMs: number;
  pods: number;
  listLarge?: { containers: number; samples: number[] };
  /** The same calls for pods that come one at a time, `pauseMs` apart (a node between bursts). */
  paced: { pauseMs: number; start: number[]; total: number[] };
}

/** Pods of the paced pass, and the pause before each. */
const PACED_PODS = 20;
const PACED_PAUSE_MS = 500;

/** Brings up `pods` one-container pods back to back, timing every call, then measures status and list calls. */
export async function benchCri(rt: BenchRuntime, pods: number, largeList?: number): Promise<CriFigures> {
  const client = new CriClient(rt.endpoint);
  const logs = mkdtempSync(join(tmpdir(), 'knode-bench-logs-'));
  const samples: Record<string, number[]> = {
    RunPodSandbox: [],
    CreateContainer: [],
    StartContainer: [],
    ContainerStatus: [],
    ListContainers: [],
    'sandbox+create+start': [],
  };
  const sandboxes: string[] = [];
  const containers: string[] = [];
  try {
    if (!(await client.imageStatus({ image: IMAGE }))) await client.pullImage({ image: IMAGE });
    await client.version();
    const started = performance.now();
    for (let i = 0; i < pods; i++) {
      const podStarted = performance.now();
      const config = sandbox(i, join(logs, String(i)));
      const sb = await timed(samples.RunPodSandbox, () => client.runPodSandbox(config));
      const id = await timed(samples.CreateContainer, () => client.createContainer(sb, container('app'), config));
      await timed(samples.StartContainer, () => client.startContainer(id));
      samples['sandbox+create+start'].push(performance.now() - podStarted);
      sandboxes.push(sb);
      containers.push(id);
    }
    const podsBackToBackMs = performance.now() - started;
    const paced = { pauseMs: PACED_PAUSE_MS, start: [] as number[], total: [] as number[] };
    for (let i = 0; i < PACED_PODS; i++) {
      await new Promise((r) => setTimeout(r, PACED_PAUSE_MS));
      const podStarted = performance.now();
      const config = sandbox(pods + 1 + i, join(logs, `paced-${i}`));
      const sb = await client.runPodSandbox(config);
      sandboxes.push(sb);
      const id = await client.createContainer(sb, container('app'), config);
      await timed(paced.start, () => client.startContainer(id));
      paced.total.push(performance.now() - podStarted);
    }
    for (const id of containers) await timed(samples.ContainerStatus, () => client.containerStatus(id));
    for (let i = 0; i < 50; i++) await timed(samples.ListContainers, () => client.listContainers());

    let listLarge: CriFigures['listLarge'];
    if (largeList) {
      // Created (not started) containers: the listing cost is the runtime's bookkeeping, not processes.
      const extra = largeList - containers.length;
      const config = sandbox(pods + 1 + PACED_PODS, join(logs, 'large'));
      const sb = await client.runPodSandbox(config);
      sandboxes.push(sb);
      for (let i = 0; i < extra; i++) await client.createContainer(sb, container(`c${i}`), config);
      const listSamples: number[] = [];
      for (let i = 0; i < 50; i++) await timed(listSamples, () => client.listContainers());
      listLarge = { containers: (await client.listContainers()).length, samples: listSamples };
    }
    return { runtime: rt.name, samples, podsBackToBackMs, pods, listLarge, paced };
  } finally {
    for (const sb of sandboxes) await client.removePodSandbox(sb).catch(() => {});
    client.close();
  }
}

export function reportCri(figures: CriFigures[]): string {
  const calls = Object.keys(figures[0].samples);
  const rows: string[][] = [];
  for (const call of calls) {
    for (const f of figures) {
      const s = f.samples[call];
      rows.push([call, f.runtime, String(s.length), ms(median(s)), ms(percentile(s, 99))]);
    }
  }
  for (const f of figures) {
    rows.push([`${f.pods} pods back to back`, f.runtime, '1', ms(f.podsBackToBackMs), '']);
    const apart = `pods ${f.paced.pauseMs} ms apart`;
    rows.push([
      `StartContainer, ${apart}`,
      f.runtime,
      String(f.paced.start.length),
      ms(median(f.paced.start)),
      ms(percentile(f.paced.start, 99)),
    ]);
    rows.push([
      `sandbox+create+start, ${apart}`,
      f.runtime,
      String(f.paced.total.length),
      ms(median(f.paced.total)),
      ms(percentile(f.paced.total, 99)),
    ]);
    if (f.listLarge)
      rows.push([
        `ListContainers (${f.listLarge.containers} containers)`,
        f.runtime,
        String(f.listLarge.samples.length),
        ms(median(f.listLarge.samples)),
        ms(percentile(f.listLarge.samples, 99)),
      ]);
  }
  return table(['call', 'runtime', 'n', 'median', 'p99'], rows);
}
