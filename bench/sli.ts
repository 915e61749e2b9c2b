// Pod start-up as users and the Kubernetes SLI see it (issue 41): pods created
// with the API of a real control plane (kube-apiserver, kube-scheduler,
// kube-controller-manager) and timed from just before the create call to the
// watch event that shows the pod Running with every container ready. One node
// at a time, named alike, joins that control plane: the kubelet v1.37, knode
// (evented PLEG), knode (relist), each on a fresh containerd 2 of the same
// build, then knode on its embedded runtime. The image is present everywhere,
// as the SLI excludes pulls. Rounds: 30 pods one at a time, then bursts of 10
// and 30; the agent's CPU per round and its peak RSS come from /proc.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startControlPlane, type ControlPlane } from '../test/helpers/controlplane.js';
import { adminApi, timePodsToReady } from './cluster.js';
import { cpuSeconds, nodeEnv, nodeFlags, sleep, statusKiB, until } from './agent.js';
import { reportSplits, splitRound, type StageSplit } from './sli-split.js';
import { median, ms, percentile, table } from './stats.js';

const repo = join(import.meta.dirname, '..');
const cli = join(repo, 'bin/run.js');
const NODE = 'sli';

export type SliAgent = 'kubelet' | 'knode evented' | 'knode relist' | 'knode embedded';
export const SLI_AGENTS: SliAgent[] = ['kubelet', 'knode evented', 'knode relist', 'knode embedded'];
export const SLI_ROUNDS: { mode: 'one at a time' | 'burst'; pods: number }[] = [
  { mode: 'one at a time', pods: 30 },
  { mode: 'burst', pods: 10 },
  { mode: 'burst', pods: 30 },
];

export interface SliRound {
  agent: SliAgent;
  mode: 'one at a time' | 'burst';
  pods: number;
  /** Per pod: create call → watch event Running and ready (ms). */
  latencies: number[];
  /** The pod that took longest, by name (to find in the agent's log, KNODE_BENCH_SLI_LOG). */
  slowest: { name: string; ms: number };
  /** The agent's CPU seconds in the round, from the first create to the last pod ready. */
  cpuSeconds: number;
  /** The agent's peak resident set so far (VmHWM), MiB. */
  peakRssMiB: number;
  /** Where its pods' time went (knode only, from its lifecycle events). */
  split?: StageSplit;
}

type Api = Awaited<ReturnType<typeof adminApi>>;

interface Joined {
  pid: number;
  /** knode's lifecycle events (its --output json), one JSON object a line; none for the kubelet. */
  log?: string;
  stop(): Promise<void>;
}

/** Starts one agent as node NODE of the control plane; on containerd 2 unless it is knode's embedded runtime. */
async function join_(agent: SliAgent, cp: ControlPlane, dir: string, endpoint?: string): Promise<Joined> {
  const kubeconfig = cp.nodeKubeconfig(NODE);
  if (agent === 'kubelet') {
    const kubeletDir = join(dir, 'kubelet');
    const script = join(repo, 'test/peers/kubelet.sh');
    const out = execFileSync(
      'bash',
      [script, 'up', kubeletDir, '--runtime-endpoint', endpoint!, '--node-name', NODE, '--kubeconfig', kubeconfig],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const info = JSON.parse(out.trim().split('\n').at(-1)!) as { pid: number };
    return {
      pid: info.pid,
      stop: async () => void execFileSync('bash', [script, 'down', kubeletDir], { stdio: ['ignore', 'ignore', 'inherit'] }),
    };
  }
  const root = join(dir, 'root');
  const args = ['run', '--kubeconfig', kubeconfig, '--node-name', NODE, '--root-dir', root, '--node-ip', '127.0.0.1'];
  args.push('--port', String(await freePort()), '--client-ca-file', cp.ca, '--read-only-port', '0', '--output', 'json');
  args.push('--pleg', agent === 'knode relist' ? 'relist' : 'evented', ...(endpoint ? ['--runtime-endpoint', endpoint] : []));
  // Each knode's lifecycle events (its --output json) go to DIR/<agent>.log: KNODE_BENCH_SLI_LOG=DIR keeps them.
  const logDir = process.env.KNODE_BENCH_SLI_LOG ?? dir;
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, `${agent.replace(/\s+/g, '-')}.log`);
  const log = openSync(logFile, 'w');
  const child = spawn(process.execPath, [...nodeFlags('agent'), cli, ...args], { stdio: ['ignore', log, log], env: nodeEnv() });
  closeSync(log);
  const exited = new Promise((r) => child.once('exit', r));
  return {
    pid: child.pid!,
    log: logFile,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      if (!endpoint) execFileSync(process.execPath, [cli, 'runtime', 'stop', '--root-dir', root], { stdio: 'ignore' });
    },
  };
}

