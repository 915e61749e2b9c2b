// Runs the differential corpus through one agent (the real kubelet or knode) on a
// containerd 2 of its own, and samples every pod's status from the agent's
// read-only /pods once a second. See README.md beside this file.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import type { Pod, PodList, PodSpec } from '../../src/engine/api/v1.js';
import { CriClient } from '../../src/cri/client.js';
import { repoRoot } from '../helpers/runtimes.js';
import { startAgent, tail, unmountUnder, type AgentName, type StartedAgent } from './agent-start.js';
import { begun } from './normalise.js';
import { LASTS, runSeconds, startOf, type Scenario } from './scenarios.js';

const run = promisify(execFile);
const peers = join(repoRoot, 'test/peers');

export type { AgentName };

/** One look at /pods: the second it was due, and the pods found per scenario name (several when an old and a new pod coexist). */
export interface Sample {
  second: number;
  /** Milliseconds after t = 0 when the answer came. */
  tookMs: number;
  pods: Record<string, Pod[]>;
  error?: string;
  /** How busy the machine's CPUs were since the previous sample (0–1): what a late state can be blamed on. */
  busy?: number;
}

/** Busy and total CPU time of the machine so far (/proc/stat), in ticks. */
function cpuTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - fields[3] - (fields[4] ?? 0), total };
}

export interface AgentRun {
  agent: AgentName;
  nodeName: string;
  samples: Sample[];
  /** Wall time of the whole run (runtime up to runtime down), ms. */
  wallMs: number;
  /** The agent's own log, kept for a failing run's report. */
  logTail: string;
  /** CPU seconds (user + system) the agent and containerd used until the last sample. */
  cpuSeconds: { agent: number; containerd: number };
}

/** CPU seconds (user + system) a live process has used. */
function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** containerd 2 under DIR (containerd2.sh up); returns its endpoint. */
export async function containerdUp(dir: string): Promise<string> {
  const { stdout } = await run('bash', [join(peers, 'containerd2.sh'), 'up', dir], { maxBuffer: 1 << 24 });
  return stdout.trim().split('\n').pop()!;
}

/** Every descendant of the given pids, from /proc. */
function descendants(roots: number[]): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      (children.get(ppid) ?? children.set(ppid, []).get(ppid)!).push(Number(entry));
    } catch {
      // gone
    }
  }
  const out: number[] = [];
  const queue = [...roots];
  while (queue.length)
    for (const c of children.get(queue.shift()!) ?? []) {
      out.push(c);
      queue.push(c);
    }
  return out;
}

/** The shims serving the containerd at SOCKET (their command line names it). */
function shimsOf(socket: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args[0].endsWith('containerd-shim-runc-v2') && args.includes(socket)) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}

/**
 * The cgroups containerd made for these containers and sandboxes (`<hierarchy>/k8s.io/<id>`),
 * which nobody deletes once containerd and the shims are killed. Only these ids: other
 * containerds on this machine use the same parent.
 */
async function removeCgroups(ids: string[]): Promise<void> {
  const root = '/sys/fs/cgroup';
  let hierarchies: string[];
  try {
    hierarchies = readdirSync(root).map((h) => join(root, h, 'k8s.io'));
  } catch {
    return;
  }
  let left = hierarchies.flatMap((h) => ids.map((id) => join(h, id)));
  for (let i = 0; i < 50 && left.length; i++) {
    left = left.filter((dir) => {
      try {
        rmdirSync(dir);
        return false;
      } catch (err) {
        return (err as NodeJS.ErrnoException).code === 'EBUSY';
      }
    });
    if (left.length) await sleep(100);
  }
}

function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

/**
 * Stops that containerd fast, then containerd2.sh down unmounts and removes DIR.
 * containerd2.sh down alone kills the tasks one `ctr tasks kill` at a time (half a
 * minute for 60 pods), and StopPodSandbox for each pod is not much faster on a busy
 * machine. Instead: the pods on the pod network get StopPodSandbox and
 * RemovePodSandbox (so their network namespace and CNI interface go), then every
 * process under the shims (containers and sandboxes), containerd and the shims are
 * killed; its `ctr tasks` loop then finds no containerd to ask.
 */
export async function containerdDown(dir: string, endpoint?: string, log: (line: string) => void = () => {}): Promise<void> {
  const t = Date.now();
  if (endpoint) {
    const cri = new CriClient(endpoint, { requestTimeoutMs: 10_000 });
    const ids: string[] = [];
    try {
      const sandboxes = await cri.listPodSandbox();
      ids.push(...sandboxes.map((x) => x.id), ...(await cri.listContainers()).map((x) => x.id));
      for (const sandbox of sandboxes) {
        const status = await cri.podSandboxStatus(sandbox.id);
        if (!status.status?.network?.ip) continue; // the host network: nothing outside DIR to undo
        await cri.stopPodSandbox(sandbox.id);
        await cri.removePodSandbox(sandbox.id);
      }
    } catch (err) {
      log(`containerd down: ${String(err)}`);
    } finally {
      cri.close();
    }
    const shims = shimsOf(endpoint.replace(/^unix:\/\//, ''));
    killAll(descendants(shims));
    try {
      killAll([Number(readFileSync(join(dir, 'containerd.pid'), 'utf8'))]);
    } catch {
      // not started
    }
    killAll(shims);
    await removeCgroups(ids);
    log(`containerd killed in ${Date.now() - t} ms`);
  }
  await run('bash', [join(peers, 'containerd2.sh'), 'down', dir]).catch(() => {});
  log(`containerd down after ${Date.now() - t} ms`);
}

/** The manifest as YAML 1.1, which the kubelet reads (a string such as `N` or `on` is quoted). */
function manifest(name: string, spec: PodSpec): string {
  return stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec }, { version: '1.1' });
}

