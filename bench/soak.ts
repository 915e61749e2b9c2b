// `npm run bench -- soak` (issue 38, "Proof"; only alone): a node left to
// run under load. `knode run` on the embedded runtime it starts under its own
// root dir, as users get it (sandboxes where the host allows, real images from
// the local docker-registry of test/registry/registry.sh), with log rotation
// small enough to turn often and image garbage collection by age. PODS static
// pods each write RATE bytes of log lines a second for SECONDS, while the
// bench pulls an image over CRI and removes the one it pulled before every
// PULL_SECONDS. Every SAMPLE_SECONDS it reads the root dir's size
// (bench/disk.ts) and knode's and the runtime's RSS and open files (/proc).
// The goals (bench/soak-report.ts): the root dir stays under its bound, and
// RSS and open files end within 10 % of where they were after the first minute.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeClient } from '../src/cli/node-client.js';
import { CriClient } from '../src/cri/client.js';
import { formatByteQuantity, parseByteQuantity } from '../src/engine/api/quantity.js';
import { readPid } from '../src/util/pid-file.js';
import { rootPaths } from '../src/util/paths.js';
import { mirrorConfig, startRegistry } from '../test/helpers/registry.js';
import { cpuSeconds, openFiles, sleep, startKnode, statusKiB, writeManifest, type Running } from './agent.js';
import { runningPods, untilEvery } from './density.js';
import { diskUsage } from './disk.js';

const repo = join(import.meta.dirname, '..');
const NODE = 'soak';
const BUSYBOX = 'docker.io/library/busybox:1.36';
/** Pulled and removed in turn by the bench. */
const CYCLED = ['docker.io/library/busybox-layers:1.0', 'docker.io/library/busybox-entrypoint:1.0'];
/** Pulled once and never used: the image garbage collector's to remove once imageMaximumGCAge has passed. */
const UNUSED = 'docker.io/library/busybox-user:1.0';
/** The events the bench counts: what rotation and the collectors did, and what went wrong. */
const COUNTED = [
  'ContainerLogRotated',
  'ContainerLogRotationFailed',
  'ContainerGarbageCollected',
  'ContainerGCFailed',
  'ImageGarbageCollected',
  'FreeDiskSpaceFailed',
  'ImageGCFailed',
  'Evicted',
];

export interface SoakConfig {
  seconds: number;
  pods: number;
  /** Bytes of log lines each pod writes a second. */
  rate: number;
  sampleSeconds: number;
  pullSeconds: number;
  /** The node's containerLogMaxSize (bytes), containerLogMaxFiles and containerLogMonitorInterval (s). */
  maxSize: number;
  maxFiles: number;
  monitorSeconds: number;
}

