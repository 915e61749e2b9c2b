// Pod start-up through a real cluster (issue: join a real cluster): pods
// created in a real kube-apiserver, placed by the real kube-scheduler on three
// nodes joined with `knode join` (each on its own embedded runtime), and seen Running, every
// container ready, through the apiserver's watch. The latency of each pod runs
// from just before its create call to that watch event.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from '../src/engine/api/v1.js';
import { freePort, knodeJoinArgs, startControlPlane, type ControlPlane } from '../test/helpers/controlplane.js';
import { nodeEnv, nodeFlags } from './agent.js';

const cli = join(import.meta.dirname, '../bin/run.js');

export interface ClusterFigures {
  mode: 'burst' | 'one at a time';
  nodes: number;
  latencies: number[];
  totalMs: number;
}

interface KnodeProcess {
  child: ChildProcess;
  root: string;
  exited: Promise<unknown>;
}

async function startNodes(cp: ControlPlane, count: number): Promise<KnodeProcess[]> {
  const nodes: KnodeProcess[] = [];
  // The nodes join as kubeadm's do: one bootstrap token, a CSR each.
  const joining = cp.joinToken();
  for (let i = 1; i <= count; i++) {
    const name = `bench-${i}`;
    const root = mkdtempSync(join(tmpdir(), `knode-${name}-`));
    const args = knodeJoinArgs(joining, { name, root, port: await freePort() });
    const child = spawn(process.execPath, [...nodeFlags('agent'), cli, ...args], { stdio: 'ignore', env: nodeEnv() });
    nodes.push({ child, root, exited: new Promise((r) => child.once('exit', r)) });
  }
  return nodes;
}

async function until<T>(check: () => Promise<T | undefined>, what: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A control plane with three knode nodes; runs `fn` with it and takes it down. */
export async function withCluster<T>(fn: (cp: ControlPlane, api: Awaited<ReturnType<typeof adminApi>>) => Promise<T>): Promise<T> {
  const cp = startControlPlane({ controllers: true });
  const nodes = await startNodes(cp, 3);
  try {
    const api = await adminApi(cp);
    await until(
      async () => {
        const list = await api.core.listNode();
        const ready = list.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
        return ready.length === 3 ? true : undefined;
      },
      'three Ready nodes',
      60_000,
    );
    return await fn(cp, api);
  } finally {
    for (const n of nodes) {
      n.child.kill('SIGTERM');
      await n.exited;
      await new Promise((r) =>
        spawn(process.execPath, [cli, 'runtime', 'stop', '--root-dir', n.root], { stdio: 'ignore' }).once('exit', r),
      );
    }
    cp.stop();
  }
}

/** The admin's CoreV1 client and a watch, from @kubernetes/client-node. */
export async function adminApi(cp: ControlPlane) {
  const k8s = await import('@kubernetes/client-node');
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(cp.kubeconfig);
  return { core: kc.makeApiClient(k8s.CoreV1Api), watch: new k8s.Watch(kc) };
}

/** Creates `pods` pods (all at once, or each after the last runs) and times each to Running and ready. */
export async function benchCluster(
  api: Awaited<ReturnType<typeof adminApi>>,
  pods: number,
  mode: ClusterFigures['mode'],
): Promise<ClusterFigures> {
  const namespace = `bench-${mode === 'burst' ? 'burst' : 'serial'}`;
  await api.core.createNamespace({ body: { metadata: { name: namespace } } });
  await until(
    async () => {
      const sa = await api.core.readNamespacedServiceAccount({ namespace, name: 'default' });
      return sa ? true : undefined;
    },
    "the namespace's default ServiceAccount",
    30_000,
  );
  const { latencies, totalMs } = await timePodsToReady(api, namespace, pods, mode, (i) => `pod-${i}`);
  await api.core.deleteNamespace({ name: namespace });
  return { mode, nodes: 3, latencies, totalMs };
}

/** Milliseconds since the epoch, to the fraction: the clock of knode's lifecycle events (`at`). */
const epochMs = () => performance.timeOrigin + performance.now();

/** When a pod's create call was sent, when the watch first showed it bound to a node and then Running and ready (epoch ms). */
export interface PodMarks {
  sent: number;
  bound?: number;
  ready?: number;
}

const isReady = (pod: Pod) =>
  pod.status?.phase === 'Running' && (pod.status.containerStatuses ?? []).length > 0 && pod.status.containerStatuses!.every((c) => c.ready);

/**
 * Creates PODS one-container pods named NAME(i) in NAMESPACE, all at once or
 * each once the last is ready, and times each from just before its create
 * call to the watch event that shows it Running with every container ready.
 * Gives up after 5 minutes with the latencies it has.
 */
export async function timePodsToReady(
  api: Awaited<ReturnType<typeof adminApi>>,
  namespace: string,
  pods: number,
  mode: ClusterFigures['mode'],
  name: (i: number) => string,
): Promise<{ latencies: number[]; totalMs: number; slowest: { name: string; ms: number }; marks: Map<string, PodMarks> }> {
  const latencies: number[] = [];
  const slowest = { name: '', ms: 0 };
  const marks = new Map<string, PodMarks>();
  let done: () => void = () => {};
  const all = new Promise<void>((r) => (done = r));
  let next: () => void = () => {};
  const watching = await api.watch.watch(
    `/api/v1/namespaces/${namespace}/pods`,
    {},
    (type: string, pod: Pod) => {
      const seen = pod.metadata.name!;
      const mark = marks.get(seen);
      // Only this run's pods, until they are ready.
      if (type === 'DELETED' || !mark || mark.ready !== undefined) return;
      if (pod.spec?.nodeName && mark.bound === undefined) mark.bound = epochMs();
      if (!isReady(pod)) return;
      mark.ready = epochMs();
      const latency = mark.ready - mark.sent;
      latencies.push(latency);
      if (latency > slowest.ms) Object.assign(slowest, { name: seen, ms: latency });
      if (latencies.length === pods) done();
      else next();
    },
    () => {},
  );
  const create = (i: number) => {
    const body = {
      metadata: { name: name(i) },
      spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'] }] },
    };
    marks.set(name(i), { sent: epochMs() });
    void api.core.createNamespacedPod({ namespace, body });
  };
  const started = performance.now();
  if (mode === 'burst') for (let i = 0; i < pods; i++) create(i);
  else {
    next = () => create(latencies.length);
    create(0);
  }
  const timer = setTimeout(done, 300_000);
  await all;
  clearTimeout(timer);
  watching.abort();
  return { latencies, totalMs: performance.now() - started, slowest, marks };
}
