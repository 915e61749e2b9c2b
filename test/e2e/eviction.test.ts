// Node-pressure eviction through the real path: `knode run --config` with a
// hard memory threshold above anything this machine can have free (so the
// pressure is there on purpose, without exhausting anything), two
// Deployments and a static pod. The pressure comes at once, so only a pod
// that tolerates the memory-pressure taint is scheduled: it is evicted with
// the kubelet's status; the other Deployment's pod waits Pending on the
// taint; the static pod is critical and stays.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { knode, startKnodeRun } from '../helpers/cli.js';
import { eventually } from '../helpers/runtimes.js';

const root = mkdtempSync(join(tmpdir(), 'knode-eviction-'));
const dir = join(root, 'manifests');
mkdirSync(dir);
const memTotalKi = Number(/^MemTotal:\s+(\d+) kB$/m.exec(readFileSync('/proc/meminfo', 'utf8'))![1]);

afterAll(async () => {
  await knode(['runtime', 'stop', '--root-dir', root]);
});

interface PodRow {
  metadata: { name: string };
  status: {
    phase: string;
    reason?: string;
    message?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

async function pods(): Promise<PodRow[]> {
  const res = await knode(['status', '-o', 'json', '--root-dir', root]);
  return res.code === 0 ? (JSON.parse(res.stdout).items as PodRow[]) : [];
}

/** The pods the local apiserver saved. */
function saved(): PodRow[] {
  try {
    const state = JSON.parse(readFileSync(join(root, 'objects.json'), 'utf8')) as { objects: (PodRow & { kind: string })[] };
    return state.objects.filter((o) => o.kind === 'Pod');
  } catch {
    return [];
  }
}

describe('node-pressure eviction', () => {
  it('evicts a workload pod under memory pressure, never the static pod, and keeps the replacement Pending on the taint', async () => {
    const config = join(root, 'kubelet.yaml');
    writeFileSync(
      config,
      `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nevictionHard:\n  memory.available: ${memTotalKi}Ki\n`,
    );
    const container = `containers: [{ name: app, image: busybox:1.36, command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1 & wait $!; done"] }]`;
    writeFileSync(join(dir, 'static.yaml'), `apiVersion: v1\nkind: Pod\nmetadata: { name: keeper }\nspec:\n  ${container}\n`);
    const deployment = (name: string, extra = '') =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: ${name} }\nspec:\n  replicas: 1\n  selector: { matchLabels: { app: ${name} } }\n  template:\n    metadata: { labels: { app: ${name} } }\n    spec:\n      ${container}\n${extra}`;
    writeFileSync(join(dir, 'web.yaml'), deployment('web'));
    writeFileSync(
      join(dir, 'tolerant.yaml'),
      deployment('tolerant', '      tolerations: [{ key: node.kubernetes.io/memory-pressure, operator: Exists, effect: NoSchedule }]\n'),
    );
    const node = startKnodeRun(dir, root, ['--config', config, '--output', 'plain']);
    try {
      const evicted = await eventually(
        async () => (await pods()).find((p) => p.metadata.name.startsWith('tolerant-') && p.status.reason === 'Evicted'),
        () => `a tolerant pod evicted; the node said:\n${node.output()}`,
        60_000,
      );
      expect(evicted.status.phase).toBe('Failed');
      expect(evicted.status.message).toMatch(
        new RegExp(`^The node was low on resource: memory\\. Threshold quantity: ${memTotalKi}Ki, available: \\d+(Ki|Mi|Gi)?\\. `),
      );
      expect(evicted.status.conditions).toContainEqual(
        expect.objectContaining({ type: 'DisruptionTarget', status: 'True', reason: 'TerminationByKubelet' }),
      );
      expect(node.output()).toMatch(/NodePressureChanged .*NodeHasInsufficientMemory/);

      // A pod that does not tolerate the memory-pressure taint is not scheduled on this node.
      // Unscheduled pods are not the node's: the local apiserver's saved objects hold them.
      const waiting = await eventually(
        () =>
          saved().find(
            (p) =>
              p.metadata.name.startsWith('web-') &&
              p.status.phase === 'Pending' &&
              p.status.conditions?.some((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable'),
          ),
        () => `a Pending web pod; the node said:\n${node.output()}`,
        30_000,
      );
      expect(waiting.status.conditions?.find((c) => c.type === 'PodScheduled')?.message).toContain('node(s) had untolerated taint(s)');

      // The static pod is critical: still Running after the passes that evicted the others.
      expect(node.output()).toMatch(/PodEvicted\s+default\/tolerant-/);
      const keeper = (await pods()).find((p) => p.metadata.name === 'keeper-e2e');
      expect(keeper?.status.phase).toBe('Running');
      expect(node.output()).not.toMatch(/PodEvicted\s+default\/keeper/);
    } finally {
      node.child.kill('SIGTERM');
      await node.exited;
    }
  }, 120_000);

  it('evicts a workload pod whose emptyDir goes over its sizeLimit, with no pressure at all', async () => {
    const root2 = mkdtempSync(join(tmpdir(), 'knode-eviction-storage-'));
    const dir2 = join(root2, 'manifests');
    mkdirSync(dir2);
    writeFileSync(
      join(dir2, 'filler.yaml'),
      `apiVersion: apps/v1
kind: Deployment
metadata: { name: filler }
spec:
  replicas: 1
  selector: { matchLabels: { app: filler } }
  template:
    metadata: { labels: { app: filler } }
    spec:
      containers:
        - name: app
          image: busybox:1.36
          command: ["sh", "-c", "head -c 3145728 /dev/zero > \${KNODE_MOUNT_SCRATCH:-/scratch}/fill; trap 'exit 0' TERM; while true; do sleep 1 & wait $!; done"]
          volumeMounts: [{ name: scratch, mountPath: /scratch }]
      volumes:
        - name: scratch
          emptyDir: { sizeLimit: 1Mi }
`,
    );
    const node = startKnodeRun(dir2, root2, ['--output', 'plain']);
    try {
      await eventually(
        () => /PodEvicted\s+default\/filler-/.test(node.output()),
        () => `the filler evicted; the node said:\n${node.output()}`,
        60_000,
      );
      expect(node.output()).toMatch(/PodEvicted .*\[Evicted\] Usage of EmptyDir volume "scratch" exceeds the limit "1Mi"\./);
      expect(node.output()).not.toMatch(/NodePressureChanged/);

      // While the node runs, knode image ls says when its image garbage collector saw each image in use.
      const images = await knode(['image', 'ls', '--root-dir', root2]);
      expect(images.stdout.split('\n')[0]).toMatch(/^IMAGE\s+TAG\s+IMAGE ID\s+SIZE\s+LAST USED$/);
      expect(images.stdout).toMatch(/busybox\s+1\.36\s+\S+\s+\S+\s+\d+s ago/);
    } finally {
      node.child.kill('SIGTERM');
      await node.exited;
      await knode(['runtime', 'stop', '--root-dir', root2]);
    }
  }, 120_000);

  it('refuses a pod that asks for more ephemeral storage than the node’s filesystem holds', async () => {
    const root3 = mkdtempSync(join(tmpdir(), 'knode-eviction-admit-'));
    const file = join(root3, 'big.yaml');
    writeFileSync(
      file,
      `apiVersion: v1\nkind: Pod\nmetadata: { name: big }\nspec:\n  containers: [{ name: app, image: busybox:1.36, command: [sleep, "60"], resources: { requests: { ephemeral-storage: 1000Ti } } }]\n`,
    );
    try {
      const res = await knode(['apply', '-f', file, '--root-dir', root3, '--node-name', 'disk', '-o', 'json', '--timeout', '30s']);
      expect(res.code).toBe(1);
      const status = (JSON.parse(res.stdout) as { items: PodRow[] }).items[0].status;
      // A manifest's pod is static, so critical: the preemption path finds nobody to free that much.
      expect(status).toMatchObject({ phase: 'Failed', reason: 'UnexpectedAdmissionError' });
      expect(status.message).toMatch(/no set of running pods found to reclaim resources: \[\(res: ephemeral-storage, q: \d+\), \]$/);
    } finally {
      await knode(['runtime', 'stop', '--root-dir', root3]);
    }
  });
});