export function fileOf(s: Scenario): string {
  return s.fileName ?? `${s.name}.yaml`;
}

/** Writes .FILE and renames it to FILE: the kubelet parses every file that does not start with a dot. */
export function writeManifest(dir: string, s: Scenario, spec: PodSpec): void {
  const hidden = join(dir, `.${fileOf(s)}`);
  writeFileSync(hidden, spec === s.spec && s.text ? s.text : manifest(s.name, spec));
  renameSync(hidden, join(dir, fileOf(s)));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Seconds the run may go on past its plan (runSeconds) for pods that began late on a busy machine. */
const CAP = 30;
/** Seconds after its manifest was written when a pod an agent has not begun counts as begun, for its edit, removal and end. */
const GIVE_UP = 25;

/**
 * Runs every scenario through AGENT on a fresh containerd 2, in waves, and returns
 * a sample per second until every scenario has lasted its time after it began. Cleans up (agent, runtime,
 * mounts, temp dirs) whatever happens.
 */
export async function runAgent(
  agent: AgentName,
  scenarios: Scenario[],
  nodeName: string,
  log: (line: string) => void = () => {},
): Promise<AgentRun> {
  const started = Date.now();
  const base = mkdtempSync(join(tmpdir(), `knode-diff-${agent}-`));
  const ctdDir = join(base, 'containerd');
  const agentDir = join(base, agent);
  let started_: StartedAgent | undefined;
  let result: AgentRun | undefined;
  let endpoint: string | undefined;
  try {
    endpoint = await containerdUp(ctdDir);
    started_ = await startAgent(agent, agentDir, endpoint, nodeName);
    log(`${agent}: up after ${Date.now() - started} ms`);
    const { podsDir, podsUrl } = started_;
    const podName = new Map(scenarios.map((s) => [`${s.name}-${nodeName}`, s.name]));
    const offset = new Map(scenarios.map((s, i) => [s.name, startOf(i)]));
    // Each scenario's clock starts when this agent shows its pod begun (a pod it
    // never begins: GIVE_UP seconds after it was written). Its edit or removal
    // happens that many seconds later, and the run goes on until every scenario has
    // lasted its time, or until the cap.
    const origin = new Map<string, number>();
    const cap = runSeconds(scenarios) + CAP;
    const samples: Sample[] = [];

    const t0 = Date.now();
    let ticks = cpuTicks();
    for (let second = 0; second <= cap; second++) {
      const wait = t0 + second * 1000 - Date.now();
      if (wait > 0) await sleep(wait);
      // Each scenario starts in its wave (startOf).
      for (const s of scenarios) if (offset.get(s.name) === second) writeManifest(podsDir, s, s.spec);
      // Actions due this second happen after its sample.
      const sample: Sample = { second, tookMs: 0, pods: {} };
      try {
        const list = (await (await fetch(podsUrl, { signal: AbortSignal.timeout(5000) })).json()) as PodList;
        for (const pod of list.items ?? []) {
          const name = podName.get(pod.metadata.name ?? '');
          if (name) (sample.pods[name] ??= []).push(pod);
        }
      } catch (err) {
        sample.error = String(err);
      }
      sample.tookMs = Date.now() - t0;
      const now = cpuTicks();
      sample.busy = Math.round(((now.busy - ticks.busy) / Math.max(1, now.total - ticks.total)) * 100) / 100;
      ticks = now;
      samples.push(sample);
      for (const s of scenarios) {
        const written = offset.get(s.name)!;
        if (!origin.has(s.name) && second >= written && sample.pods[s.name]?.some(begun)) origin.set(s.name, second);
        if (!origin.has(s.name) && second >= written + GIVE_UP) origin.set(s.name, second);
        const o = origin.get(s.name);
        if (o === undefined) continue;
        if (s.edit && o + s.edit.at === second) writeManifest(podsDir, s, s.edit.spec);
        if (s.removeAt !== undefined && o + s.removeAt === second) unlinkSync(join(podsDir, fileOf(s)));
      }
      const done = (s: Scenario) => origin.has(s.name) && second >= origin.get(s.name)! + (s.lasts ?? LASTS);
      if (scenarios.every(done)) break;
    }
    let containerdPid = Number.NaN;
    try {
      containerdPid = Number(readFileSync(join(ctdDir, 'containerd.pid'), 'utf8'));
    } catch {
      // gone
    }
    const cpuSeconds = { agent: cpuSecondsOf(started_.pid), containerd: cpuSecondsOf(containerdPid) };
    result = { agent, nodeName, samples, wallMs: 0, logTail: tail(started_.log, 400), cpuSeconds };
  } finally {
    const t = Date.now();
    await started_?.stop();
    log(`${agent}: stopped in ${Date.now() - t} ms`);
    await containerdDown(ctdDir, endpoint, log);
    await unmountUnder(base);
    if (process.env.KNODE_DIFF_KEEP === '1') log(`${agent}: kept ${base} (KNODE_DIFF_KEEP=1)`);
    else rmSync(base, { recursive: true, force: true });
    log(`${agent}: cleaned up in ${Date.now() - t} ms`);
  }
  result.wallMs = Date.now() - started;
  return result;
}