/** The run's shape from KNODE_BENCH_SOAK_*; a bad value is an error naming its variable. */
export function soakConfig(env: NodeJS.ProcessEnv = process.env): SoakConfig {
  const count = (name: string, fallback: number) => {
    const text = env[name];
    if (text === undefined || text === '') return fallback;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name}=${text}: want a whole number above 0`);
    return n;
  };
  const rateText = env.KNODE_BENCH_SOAK_RATE || '1Mi';
  const rate = parseByteQuantity(rateText);
  if ('problem' in rate || rate.bytes < 1024)
    throw new Error(`KNODE_BENCH_SOAK_RATE=${rateText}: want bytes a second as a quantity of at least 1Ki (such as 1Mi)`);
  return {
    seconds: count('KNODE_BENCH_SOAK_SECONDS', 600),
    pods: count('KNODE_BENCH_SOAK_PODS', 20),
    rate: rate.bytes,
    sampleSeconds: count('KNODE_BENCH_SOAK_SAMPLE_SECONDS', 5),
    pullSeconds: count('KNODE_BENCH_SOAK_PULL_SECONDS', 15),
    maxSize: 1024 * 1024,
    maxFiles: 3,
    monitorSeconds: 3,
  };
}

/** One reading, `t` seconds after every pod ran. */
export interface SoakSample {
  t: number;
  rootBytes: number;
  /** `<root>/pods` (the containers' logs) and the runtime's image store, within rootBytes. */
  logsBytes: number;
  imagesBytes: number;
  /** The largest current log (N.log) and the most files one container's log had. */
  largestLog: number;
  mostFiles: number;
  /** VmRSS (KiB) and open files of each process of the node. */
  rssKiB: Record<SoakProcess, number>;
  files: Record<SoakProcess, number>;
}

/** knode, the embedded runtime, and the runtime's spawner, which starts the containers and writes their logs. */
export const PROCESSES = ['knode', 'runtime', 'spawner'] as const;
export type SoakProcess = (typeof PROCESSES)[number];

export interface SoakFigures {
  config: SoakConfig;
  /** The root dir with every image of the bench pulled, before the pods: the image store, and the rest. */
  imagesBytes: number;
  stateBytes: number;
  samples: SoakSample[];
  /** Log bytes written while sampled (rotated sizes plus the current logs' growth) and the rotations. */
  loggedBytes: number;
  events: Record<string, number>;
  /** The first messages of the failure events, and of the collectors' events. */
  failures: string[];
  collected: string[];
  /** Each rotation while sampled: when (ms since the epoch, knode's clock) and the log's size then. */
  rotations: { at: number; size: number }[];
  pulls: number[];
  removals: number;
  pullErrors: string[];
  /** Whether the unused image was still there at the end. */
  unusedLeft: boolean;
  /** CPU seconds of each process over the run. */
  cpuSeconds: Record<SoakProcess, number>;
  /** The whole machine's busy CPU over the run, in cores (it is shared: other work counts too). */
  machineCores: number;
  /** The root dir at the end by bench/disk.ts and by `du -sx`. */
  endBytes: number;
  duBytes: number;
  elapsedSeconds: number;
}

/** A pod writing `rate` bytes of 1,024-byte lines a second: a second's lines, then a second's sleep. */
export function writerManifest(name: string, rate: number): string {
  const lines = Math.max(1, Math.round(rate / 1024));
  const script = `line=$(head -c 1023 /dev/zero | tr '\\0' x); while true; do yes "$line" | head -n ${lines}; sleep 1; done`;
  return [
    'apiVersion: v1',
    'kind: Pod',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    '  hostNetwork: true',
    '  terminationGracePeriodSeconds: 1',
    '  containers:',
    '    - name: writer',
    `      image: ${BUSYBOX}`,
    '      imagePullPolicy: IfNotPresent',
    `      command: ["sh", "-c", ${JSON.stringify(script)}]`,
    '',
  ].join('\n');
}

function kubeletConfig(c: SoakConfig): string {
  return [
    'apiVersion: kubelet.config.k8s.io/v1beta1',
    'kind: KubeletConfiguration',
    `containerLogMaxSize: ${formatByteQuantity(c.maxSize)}`,
    `containerLogMaxFiles: ${c.maxFiles}`,
    `containerLogMonitorInterval: ${c.monitorSeconds}s`,
    'imageMinimumGCAge: 1m',
    'imageMaximumGCAge: 3m',
    '',
  ].join('\n');
}

/** The containers' logs now: their current files' sizes, the largest, and the most files one container has. */
function scanLogs(podLogs: string): { current: number; largest: number; mostFiles: number } {
  let current = 0;
  let largest = 0;
  let mostFiles = 0;
  const list = (dir: string) => {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  };
  for (const pod of list(podLogs)) {
    for (const container of list(join(podLogs, pod))) {
      const names = list(join(podLogs, pod, container));
      mostFiles = Math.max(mostFiles, names.length);
      for (const name of names.filter((n) => n.endsWith('.log'))) {
        const size = statSync(join(podLogs, pod, container, name), { throwIfNoEntry: false })?.size ?? 0;
        current += size;
        largest = Math.max(largest, size);
      }
    }
  }
  return { current, largest, mostFiles };
}

/** The embedded runtime's spawner: its child process that runs src/runtime/spawner/main. */
function spawnerPid(runtimePid: number): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === runtimePid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('spawner')) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no spawner among the children of the embedded runtime (pid ${runtimePid})`);
}

const each = <T>(fn: (p: SoakProcess) => T) => Object.fromEntries(PROCESSES.map((p) => [p, fn(p)])) as Record<SoakProcess, T>;

