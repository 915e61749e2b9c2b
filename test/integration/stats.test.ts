// The Summary API (/stats/summary) and /metrics/resource through the real
// path: a node in this process serving its API on a unix socket, over each
// runtime, with a pod that burns CPU, one that holds memory and fills an
// emptyDir. The JSON is checked against upstream's Go definition of the
// Summary (k8s.io/kubelet stats/v1alpha1, from the module cache the peers
// build fills), and the numbers must move the way the pods make them.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeClient } from '../../src/cli/node-client.js';
import { NodeServer } from '../../src/engine/server/node-server.js';
import type { PodStats, Summary } from '../../src/engine/stats/types.js';
import { nodesOn, type TestNode } from '../helpers/node.js';
import { eventually, runtimesUnderTest } from '../helpers/runtimes.js';
import { loadSummaryStructs, summaryProblems } from '../helpers/summary-schema.js';

const image = 'busybox:1.36';
const structs = loadSummaryStructs();

describe.each(runtimesUnderTest())('the Summary API on the $name runtime', (runtime) => {
  const nodes = nodesOn(runtime);
  let node: TestNode;
  let server: NodeServer;
  let api: NodeClient;

  beforeAll(async () => {
    node = await nodes.start();
    const socketPath = join(mkdtempSync(join(tmpdir(), 'knode-stats-')), 'knode.sock');
    server = new NodeServer(node.kubelet, { socketPath, address: '127.0.0.1', port: 0, warn: () => {} });
    await server.start();
    api = new NodeClient(socketPath);
  });

  afterAll(async () => {
    await server.stop();
    await node.stop();
  });

  const summary = async () => (await api.json<Summary>('/stats/summary')).body;
  const podOf = (s: Summary, name: string): PodStats | undefined => s.pods.find((p) => p.podRef.name === `${name}-${node.nodeName}`);

  it('reports CPU, memory and disk of the node, pods and containers in the upstream shape, and the numbers move', async () => {
    const vol = '${KNODE_MOUNT_SCRATCH:-/scratch}';
    // The trap: as PID 1 of its container, the shell would ignore the SIGTERM that stops it.
    node.writePod('burner', { containers: [{ name: 'burn', image, command: ['sh', '-c', 'trap "exit 143" TERM; while :; do :; done'] }] });
    node.writePod('holder', {
      volumes: [{ name: 'scratch', emptyDir: {} }],
      containers: [
        {
          name: 'hold',
          image,
          command: [
            'sh',
            '-c',
            `head -c 2097152 /dev/zero > ${vol}/blob; x=$(head -c 40000000 /dev/zero | tr '\\0' a); echo held; sleep 300`,
          ],
          volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
        },
      ],
    });
    await node.waitForPod('burner', 'Running', (p) => p.status?.phase === 'Running');
    await node.waitForPod('holder', 'Running', (p) => p.status?.phase === 'Running');

    // Each request is a reading: CPU rates appear from the second one on.
    const busy = await eventually(
      async () => {
        const s = await summary();
        const burn = podOf(s, 'burner')?.containers.find((c) => c.name === 'burn');
        return (burn?.cpu?.usageNanoCores ?? 0) > 0.1e9 ? s : undefined;
      },
      'the burner to use a tenth of a core or more',
      30_000,
    );
    expect(summaryProblems(structs, busy)).toEqual([]);

    expect(busy.node.nodeName).toBe(node.nodeName);
    expect(busy.node.cpu!.usageCoreNanoSeconds).toBeGreaterThan(0);
    expect(busy.node.memory!.workingSetBytes).toBeGreaterThan(0);
    expect(busy.node.fs!.capacityBytes).toBeGreaterThan(busy.node.fs!.usedBytes!);
    expect(busy.node.systemContainers!.map((c) => c.name)).toEqual(['kubelet']);

    const burner = podOf(busy, 'burner')!;
    expect(burner.podRef).toEqual({ name: `burner-${node.nodeName}`, namespace: 'default', uid: node.pod('burner')!.metadata.uid });
    expect(burner.cpu!.usageCoreNanoSeconds).toBeGreaterThan(0);

    const holder = await eventually(
      async () => {
        const h = podOf(await summary(), 'holder');
        return (h?.containers[0]?.memory?.workingSetBytes ?? 0) > 30e6 ? h : undefined;
      },
      'the holder to hold 30 MB or more',
      30_000,
    );
    expect(holder.containers.map((c) => c.name)).toEqual(['hold']);
    expect(holder.memory!.workingSetBytes).toBeGreaterThanOrEqual(holder.containers[0].memory!.workingSetBytes!);
    const scratch = holder.volume!.find((v) => v.name === 'scratch')!;
    expect(scratch.usedBytes).toBeGreaterThanOrEqual(2 * 1024 * 1024);
    expect(holder['ephemeral-storage']!.usedBytes).toBeGreaterThanOrEqual(scratch.usedBytes!);
    expect(holder.containers[0].logs!.usedBytes).toBeGreaterThan(0);

    // CPU time only grows.
    const later = await eventually(async () => {
      const b = podOf(await summary(), 'burner')?.containers[0];
      return b && b.cpu!.usageCoreNanoSeconds! > burner.containers[0].cpu!.usageCoreNanoSeconds! ? b : undefined;
    }, 'the burner CPU time to grow');
    expect(later.name).toBe('burn');

    const lean = (await api.json<Summary>('/stats/summary?only_cpu_and_memory=true')).body;
    expect(summaryProblems(structs, lean)).toEqual([]);
    expect(lean.node.fs).toBeUndefined();
    expect(podOf(lean, 'holder')!.volume).toBeUndefined();

    const metrics = await text(api, '/metrics/resource');
    expect(metrics).toMatch(
      new RegExp(
        `^container_cpu_usage_seconds_total\\{container="burn",namespace="default",pod="burner-${node.nodeName}"\\} [\\d.e+]+ \\d+$`,
        'm',
      ),
    );
    expect(metrics).toMatch(
      new RegExp(`^pod_memory_working_set_bytes\\{namespace="default",pod="holder-${node.nodeName}"\\} \\d+ \\d+$`, 'm'),
    );
    expect(metrics).toMatch(/^node_cpu_usage_seconds_total [\d.e+]+ \d+$/m);
    expect(metrics).toMatch(/^resource_scrape_error 0$/m);

    // Stop burning before the next suite.
    node.removePod('burner');
    const running = {
      labelSelector: { 'io.kubernetes.pod.name': `burner-${node.nodeName}` },
      state: { state: 'CONTAINER_RUNNING' as const },
    };
    await eventually(async () => (await node.client.listContainers(running)).length === 0, 'the burner to stop', 30_000);
  });
});

async function text(api: NodeClient, path: string): Promise<string> {
  const res = await api.open(path);
  let out = '';
  for await (const chunk of res) out += chunk;
  return out;
}
