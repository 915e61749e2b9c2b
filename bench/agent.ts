// What the benches that run a node agent as its own process share: starting
// `knode run` on a runtime, writing static pod manifests the way an operator
// would, and reading the agent's CPU, memory and open files from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ContainerEvent } from '../src/cri/types.js';
import { MALLOC_TUNABLES, NODE_FLAGS } from '../src/util/node-flags.js';

const repo = join(import.meta.dirname, '..');
const TICKS_PER_SECOND = 100;

export interface Running {
  pid: number;
  podsDir: string;
  /** The node's unix socket (`<root-dir>/run/knode.sock`), for knode only. */
  socketPath?: string;
  /** The read-only port's /pods, for the kubelet only. */
  podsUrl?: string;
  stop(): Promise<void>;
}

export interface KnodeOptions {
  pleg: 'evented' | 'relist';
  nodeName: string;
  /** More `knode run` flags (e.g. `--max-pods`). */
  args?: string[];
}

/**
 * Flags for the node processes a bench starts, as users get them: `knode run`
 * with NODE_FLAGS (bin/run.js's shebang), the runtime without (knode starts it
 * with none). KNODE_BENCH_NODE_FLAGS="--flag …" adds Node and V8 flags to
 * `knode run`'s, to weigh one beside the shebang's. KNODE_BENCH_CPU_PROF=DIR
 * writes a V8 CPU profile of each into DIR when it exits. Both get the
 * shebang's malloc tunables (nodeEnv): the runtime inherits them from knode.
 */
export function nodeFlags(process_: 'agent' | 'runtime'): string[] {
  const dir = process.env.KNODE_BENCH_CPU_PROF;
  const extra = process_ === 'agent' ? (process.env.KNODE_BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean) : [];
  return [...(process_ === 'agent' ? NODE_FLAGS : []), ...extra, ...(dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [])];
}

/**
 * The environment of the node processes a bench starts: this one's, with
 * bin/run.js's malloc tunables; with KNODE_BENCH_PRELOAD=LIB, another
 * allocator preloaded instead (jemalloc: is memory a churn leaves glibc's?).
 */
export function nodeEnv(): NodeJS.ProcessEnv {
  if (process.env.KNODE_BENCH_PRELOAD) return { ...process.env, LD_PRELOAD: process.env.KNODE_BENCH_PRELOAD };
  return { ...process.env, GLIBC_TUNABLES: MALLOC_TUNABLES };
}

/**
 * `knode run` on a static pod directory under `dir`, its read-only API on the
 * unix socket only; without an endpoint, on the embedded runtime it starts
 * under its root dir (`dir/root`), as users get it.
 */
export async function startKnode(dir: string, endpoint: string | undefined, options: KnodeOptions): Promise<Running> {
  const podsDir = join(dir, 'pods');
  mkdirSync(podsDir, { recursive: true });
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...nodeFlags('agent'),
      join(repo, 'bin/run.js'),
      'run',
      '--static-dir',
      podsDir,
      '--root-dir',
      join(dir, 'root'),
      ...(endpoint ? ['--runtime-endpoint', endpoint] : []),
      '--node-name',
      options.nodeName,
      '--pleg',
      options.pleg,
      '--read-only-port',
      '0',
      '--file-check-frequency',
      '20s',
      '--output',
      'json',
      ...(options.args ?? []),
      // Settings to compare in one session, e.g. `--max-parallel-sandbox-starts 0`.
      ...(process.env.KNODE_BENCH_KNODE_ARGS ?? '').split(/\s+/).filter(Boolean),
    ],
    { stdio: 'ignore', env: nodeEnv() },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await until(() => readdirSync(join(dir, 'root', 'run')).includes('knode.sock'), 'knode to serve its API', 30_000).catch(() => undefined);
  return {
    pid: child.pid!,
    podsDir,
    socketPath: join(dir, 'root', 'run', 'knode.sock'),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A one-container pod sleeping for an hour, on the host network. */
export function manifest(name: string): string {
  return `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  hostNetwork: true\n  terminationGracePeriodSeconds: 1\n  containers:\n    - name: main\n      image: docker.io/library/busybox:1.36\n      imagePullPolicy: IfNotPresent\n      command: ["sleep", "3600"]\n`;
}

/** Written beside, then renamed in: no agent reads a half-written manifest (by default the pod of `manifest`). */
export function writeManifest(podsDir: string, name: string, text = manifest(name)): void {
  writeFileSync(join(podsDir, `.${name}.yaml`), text);
  renameSync(join(podsDir, `.${name}.yaml`), join(podsDir, `${name}.yaml`));
}

/** CPU seconds (user + system) of a process so far. */
export function cpuSeconds(pid: number): number {
  const { user, system } = cpuTimes(pid);
  return user + system;
}

/** A process's CPU seconds so far, in user space and in the kernel. */
export function cpuTimes(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / TICKS_PER_SECOND, system: Number(fields[12]) / TICKS_PER_SECOND };
}

export function statusKiB(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? 0);
}

/** Open file descriptors of a process (entries of /proc/PID/fd). */
export function openFiles(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

export const sleep = (msToWait: number) => new Promise((r) => setTimeout(r, msToWait));

export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/**
 * A container's start, not its sandbox's: runtimes (containerd, and the
 * embedded one alike) send CONTAINER_STARTED_EVENT for a sandbox too, with
 * the sandbox's id as the container id.
 */
export function isContainerStart(e: ContainerEvent): boolean {
  return e.containerEventType === 'CONTAINER_STARTED_EVENT' && e.containerId !== e.podSandboxStatus?.id;
}
