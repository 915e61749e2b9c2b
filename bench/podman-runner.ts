// The sides and the run loop that bench/podman.ts (pods) and
// bench/podman-workloads.ts (a Deployment and a Job) share: `knode apply` on
// the embedded runtime and on containerd 2 (unless KNODE_BENCH_CONTAINERD2=off)
// against `podman kube play`, each with its own state and the busybox:1.36
// image (scripts/busybox-image.sh) imported beforehand; runs interleaved
// (knode, podman, knode, podman…), each checked then taken down before the
// next; and the clean-up of every side, containerd 2 and the manifests.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { CriClient } from '../src/cri/client.js';
import type { ContainerConfig, PodSandboxConfig } from '../src/cri/types.js';
import { rootPaths } from '../src/util/paths.js';
import { startContainerd } from './runtimes.js';
import { median } from './stats.js';

const repo = join(import.meta.dirname, '..');
export const IMAGE = 'docker.io/library/busybox:1.36';
/** What this VM needs for podman's containers to start: it refuses podman's default rlimits. */
const ULIMITS = 'default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]';

/** One command line under comparison. */
export interface Side {
  name: string;
  /** Runs the manifest; returns the command's wall time in ms. */
  apply(file: string): number;
  /** How many containers of the manifest's pods run now (infra containers aside). */
  running(): number;
  /** How many containers of the manifest's pods have exited with 0 (infra containers aside). */
  succeeded(): number;
  down(file: string): void;
  /**
   * knode's sides: PODS pods made straight over CRI by a
   * client already connected, all at once (RunPodSandbox, CreateContainer,
   * StartContainer each), then removed: the wall time and the machine's CPU
   * of what the runtime alone does, the floor under any agent's time on it.
   */
  floor?(pods: number): Promise<{ ms: number; cpu: CpuSpan }>;
  /** Removes what is left of the manifests in `dir` (after a failed run), and the side's own state. */
  close(dir: string): Promise<void>;
}

/** Runs a command; throws with its output when it fails. */
export function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

function timedRun(cmd: string, args: string[], env?: NodeJS.ProcessEnv): number {
  const t0 = performance.now();
  run(cmd, args, env);
  return performance.now() - t0;
}

/**
 * CPU used over a span, in ms: the whole machine's (every core, whatever ran)
 * and that of this process's children waited for in it (a command run with
 * spawnSync, and what it waited for in turn).
 */
export interface CpuSpan {
  machineMs: number;
  childrenMs: number;
}

/** Linux's clock tick for /proc's times (USER_HZ), 100 on every architecture Node runs on. */
const USER_HZ = 100;

function cpuNow(): CpuSpan {
  const machineMs = cpus().reduce((sum, c) => sum + c.times.user + c.times.nice + c.times.sys + c.times.irq, 0);
  // cutime and cstime, fields 16 and 17 of /proc/self/stat; the fields after the command's ")" start at the 3rd.
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const childrenMs = ((Number(fields[13]) + Number(fields[14])) * 1000) / USER_HZ;
  return { machineMs, childrenMs };
}

/** Runs FN; returns what it returned and the CPU used meanwhile. */
export function withCpu<T>(fn: () => T): { value: T; cpu: CpuSpan } {
  const before = cpuNow();
  const value = fn();
  const after = cpuNow();
  return { value, cpu: { machineMs: after.machineMs - before.machineMs, childrenMs: after.childrenMs - before.childrenMs } };
}

/** Blocks this process for MS (the bench's loop is synchronous: it times commands with spawnSync). */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** A window the machine is quiet in: less than QUIET_BUSY_MS of CPU, all cores together, in QUIET_WINDOW_MS. */
const QUIET_WINDOW_MS = 200;
const QUIET_BUSY_MS = 20;
/** How long a run waits at most for a quiet window. */
const QUIET_WAIT_MS = 10_000;

/** The CPU the machine used, all cores together, in the next MS (slept through). */
function machineBusyIn(ms: number): number {
  const before = cpuNow().machineMs;
  sleepSync(ms);
  return cpuNow().machineMs - before;
}

/**
 * Waits for a window in which the machine is quiet, at most QUIET_WAIT_MS,
 * and returns how long it waited. What a side's teardown leaves running
 * (podman's cleanup processes, containerd's exiting shims) is not the next
 * command's cost: a user runs a command on a quiet machine. BUSY_IN and NOW
 * are the machine's and the clock's, but in tests.
 */
export function waitForQuiet(busyIn: (ms: number) => number = machineBusyIn, now: () => number = () => performance.now()): number {
  const t0 = now();
  for (;;) {
    if (busyIn(QUIET_WINDOW_MS) < QUIET_BUSY_MS || now() - t0 > QUIET_WAIT_MS) return now() - t0;
  }
}

