// One agent's pass through the eviction scenarios (README.md beside this
// file): joined to the control plane as NODE, its pods made, memory taken on
// a trigger, and what the cluster then holds collected.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { ControlPlane } from '../../helpers/controlplane.js';
import { eventually } from '../../helpers/runtimes.js';
import { containerdDown, containerdUp } from '../harness.js';
import { tail, unmountUnder, type AgentName } from '../agent-start.js';
import { startEvictionAgent, type Agent } from './agents.js';
import { MEMORY_PODS, STATIC_POD, admissionPods, memoryPod, storagePods } from './scenarios.js';

export interface Kube {
  kind?: string;
  metadata: { name: string; namespace?: string; creationTimestamp?: string };
  spec?: Record<string, unknown> & { taints?: { key: string; effect: string }[] };
  status?: Record<string, unknown> & {
    phase?: string;
    reason?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[];
  };
  involvedObject?: { kind: string; name: string };
  reason?: string;
  message?: string;
  type?: string;
  firstTimestamp?: string;
  eventTime?: string;
}

export interface AgentResult {
  agent: AgentName;
  /** The node once the memory-pressure taint is on it. */
  node?: Kube;
  pods: Kube[];
  events: Kube[];
  thresholdKi?: number;
  timings: string[];
  error?: string;
  logTail?: string;
}

export const namespaceOf = (agent: AgentName) => `evict-${agent}`;

const evicted = (p: Kube | undefined) => p?.status?.reason === 'Evicted';

/**
 * Runs the scenarios through AGENT: a fresh containerd 2, the agent joined as
 * NODE, the pods in namespace evict-AGENT, then everything stopped and the
 * Node object deleted, whatever happens.
 */
export async function runAgent(cp: ControlPlane, agent: AgentName, node: string, log: (l: string) => void): Promise<AgentResult> {
  const ns = namespaceOf(agent);
  const result: AgentResult = { agent, pods: [], events: [], timings: [] };
  const t0 = Date.now();
  const mark = (what: string) => result.timings.push(`${what} ${Math.round((Date.now() - t0) / 100) / 10}s`);
  const base = mkdtempSync(join(tmpdir(), `knode-evictdiff-${agent}-`));
  const trigger = join(base, 'trigger');
  mkdirSync(trigger);
  const ctd = join(base, 'containerd');
  let endpoint: string | undefined;
  let started: Agent | undefined;
  const kubectl = async (...args: string[]) => {
    const r = await cp.kubectl(...args);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr.trim()}`);
    return r.stdout;
  };
  const apply = async (objects: Record<string, unknown>[]) => {
    const file = join(base, `apply-${Date.now()}.yaml`);
    writeFileSync(file, objects.map((o) => stringify(o, { version: '1.1' })).join('---\n'));
    await kubectl('create', '-f', file);
  };
  const pods = async () => (JSON.parse(await kubectl('get', 'pods', '-n', ns, '-o', 'json')) as { items: Kube[] }).items;
  const podNamed = async (name: string) => (await pods()).find((p) => p.metadata.name === name);
  const mirror = `${STATIC_POD.name}-${node}`;
  try {
    await kubectl('create', 'namespace', ns);
    await eventually(async () => (await cp.kubectl('get', 'serviceaccount', 'default', '-n', ns)).code === 0, `${ns}/default`, 30_000);
    endpoint = await containerdUp(ctd);
    const kubeconfig = cp.nodeKubeconfig(node);
    const dir = join(base, agent);
    started = await startEvictionAgent(agent, dir, endpoint, node, kubeconfig);
    result.thresholdKi = started.thresholdKi;
    writeFileSync(join(started.podsDir, 'static.yaml'), stringify(memoryPod(STATIC_POD, ns, trigger), { version: '1.1' }));
    mark('agent up');
    await eventually(
      async () => {
        const n = JSON.parse(await kubectl('get', 'node', node, '-o', 'json')) as Kube;
        return n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      },
      () => `node ${node} Ready; the ${agent}'s log:\n${tail(started!.log, 60)}`,
      90_000,
    );
    mark('node Ready');
    await apply([...MEMORY_PODS.map((p) => memoryPod(p, ns, trigger, node)), ...storagePods(ns, node)]);
    const running = (p: Kube | undefined) => p?.status?.phase === 'Running';
    await eventually(
      async () => {
        const all = await pods();
        return [...MEMORY_PODS.map((p) => p.name), mirror].every((n) => running(all.find((p) => p.metadata.name === n)));
      },
      () => `every memory pod and ${mirror} Running; the ${agent}'s log:\n${tail(started!.log, 60)}`,
      90_000,
    );
    mark('memory pods Running');
    writeFileSync(join(trigger, 'go'), '');
    // The node under pressure: the condition from the agent, the taint from the node lifecycle controller.
    result.node = await eventually(
      async () => {
        const n = JSON.parse(await kubectl('get', 'node', node, '-o', 'json')) as Kube;
        return n.spec?.taints?.some((t) => t.key === 'node.kubernetes.io/memory-pressure') ? n : undefined;
      },
      () => `the memory-pressure taint on ${node}; the ${agent}'s log:\n${tail(started!.log, 60)}`,
      60_000,
    );
    mark('taint');
    await apply(admissionPods(ns, node));
    // Two evictions at most are due (scenarios.ts); the storage pods go whatever the pressure.
    await eventually(
      async () => {
        const all = await pods();
        const named = (n: string) => all.find((p) => p.metadata.name === n);
        const memoryDone = evicted(named('burstable-high')) || all.filter(evicted).length >= 4;
        const admitted = running(named('admit-burstable')) && named('admit-besteffort')?.status?.phase === 'Failed';
        return memoryDone && admitted && evicted(named('emptydir-limit')) && evicted(named('ephemeral-limit'));
      },
      () => `the evictions and admissions; the ${agent}'s log:\n${tail(started!.log, 60)}`,
      150_000,
    );
    mark('evictions');
    // No further eviction once the memory is back under the threshold: two passes (10 s each) more.
    const quiet = Date.now();
    let before = (await pods()).filter(evicted).length;
    await eventually(
      async () => {
        const now = (await pods()).filter(evicted).length;
        if (now !== before) return void (before = now);
        return Date.now() - quiet > 21_000;
      },
      'two eviction passes',
      60_000,
    );
    mark('quiet');
    result.pods = await pods();
    result.events = (JSON.parse(await kubectl('get', 'events', '-n', ns, '-o', 'json')) as { items: Kube[] }).items;
    if (!(await podNamed(mirror))) throw new Error(`no mirror pod ${mirror}`);
  } catch (err) {
    result.error = (err as Error).message;
  } finally {
    result.logTail = started ? tail(started.log, 200) : '';
    // The kubelet is killed at once: its clean-up (kubelet.sh down) and containerd's can go side by side.
    // knode stops its pods through containerd on SIGTERM: containerd goes after it.
    const agentDown = started?.stop().catch(() => {});
    if (agent === 'knode') await agentDown;
    await containerdDown(ctd, endpoint, log);
    await agentDown;
    mark('agent and containerd down');
    await unmountUnder(base);
    // The next agent joins as the same node: it must find none of these pods bound to it.
    await cp.kubectl('delete', 'pods', '--all', '-n', ns, '--force', '--grace-period=0');
    await cp.kubectl('delete', 'node', node, '--wait=false');
    if (process.env.KNODE_DIFF_KEEP !== '1') rmSync(base, { recursive: true, force: true });
    mark('cleaned up');
  }
  return result;
}
