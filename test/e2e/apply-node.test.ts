// `knode apply` on the root dir of a running `knode run` node: the node runs
// only what its sources hold, so apply refuses (exit 2) instead of starting
// pods the node would stop as orphans seconds later.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import { KubeletLabels } from '../../src/cri/types.js';
import type { Pod } from '../../src/engine/api/v1.js';
import { knode, startKnodeRun, type RunningNode } from '../helpers/cli.js';
import { eventually } from '../helpers/runtimes.js';

const root = mkdtempSync(join(tmpdir(), 'knode-apply-node-'));
const staticDir = join(root, 'static');
const elsewhere = join(root, 'elsewhere');
const at = ['--root-dir', root, '--node-name', 'e2e'];
let node: RunningNode;

function pod(name: string, seconds = 3600): string {
  return `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  terminationGracePeriodSeconds: 1\n  containers:\n    - name: app\n      image: busybox:1.36\n      command: ["sleep", "${seconds}"]\n`;
}

/** The ready sandboxes' ids of a pod. */
async function sandboxesOf(name: string): Promise<string[]> {
  const client = new CriClient(`unix://${join(root, 'run', 'runtime.sock')}`);
  try {
    const sandboxes = await client.listPodSandbox({ state: { state: 'SANDBOX_READY' } });
    return sandboxes.filter((s) => s.labels[KubeletLabels.podName] === name).map((s) => s.id);
  } finally {
    client.close();
  }
}

async function podNames(): Promise<string[]> {
  const client = new CriClient(`unix://${join(root, 'run', 'runtime.sock')}`);
  try {
    const sandboxes = await client.listPodSandbox({ state: { state: 'SANDBOX_READY' } });
    return sandboxes.map((s) => s.labels[KubeletLabels.podName]).sort();
  } finally {
    client.close();
  }
}

beforeAll(async () => {
  mkdirSync(staticDir);
  mkdirSync(elsewhere);
  writeFileSync(join(staticDir, 'kept.yaml'), pod('kept'));
  writeFileSync(join(elsewhere, 'applied.yaml'), pod('applied'));
  node = startKnodeRun(staticDir, root, ['--output', 'plain']);
  await eventually(() => /PodRunning +default\/kept-e2e/.test(node.output()), 'the static pod to run', 60_000);
}, 90_000);

afterAll(async () => {
  node.child.kill('SIGTERM');
  await node.exited;
  await knode(['delete', '-f', staticDir, '--now', ...at], { timeoutMs: 60_000 });
  await knode(['runtime', 'stop', '--root-dir', root]);
}, 90_000);

describe('knode apply beside a running node', () => {
  it('refuses a manifest from elsewhere, naming the node and its --static-dir, and starts nothing', async () => {
    const res = await knode(['apply', '-f', join(elsewhere, 'applied.yaml'), ...at]);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(
      `Error: a node runs under ${root}: it would stop the pods of ${join(elsewhere, 'applied.yaml')} as orphans, since none of its sources holds them`,
    );
    expect(res.stderr).toContain(`Hint: put the manifests in the node's --static-dir (${staticDir}), or apply under another --root-dir`);
    expect(await podNames()).toEqual(['kept-e2e']);
  });

  it('refuses stdin the same way, and the node goes on running its own pods', async () => {
    const res = await knode(['apply', '-f', '-', ...at], { input: pod('piped') });
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(`Error: a node runs under ${root}: it would stop the pods of - as orphans`);
    expect(await podNames()).toEqual(['kept-e2e']);
    const status = await knode(['status', '--root-dir', root]);
    expect(status.stdout).toMatch(/^kept-e2e +1\/1 +Running +0 /m);
  });

  it('says the node already runs a manifest of its own --static-dir', async () => {
    const res = await knode(['apply', '-f', join(staticDir, 'kept.yaml'), ...at]);
    expect(res.code, res.stderr).toBe(2);
    expect(res.stderr).toContain(
      `Error: the node running under ${root} already runs ${join(staticDir, 'kept.yaml')} from its --static-dir`,
    );
    expect(res.stderr).toContain('Hint: edit the manifests there: the node applies the changes itself');
  });

  it("completes pod names from the node's pods", async () => {
    const res = await knode(['__complete', 'pods', '--', 'exec', '--root-dir', root, 'k']);
    expect(res).toEqual({ code: 0, stdout: 'kept-e2e\n', stderr: '' });
  });

  it("with --replace rewrites the static pod's manifest in place, and the node runs the new spec", async () => {
    const kept = join(staticDir, 'kept.yaml');
    writeFileSync(kept, `# kept by hand\n${pod('kept')}---\n# a second document stays as it is\n${pod('other')}`);
    await eventually(async () => (await sandboxesOf('other-e2e')).length === 1, 'the second pod to run', 60_000);
    const [before] = await sandboxesOf('kept-e2e');
    const edited = join(elsewhere, 'kept.yaml');
    writeFileSync(edited, pod('kept', 3601));
    const res = await knode(['apply', '-f', edited, '--replace', ...at], { timeoutMs: 90_000 });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe('pod/kept replaced\n');
    expect(res.stderr).toContain('1 pod: 1 Running');
    expect(readFileSync(kept, 'utf8')).toBe(`# kept by hand\n${pod('kept', 3601)}---\n# a second document stays as it is\n${pod('other')}`);
    expect(readdirSync(staticDir)).toEqual(['kept.yaml']);
    await eventually(async () => {
      const now = await sandboxesOf('kept-e2e');
      return now.length === 1 && now[0] !== before;
    }, 'the old sandbox to go and a new one to run');
    const status = await knode(['status', '--root-dir', root]);
    expect(status.stdout).toMatch(/^kept-e2e +1\/1 +Running +0 /m);
  }, 120_000);

  it('with --replace -o json prints the new pod as the node runs it, in place of the replaced line', async () => {
    const edited = join(elsewhere, 'kept.yaml');
    writeFileSync(edited, pod('kept', 3602));
    const res = await knode(['apply', '-f', edited, '--replace', '-o', 'json', ...at], { timeoutMs: 90_000 });
    expect(res.code, res.stderr).toBe(0);
    const list = JSON.parse(res.stdout) as { kind: string; items: Pod[] };
    expect(list.kind).toBe('PodList');
    expect(list.items.map((p) => [p.metadata.name, p.status?.phase, p.spec.containers[0].command])).toEqual([
      ['kept-e2e', 'Running', ['sleep', '3602']],
    ]);
    expect(res.stderr).toContain('1 pod: 1 Running');
  }, 120_000);

  it('with --replace refuses a pod its --static-dir does not hold, naming file, pod and field, and writes nothing', async () => {
    const before = readFileSync(join(staticDir, 'kept.yaml'), 'utf8');
    const res = await knode(['apply', '-f', join(elsewhere, 'applied.yaml'), '--replace', ...at]);
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toContain(
      `Error: ${join(elsewhere, 'applied.yaml')}, document 0, pod "applied": metadata.name: not found in the node's --static-dir (${staticDir})`,
    );
    expect(res.stdout).toBe('');
    expect(readFileSync(join(staticDir, 'kept.yaml'), 'utf8')).toBe(before);
    expect(await sandboxesOf('applied-e2e')).toEqual([]);
  });
});
