// knode beside the real kubelet (issue: the real kubelet as oracle and anchor):
// the same static-pod bursts (1, 10, 100 one-container pods) through the
// kubelet v1.37 and through knode (evented and generic PLEG), each on a fresh
// containerd 2 of the same build, one agent at a time (the kubelet kills
// sandboxes it does not own). Start-up is measured by the bench itself over
// CRI: from the manifests landing in the static pod directory to containerd's
// CONTAINER_STARTED event for each pod. The agent's CPU time and peak RSS come
// from /proc, and its idle CPU and RSS are read with the 100 pods running.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CriClient } from '../src/cri/client.js';
import { standaloneSli } from './sli-standalone.js';
import type { SliRound } from './sli.js';
import { cpuSeconds, isContainerStart, startKnode, statusKiB, until, writeManifest, type Running } from './agent.js';

const repo = join(import.meta.dirname, '..');
const NODE = 'bench';

export type Agent = 'kubelet' | 'knode evented' | 'knode relist';

export interface BurstFigures {
  agent: Agent;
  pods: number;
  /** Per pod: manifests written → its container started (ms). */
  latencies: number[];
  totalMs: number;
  /** The agent's CPU seconds during the burst (until every container ran). */
  cpuSeconds: number;
  /** The agent's peak resident set so far (VmHWM), MiB. */
  peakRssMiB: number;
}

export interface IdleFigures {
  agent: Agent;
  pods: number;
  /** CPU the agent used per second over the idle window, in cores. */
  cpuCores: number;
  rssMiB: number;
}

function startKubelet(dir: string, endpoint: string): Running {
  const out = execFileSync('bash', [join(repo, 'test/peers/kubelet.sh'), 'up', dir, '--runtime-endpoint', endpoint, '--node-name', NODE], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const info = JSON.parse(out.trim().split('\n').at(-1)!) as { pid: number; podsDir: string; podsUrl: string };
  return {
    pid: info.pid,
    podsDir: info.podsDir,
    podsUrl: info.podsUrl,
    stop: async () => {
      execFileSync('bash', [join(repo, 'test/peers/kubelet.sh'), 'down', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
    },
  };
}

/** One burst: N manifests land at once; the start of each pod's container is seen on containerd's event stream. */
async function burst(agent: Agent, run: Running, client: CriClient, pods: number, round: number): Promise<BurstFigures> {
  const names = Array.from({ length: pods }, (_, i) => `b${round}-${i}`);
  const wanted = new Set(names.map((n) => `${n}-${NODE}`));
  const startedAt = new Map<string, number>();
  const abort = new AbortController();
  const watching = (async () => {
    for await (const e of client.getContainerEvents(abort.signal)) {
      const pod = e.podSandboxStatus?.metadata?.name;
      if (isContainerStart(e) && pod && wanted.has(pod) && !startedAt.has(pod)) startedAt.set(pod, performance.now());
    }
  })().catch(() => {});
  await new Promise((r) => setTimeout(r, 200)); // the stream is open
  const cpu0 = cpuSeconds(run.pid);
  const t0 = performance.now();
  for (const name of names) writeManifest(run.podsDir, name);
  await until(() => startedAt.size === pods, `${agent}: ${pods} containers to start (${startedAt.size} did)`, 180_000);
  const totalMs = performance.now() - t0;
  const figures: BurstFigures = {
    agent,
    pods,
    totalMs,
    latencies: [...startedAt.values()].map((t) => t - t0),
    cpuSeconds: cpuSeconds(run.pid) - cpu0,
    peakRssMiB: statusKiB(run.pid, 'VmHWM') / 1024,
  };
  abort.abort();
  await watching;
  return figures;
}

async function removeAll(run: Running, client: CriClient): Promise<void> {
  for (const f of readdirSync(run.podsDir)) rmSync(join(run.podsDir, f));
  await until(
    async () => (await client.listContainers({ state: { state: 'CONTAINER_RUNNING' } })).length === 0,
    'the pods to be stopped',
    180_000,
  );
}

/** Every burst and the idle reading for one agent, on its own containerd 2. */
export async function benchAgent(
  agent: Agent,
  sizes: number[],
  idleMs = 10_000,
): Promise<{ bursts: BurstFigures[]; idle: IdleFigures; standalone: SliRound[] }> {
  const ctrDir = mkdtempSync(join(tmpdir(), 'kctr-side-'));
  const agentDir = mkdtempSync(join(tmpdir(), 'agent-side-'));
  const endpoint = execFileSync('bash', [join(repo, 'test/peers/containerd2.sh'), 'up', ctrDir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  const client = new CriClient(endpoint);
  let run: Running | undefined;
  try {
    run =
      agent === 'kubelet'
        ? startKubelet(agentDir, endpoint)
        : await startKnode(agentDir, endpoint, { pleg: agent === 'knode evented' ? 'evented' : 'relist', nodeName: NODE });
    const bursts: BurstFigures[] = [];
    let idle: IdleFigures | undefined;
    for (const [round, pods] of sizes.entries()) {
      bursts.push(await burst(agent, run, client, pods, round));
      if (round === sizes.length - 1) {
        await new Promise((r) => setTimeout(r, 2_000)); // statuses settle
        const cpu0 = cpuSeconds(run.pid);
        await new Promise((r) => setTimeout(r, idleMs));
        idle = { agent, pods, cpuCores: (cpuSeconds(run.pid) - cpu0) / (idleMs / 1000), rssMiB: statusKiB(run.pid, 'VmRSS') / 1024 };
      }
      await removeAll(run, client);
    }
    const standalone = await standaloneSli(agent, run, NODE, () => removeAll(run!, client));
    return { bursts, idle: idle!, standalone };
  } finally {
    await run?.stop();
    client.close();
    execFileSync('bash', [join(repo, 'test/peers/containerd2.sh'), 'down', ctrDir], { stdio: ['ignore', 'ignore', 'inherit'] });
    rmSync(agentDir, { recursive: true, force: true });
  }
}