/** Busy and total CPU ticks of the whole machine (/proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - fields[3] - fields[4], total };
}

export async function benchSoak(config: SoakConfig = soakConfig()): Promise<SoakFigures> {
  const registry = startRegistry();
  const dir = mkdtempSync(join(tmpdir(), 'knode-soak-'));
  const paths = rootPaths(join(dir, 'root'));
  mkdirSync(paths.root, { recursive: true });
  writeFileSync(paths.registryConfig, mirrorConfig(registry.host));
  writeFileSync(join(dir, 'kubelet.yaml'), kubeletConfig(config));
  let run: Running | undefined;
  const client = new CriClient(`unix://${paths.runtimeSocket}`);
  const stopEvents = new AbortController();
  try {
    run = await startKnode(dir, undefined, { pleg: 'evented', nodeName: NODE, args: ['--config', join(dir, 'kubelet.yaml')] });
    const runtimePid = readPid(paths.runtimePidFile);
    if (runtimePid === undefined) throw new Error(`no embedded runtime pid in ${paths.runtimePidFile}`);
    const node = new NodeClient(run.socketPath!);
    const events: Record<string, number> = Object.fromEntries(COUNTED.map((t) => [t, 0]));
    const failures: string[] = [];
    const collected: string[] = [];
    const rotations: { at: number; size: number }[] = [];
    let rotated = 0;
    const reading = (async () => {
      type Event = { type: string; at: number; message?: string; detail?: { size?: number } };
      for await (const e of node.ndjson<Event>('/events', stopEvents.signal)) {
        if (!(e.type in events)) continue;
        events[e.type]++;
        if (e.type === 'ContainerLogRotated') {
          rotated += e.detail?.size ?? 0;
          rotations.push({ at: e.at, size: e.detail?.size ?? 0 });
        } else if (/Failed$/.test(e.type) && failures.length < 5) failures.push(`${e.type}: ${e.message}`);
        else if (/GarbageCollected$/.test(e.type) && collected.length < 5) collected.push(`${e.type}: ${e.message}`);
      }
    })().catch((err: Error) => failures.push(`the /events stream ended: ${err.message}`));

    // Every image the bench uses at once: what the bound allows for images.
    for (const image of [BUSYBOX, UNUSED, ...CYCLED]) await client.pullImage({ image });
    const imagesDir = join(paths.runtimeDir, 'images');
    const before = diskUsage(paths.root, [paths.podLogs, imagesDir]);
    const imagesBytes = before.parts[1];
    const stateBytes = before.total - before.parts[0] - imagesBytes;
    for (const image of CYCLED) await client.removeImage({ image });

    const names = Array.from({ length: config.pods }, (_, i) => `writer-${i}`);
    for (const name of names) writeManifest(run.podsDir, name, writerManifest(name, config.rate));
    await untilEvery(async () => (await runningPods(node)).size === config.pods, `${config.pods} writers Running`, 120_000);

    const pids: Record<SoakProcess, number> = { knode: run.pid, runtime: runtimePid, spawner: spawnerPid(runtimePid) };
    const t0 = performance.now();
    const sampledFrom = Date.now();
    const cpu0 = each((p) => cpuSeconds(pids[p]));
    const machine0 = machineTicks();
    const logged0 = rotated + scanLogs(paths.podLogs).current;
    const samples: SoakSample[] = [];
    const pulls: number[] = [];
    const pullErrors: string[] = [];
    let removals = 0;
    const end = t0 + config.seconds * 1000;
    const cycling = (async () => {
      let previous: string | undefined;
      for (let i = 0; performance.now() + config.pullSeconds * 1000 <= end; i++) {
        await sleep(config.pullSeconds * 1000);
        const image = CYCLED[i % CYCLED.length];
        try {
          const p0 = performance.now();
          await client.pullImage({ image });
          pulls.push(performance.now() - p0);
          if (previous) await client.removeImage({ image: previous });
          if (previous) removals++;
          previous = image;
        } catch (err) {
          if (pullErrors.length < 5) pullErrors.push(`${image}: ${(err as Error).message}`);
        }
      }
      if (previous) await client.removeImage({ image: previous }).then(() => removals++);
    })();

    for (let next = t0; next <= end; next += config.sampleSeconds * 1000) {
      await sleep(Math.max(0, next - performance.now()));
      const logs = scanLogs(paths.podLogs);
      const usage = diskUsage(paths.root, [paths.podLogs, imagesDir]);
      samples.push({
        t: (performance.now() - t0) / 1000,
        rootBytes: usage.total,
        logsBytes: usage.parts[0],
        imagesBytes: usage.parts[1],
        largestLog: logs.largest,
        mostFiles: logs.mostFiles,
        rssKiB: each((p) => statusKiB(pids[p], 'VmRSS')),
        files: each((p) => openFiles(pids[p])),
      });
    }
    const elapsedSeconds = (performance.now() - t0) / 1000;
    const machine1 = machineTicks();
    const cpu = each((p) => cpuSeconds(pids[p]) - cpu0[p]);
    const loggedBytes = rotated + scanLogs(paths.podLogs).current - logged0;
    await cycling;
    const unusedLeft = (await client.listImages()).some((i) => i.repoTags.includes(UNUSED));
    const endBytes = diskUsage(paths.root).total;
    const du = spawnSync('du', ['-sx', '--block-size=1', paths.root], { encoding: 'utf8' });
    stopEvents.abort();
    await reading;
    return {
      config,
      imagesBytes,
      stateBytes,
      samples,
      loggedBytes,
      rotations: rotations.filter((r) => r.at >= sampledFrom),
      events,
      failures,
      collected,
      pulls,
      removals,
      pullErrors,
      unusedLeft,
      cpuSeconds: cpu,
      machineCores: (machine1.busy - machine0.busy) / 100 / elapsedSeconds,
      endBytes,
      duBytes: Number(du.stdout.split(/\s/)[0]),
      elapsedSeconds,
    };
  } finally {
    stopEvents.abort();
    client.close();
    await run?.stop();
    // knode leaves its containers running when it stops; reset stops the runtime and them, and unmounts what is left.
    spawnSync(process.execPath, [join(repo, 'bin/run.js'), 'reset', '--force', '--root-dir', paths.root], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
    registry.stop();
  }
}