/** The least wall time the machine's cores allow for CPU_MS of work spread over all of them. */
export function cpuBoundMs(cpuMs: number): number {
  return cpuMs / availableParallelism();
}

/** `knode` as users run it, on the embedded runtime of its own root dir or on `endpoint`. */
export function knodeSide(name: string, archive: string, endpoint?: string): Side {
  const root = mkdtempSync(join(tmpdir(), 'knode-bench-podman-'));
  const global = ['--root-dir', root, ...(endpoint ? ['--runtime-endpoint', endpoint] : [])];
  const knode = (...args: string[]) => [join(repo, 'bin/run.js'), ...args, ...global];
  if (!endpoint) {
    // The embedded runtime keeps imported images as pulled; it wants a registries.yaml, empty will do.
    writeFileSync(join(root, 'registries.yaml'), '');
    run(process.execPath, knode('image', 'import', archive, '--base-name', 'docker.io/library/busybox'));
  }
  const containers = () => {
    const list = JSON.parse(run(process.execPath, knode('status', '-o', 'json'))) as {
      items: { status?: { containerStatuses?: { state?: { running?: unknown; terminated?: { exitCode?: number } } }[] } }[];
    };
    return list.items.flatMap((p) => p.status?.containerStatuses ?? []);
  };
  return {
    name,
    floor: (pods) => criFloor(endpoint ?? `unix://${rootPaths(root).runtimeSocket}`, join(root, 'floor-logs'), pods),
    apply: (file) => timedRun(process.execPath, knode('apply', '-f', file)),
    running: () => containers().filter((c) => c.state?.running).length,
    succeeded: () => containers().filter((c) => c.state?.terminated?.exitCode === 0).length,
    down: (file) => void run(process.execPath, knode('delete', '-f', file, '--force')),
    close: async (dir) => {
      // Pods outlive the embedded runtime (their holders keep their namespaces), so they go first.
      spawnSync(process.execPath, knode('delete', '-f', dir, '--force'), { stdio: 'ignore' });
      if (!endpoint) spawnSync(process.execPath, knode('runtime', 'stop'), { stdio: 'ignore' });
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Side.floor on the runtime at ENDPOINT: host-network pods of one busybox container, as the manifests' pods. */
async function criFloor(endpoint: string, logs: string, pods: number): Promise<{ ms: number; cpu: CpuSpan }> {
  const client = new CriClient(endpoint);
  try {
    await client.version();
    const run = `${Date.now().toString(36)}`;
    const sandboxes: string[] = [];
    const before = cpuNow();
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: pods }, async (_, i) => {
        const config: PodSandboxConfig = {
          metadata: { name: `floor-${run}-${i}`, uid: `floor-${run}-${i}`, namespace: 'default', attempt: 0 },
          logDirectory: join(logs, `${run}-${i}`),
          labels: {},
          annotations: {},
          linux: { securityContext: { namespaceOptions: { network: 'NODE', pid: 'CONTAINER', ipc: 'POD' } } },
        } as PodSandboxConfig;
        const sandbox = await client.runPodSandbox(config);
        sandboxes.push(sandbox);
        const container = {
          metadata: { name: 'work', attempt: 0 },
          image: { image: IMAGE },
          command: ['sleep', 'infinity'],
          logPath: 'work/0.log',
          labels: {},
          annotations: {},
        } as unknown as ContainerConfig;
        await client.startContainer(await client.createContainer(sandbox, container, config));
      }),
    );
    const took = performance.now() - t0;
    const after = cpuNow();
    for (const id of sandboxes) {
      await client.stopPodSandbox(id);
      await client.removePodSandbox(id);
    }
    rmSync(logs, { recursive: true, force: true });
    return { ms: took, cpu: { machineMs: after.machineMs - before.machineMs, childrenMs: 0 } };
  } finally {
    client.close();
  }
}

/**
 * podman with its storage in a fresh directory, and a containers.conf of its
 * own (CONTAINERS_CONF) holding the rlimits this VM accepts, so no system
 * file is edited.
 */