/** Creates the round's pods (all at once, or each once the last is ready) and times each to Running and ready. */
async function round(
  api: Api,
  namespace: string,
  agent: SliAgent,
  node: Joined,
  spec: (typeof SLI_ROUNDS)[number],
  tag: string,
): Promise<SliRound> {
  const { pid } = node;
  const cpu0 = cpuSeconds(pid);
  const { latencies, slowest, marks } = await timePodsToReady(api, namespace, spec.pods, spec.mode, (i) => `${tag}-${i}`);
  const figures = { agent, ...spec, latencies, slowest, cpuSeconds: cpuSeconds(pid) - cpu0, peakRssMiB: statusKiB(pid, 'VmHWM') / 1024 };
  const split = node.log ? splitRound(node.log, namespace, marks) : undefined;
  if (latencies.length < spec.pods) throw new Error(`${agent}: only ${latencies.length} of ${spec.pods} pods were ready within 300 s`);
  // Deleted as kubectl deletes: the node stops the containers, then the pod leaves the API.
  await Promise.all([...Array(spec.pods).keys()].map((i) => api.core.deleteNamespacedPod({ namespace, name: `${tag}-${i}` })));
  await until(async () => (await api.core.listNamespacedPod({ namespace })).items.length === 0, `${agent}: the pods to be gone`, 120_000);
  return { ...figures, split };
}

/** Every round for one agent, joined as NODE, on its own containerd 2 (or the embedded runtime). */
async function benchSliAgent(cp: ControlPlane, api: Api, agent: SliAgent): Promise<SliRound[]> {
  const dir = mkdtempSync(join(tmpdir(), 'knode-sli-'));
  const ctrDir = join(dir, 'containerd');
  const containerd = join(repo, 'test/peers/containerd2.sh');
  const endpoint =
    agent === 'knode embedded'
      ? undefined
      : execFileSync('bash', [containerd, 'up', ctrDir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  const namespace = `sli-${agent.replace(/\s+/g, '-')}`;
  let node: Joined | undefined;
  try {
    node = await join_(agent, cp, dir, endpoint);
    await until(
      async () =>
        (await api.core.readNode({ name: NODE })).status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
      `${agent}: node ${NODE} Ready`,
      60_000,
    );
    await api.core.createNamespace({ body: { metadata: { name: namespace } } });
    await until(
      async () => Boolean(await api.core.readNamespacedServiceAccount({ namespace, name: 'default' })),
      `${namespace}/default`,
      30_000,
    );
    await sleep(2_000); // the node's start-up work settles
    const rounds: SliRound[] = [];
    for (const [i, spec] of SLI_ROUNDS.entries()) rounds.push(await round(api, namespace, agent, node, spec, `r${i}`));
    return rounds;
  } finally {
    await node?.stop();
    await api.core.deleteNode({ name: NODE }).catch(() => {});
    await api.core.deleteNamespace({ name: namespace }).catch(() => {});
    if (endpoint) execFileSync('bash', [containerd, 'down', ctrDir], { stdio: ['ignore', 'ignore', 'inherit'] });
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The agents KNODE_BENCH_SLI_AGENTS names (comma-separated, e.g. `kubelet,knode evented`), else all. */
function chosenAgents(): SliAgent[] {
  const named = process.env.KNODE_BENCH_SLI_AGENTS?.split(',').map((a) => a.trim());
  if (!named) return SLI_AGENTS;
  const unknown = named.filter((a) => !SLI_AGENTS.includes(a as SliAgent));
  if (unknown.length > 0) throw new Error(`KNODE_BENCH_SLI_AGENTS: unknown ${unknown.join(', ')} (known: ${SLI_AGENTS.join(', ')})`);
  return named as SliAgent[];
}

/** The SLI rounds of every agent in turn, against one control plane. */
export async function benchSli(agents: SliAgent[] = chosenAgents()): Promise<SliRound[]> {
  const cp = startControlPlane({ controllers: true });
  try {
    const api = await adminApi(cp);
    const rounds: SliRound[] = [];
    for (const agent of agents) rounds.push(...(await benchSliAgent(cp, api, agent)));
    return rounds;
  } finally {
    cp.stop();
  }
}

/** The rounds as a table, then each knode agent's ratios to the kubelet on the same round. */
export function reportSli(
  rounds: SliRound[],
  title = 'Pod start-up SLI through a real control plane (create call -> watch shows Running and every container ready), one node at a time',
  goals = 'goals: p50 <= 0.4x and p99 <= 0.5x on containerd 2; p50 <= 0.1x on the embedded runtime',
): string {
  const lines = [
    `\n${title}\n`,
    table(
      ['agent', 'round', 'p50', 'p90', 'p99', 'slowest pod', 'agent CPU', 'agent peak RSS'],
      rounds.map((r) => [
        r.agent,
        `${r.pods} ${r.mode}`,
        ms(median(r.latencies)),
        ms(percentile(r.latencies, 90)),
        ms(percentile(r.latencies, 99)),
        `${r.slowest.name} ${ms(r.slowest.ms)}`,
        `${r.cpuSeconds.toFixed(2)} s`,
        `${r.peakRssMiB.toFixed(1)} MiB`,
      ]),
    ),
  ];
  const kubelet = rounds.filter((r) => r.agent === 'kubelet');
  if (kubelet.length > 0) {
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
    lines.push(`\nknode / kubelet on the same round (${goals})`);
    for (const r of rounds.filter((x) => x.agent !== 'kubelet')) {
      const k = kubelet.find((x) => x.mode === r.mode && x.pods === r.pods)!;
      lines.push(
        `  ${r.agent}, ${r.pods} ${r.mode}: p50 ${ratio(median(r.latencies), median(k.latencies))}, p99 ${ratio(percentile(r.latencies, 99), percentile(k.latencies, 99))}, CPU ${ratio(r.cpuSeconds, k.cpuSeconds)}, peak RSS ${ratio(r.peakRssMiB, k.peakRssMiB)}`,
      );
    }
  }
  const splits = reportSplits(rounds);
  if (splits) lines.push(splits);
  return lines.join('\n');
}