export function podmanSide(archive: string): Side {
  const dir = mkdtempSync(join(tmpdir(), 'knode-bench-podman-store-'));
  writeFileSync(join(dir, 'containers.conf'), `[containers]\n${ULIMITS}\n`);
  const env = { ...process.env, CONTAINERS_CONF: join(dir, 'containers.conf') };
  const podman = (...args: string[]) => ['--root', join(dir, 'storage'), '--runroot', join(dir, 'run'), ...args];
  const id = run('podman', podman('pull', '-q', `oci-archive:${archive}`), env)
    .trim()
    .split('\n')
    .at(-1)!;
  run('podman', podman('tag', id, IMAGE), env);
  /** The state and exit code of each container of the manifests' pods (`{{.State}}` is a phrase in podman 4.3.1, the JSON is not). */
  const states = () =>
    (
      JSON.parse(run('podman', podman('ps', '--all', '--format', 'json'), env)) as { IsInfra: boolean; State: string; ExitCode: number }[]
    ).filter((c) => !c.IsInfra);
  return {
    name: 'podman kube play',
    apply: (file) => timedRun('podman', podman('kube', 'play', file), env),
    running: () => states().filter((c) => c.State === 'running').length,
    succeeded: () => states().filter((c) => c.State === 'exited' && c.ExitCode === 0).length,
    down: (file) => void run('podman', podman('kube', 'down', file), env),
    close: async () => {
      spawnSync('podman', podman('pod', 'rm', '--all', '--force', '--time', '0'), { env, stdio: 'ignore' });
      spawnSync('podman', podman('system', 'reset', '--force'), { env, stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What is missing for the podman side, or undefined. */
export function podmanMissing(): string | undefined {
  const missing = ['podman', 'catatonit'].filter((b) => spawnSync('sh', ['-c', `command -v ${b}`]).status !== 0);
  if (missing.length > 0) return `${missing.join(' and ')} missing: apt-get install -y podman catatonit`;
  return undefined;
}

/** Whether a plain `podman kube play` on this machine gets the rlimits it needs (the bench brings its own). */
export function systemConfNote(): string {
  const path = '/etc/containers/containers.conf';
  const has = existsSync(path) && readFileSync(path, 'utf8').includes('default_ulimits');
  return has
    ? `${path} sets default_ulimits`
    : `${path} has no default_ulimits; the bench passes its own containers.conf (CONTAINERS_CONF) with ${ULIMITS}; a plain podman here needs that line in ${path}`;
}

/**
 * Sets up the sides (what is missing for podman is an error; the note on the
 * system's containers.conf is printed), hands them and a directory for the
 * manifests to BODY, and cleans all up after it, whether it threw or not.
 */
export async function withPodmanSides<T>(body: (sides: Side[], dir: string) => T | Promise<T>): Promise<T> {
  const missing = podmanMissing();
  if (missing) throw new Error(`npm run bench -- podman: ${missing}`);
  console.log(systemConfNote());
  const archive = execFileSync('bash', [join(repo, 'scripts/busybox-image.sh')], { encoding: 'utf8' }).trim();
  const dir = mkdtempSync(join(tmpdir(), 'knode-bench-podman-manifests-'));
  const containerd2 = process.env.KNODE_BENCH_CONTAINERD2 !== 'off' ? await startContainerd('2') : undefined;
  const sides: Side[] = [];
  try {
    sides.push(knodeSide('knode apply (embedded)', archive));
    sides.push(podmanSide(archive));
    if (containerd2) sides.push(knodeSide(`knode apply (${containerd2.name})`, archive, containerd2.endpoint));
    return await body(sides, dir);
  } finally {
    for (const side of sides) await side.close(dir);
    await containerd2?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One manifest as the loop runs it on each side. */
export interface Trial {
  file: string;
  /** The side's time for the manifest in ms, or undefined when the side does not run it (it is not tried again). */
  time(side: Side): number | undefined;
  /** Throws when the side's pods are not there after its time. */
  check(side: Side): void;
}

/** Each side's samples of a trial, in the sides' order, with the CPU each took; `refused` when its time was undefined. */
export interface Samples {
  samples: number[];
  cpu: CpuSpan[];
  refused: boolean;
}

/**
 * The interleaved runs: one of each side first, not counted (the first start
 * of each pays for cold caches), then RUNS of each, side after side; each run
 * starts on a quiet machine (QUIET, waitForQuiet but in tests), and is timed,
 * checked and taken down before the next. Prints how long the runs waited.
 */
export function interleave(sides: Side[], runs: number, trial: Trial, quiet: () => number = waitForQuiet): Samples[] {
  const out: Samples[] = sides.map(() => ({ samples: [], cpu: [], refused: false }));
  const waits: number[] = [];
  for (let run = -1; run < runs; run++) {
    for (const [i, side] of sides.entries()) {
      if (out[i].refused) continue;
      waits.push(quiet());
      const { value: took, cpu } = withCpu(() => trial.time(side));
      if (took === undefined) {
        out[i].refused = true;
        continue;
      }
      trial.check(side);
      side.down(trial.file);
      if (run >= 0) {
        out[i].samples.push(took);
        out[i].cpu.push(cpu);
      }
    }
  }
  console.log(
    `${basename(trial.file)}: each run waited for a quiet machine (under ${QUIET_BUSY_MS} ms of CPU in ${QUIET_WINDOW_MS} ms): p50 ${median(waits).toFixed(0)} ms, at most ${Math.max(0, ...waits).toFixed(0)} ms`,
  );
  return out;
}
