// The real controllers as the oracle: every scenario of scenarios.ts is applied
// with the real kubectl to a real kube-apiserver, kube-controller-manager and
// kube-scheduler with one knode node joined (`knode run --kubeconfig`: no local
// controllers), and with a standalone `knode apply -o json` (knode's own
// controllers); the objects each made are normalised (normalise.ts) and compared
// per scenario and kind. The result must match README.md's table: a row recorded
// `same` that now differs fails, and so does a row missing from the table.
// KNODE_WLDIFF_UPDATE=1 rewrites the table (keeping the notes); KNODE_WLDIFF_OUT=DIR
// keeps both sides' texts; KNODE_TEST_DIFFERENTIAL=off skips it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knode } from '../../helpers/cli.js';
import { freePort, startControlPlane, type ControlPlane } from '../../helpers/controlplane.js';
import { cliEntry, eventually } from '../../helpers/runtimes.js';
import { claimDifferences } from './claims.js';
import { describeDifferences } from './describe.js';
import { getDifferences } from './get-tables.js';
import { normaliseObjects, type KubeJson } from './normalise.js';
import { workloadScenarios, type WorkloadScenario } from './scenarios.js';
import { parseTable, renderTable, replaceTable, type TableRow } from './table.js';

const README = join(import.meta.dirname, 'README.md');
const NODE = 'wlnode';
const off = process.env.KNODE_TEST_DIFFERENTIAL === 'off';
const update = process.env.KNODE_WLDIFF_UPDATE === '1';
const work = mkdtempSync(join(tmpdir(), 'knode-wldiff-'));

interface Side {
  texts: Map<string, string>;
  error?: string;
}
const results = new Map<string, { cluster: Side; knode: Side }>();
const roots: string[] = [];
let cp: ControlPlane | undefined;
let node: { child: ChildProcess; root: string; output: () => string; exited: Promise<unknown> } | undefined;
const timings: string[] = [];
/** Where knode's describe of a scenario's workloads differs from kubectl's, and how many it compared (describe.ts). */
const describeDiffs: string[] = [];
let described = 0;
/** Where knode's get tables differ from kubectl get's, and how many gets were compared (get-tables.ts). */
const getDiffs: string[] = [];
let gets = 0;
/** How many Deployments, StatefulSets and DaemonSets kubectl rollout status and history were asked about. */
let rolledOut = 0;

/** The node: its kubelet port takes the apiserver's client certificate (kubectl logs). */
async function startNodeAt(root: string): Promise<NonNullable<typeof node>> {
  const args = ['run', '--kubeconfig', cp!.nodeKubeconfig(NODE), '--node-name', NODE, '--root-dir', root, '--node-ip', '127.0.0.1'];
  args.push('--port', String(await freePort()), '--client-ca-file', cp!.ca, '--read-only-port', '0');
  const child = spawn(process.execPath, [cliEntry, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return { child, root, output: () => out, exited };
}

const items = (stdout: string): KubeJson[] => (JSON.parse(stdout) as { items: KubeJson[] }).items;

/** The scenario in its own namespace of the cluster: apply, wait, (update, wait), then the objects once they stop changing. */
async function inCluster(s: WorkloadScenario): Promise<Side> {
  const c = cp!;
  const ns = `wl-${s.name}`;
  const run = async (...args: string[]) => {
    const r = await c.kubectl(...args);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr.trim()}`);
    return r.stdout;
  };
  await run('create', 'namespace', ns);
  // The service account controller makes `default`; until then the apiserver refuses pods.
  await eventually(async () => (await c.kubectl('get', 'serviceaccount', 'default', '-n', ns)).code === 0, `${ns}/default`, 30_000);
  const stages = [{ manifest: s.manifest, wait: s.wait }, ...(s.update ? [{ manifest: s.update, wait: s.updateWait ?? s.wait }] : [])];
  for (const stage of stages) {
    const file = join(work, `${s.name}-cluster.yaml`);
    writeFileSync(file, stage.manifest);
    await run('apply', '-n', ns, '-f', file);
    for (const w of stage.wait) await run(...w, '-n', ns);
  }
  const snapshot = async () => {
    const list = items(await run('get', 'deployments,replicasets,statefulsets,daemonsets,jobs,pods', '-n', ns, '-o', 'json'));
    const logs = new Map<string, string>();
    if (s.logs)
      for (const p of list.filter((o) => o.kind === 'Pod')) logs.set(p.metadata!.name!, await run('logs', '-n', ns, p.metadata!.name!));
    return normaliseObjects(list, logs);
  };
  // The controllers write status after kubectl's wait returns (a Deployment's Progressing reason): twice the same, a second apart.
  let last = await snapshot();
  const flat = (m: Map<string, string>) => [...m.values()].join('\n');
  const texts = await eventually(
    async () => {
      await new Promise((r) => setTimeout(r, 1000));
      const now = await snapshot();
      const same = flat(now) === flat(last);
      last = now;
      return same ? now : undefined;
    },
    `${s.name}: the cluster's objects to settle`,
    30_000,
  );
  const { compared, rollouts, differences } = await describeDifferences(c.kubectl, ns);
  described += compared;
  rolledOut += rollouts;
  describeDiffs.push(...differences);
  const got = await getDifferences(c.kubectl, ns);
  gets += got.compared;
  getDiffs.push(...got.differences);
  return { texts };
}

/** The scenario through a standalone `knode apply -o json` on a fresh root dir (and the update on the same one). */
async function standalone(s: WorkloadScenario): Promise<Side> {
  const root = mkdtempSync(join(work, `root-${s.name}-`));
  roots.push(root);
  const file = join(work, `${s.name}-knode.yaml`);
  let stdout = '';
  for (const manifest of [s.manifest, s.update].filter((m): m is string => !!m)) {
    writeFileSync(file, manifest);
    const r = await knode(['apply', '-f', file, '-o', 'json', '--root-dir', root, '--node-name', NODE, '--timeout', '90s'], {
      timeoutMs: 120_000,
    });
    if (!r.stdout.trim()) throw new Error(`knode apply ${s.name}: exit ${r.code}: ${r.stderr}`);
    stdout = r.stdout;
  }
  const list = items(stdout);
  const logs = new Map<string, string>();
  if (s.logs)
    for (const p of list.filter((o) => o.kind === 'Pod')) {
      const r = await knode(['logs', p.metadata!.name!, '--root-dir', root]);
      logs.set(p.metadata!.name!, r.stdout);
    }
  // Its runtime and pods are done with: stopped now, so that thirty sleeping scenarios do not load the machine.
  await knode(['runtime', 'stop', '--root-dir', root]).catch(() => {});
  return { texts: normaliseObjects(list, logs) };
}

/** Runs `fn` over `all`, `limit` at a time. */
async function pool<T>(all: T[], limit: number, fn: (t: T) => Promise<void>): Promise<void> {
  const queue = [...all];
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let t = queue.shift(); t !== undefined; t = queue.shift()) await fn(t);
    }),
  );
}

const settled = <T>(p: Promise<T>, fallback: (e: Error) => T) => p.catch((e: Error) => fallback(e));

beforeAll(async () => {
  if (off) return;
  const t0 = Date.now();
  cp = startControlPlane({ controllers: true });
  node = await startNodeAt(mkdtempSync(join(work, 'node-')));
  await eventually(
    async () => {
      const n = (await cp!.kubectl('get', 'node', NODE, '-o', 'json')).stdout;
      if (!n) return undefined;
      const parsed = JSON.parse(n) as { spec?: { taints?: unknown[] }; status?: { conditions?: { type: string; status: string }[] } };
      const ready = parsed.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
      return ready && (parsed.spec?.taints ?? []).length === 0;
    },
    () => `node ${NODE} Ready without taints; its output:\n${node!.output()}`,
    90_000,
  );
  timings.push(`control plane and node ${Date.now() - t0} ms`);
  const t1 = Date.now();
  const fail = (e: Error): Side => ({ texts: new Map(), error: e.message });
  const cluster = Promise.all(workloadScenarios.map((s) => settled(inCluster(s), fail).then((r) => [s.name, r] as const)));
  const mine = new Map<string, Side>();
  await pool(workloadScenarios, 3, async (s) => void mine.set(s.name, await settled(standalone(s), fail)));
  for (const [name, side] of await cluster) results.set(name, { cluster: side, knode: mine.get(name)! });
  // Every scenario's namespace at once: get all -A, whose kinds meet in one listing (DaemonSets beside Deployments).
  const everywhere = await getDifferences(cp.kubectl, undefined);
  gets += everywhere.compared;
  getDiffs.push(...everywhere.differences);
  // Claims, which no scenario makes: bound and waiting, with their users (claims.ts).
  const claims = await claimDifferences(cp.kubectl, work);
  described += claims.described;
  gets += claims.gets;
  describeDiffs.push(...claims.describeDiffs);
  getDiffs.push(...claims.getDiffs);
  timings.push(`scenarios ${Date.now() - t1} ms`);
}, 900_000);

afterAll(async () => {
  if (node) {
    node.child.kill('SIGTERM');
    await node.exited;
    await knode(['runtime', 'stop', '--root-dir', node.root]).catch(() => {});
  }
  await Promise.all(roots.map((root) => knode(['runtime', 'stop', '--root-dir', root]).catch(() => {})));
  cp?.stop();
  try {
    rmSync(work, { recursive: true, force: true });
  } catch {
    // a mount a runtime left behind: the temp dir stays
  }
}, 120_000);

describe.skipIf(off)('differential: the real controllers and knode apply, same manifests', () => {
  it('ran every scenario on both sides', () => {
    console.log(`workload differential: ${timings.join('; ')}`);
    const errors = [...results].flatMap(([name, r]) =>
      [r.cluster.error && `${name} (cluster): ${r.cluster.error}`, r.knode.error && `${name} (knode): ${r.knode.error}`].filter(Boolean),
    );
    expect(errors).toEqual([]);
    expect(results.size).toBe(workloadScenarios.length);
  });

  it("describes every workload the cluster's controllers left as kubectl describe does", () => {
    console.log(`workload differential: ${described} workloads described by kubectl and knode, ${rolledOut} rollouts' status and history`);
    expect(describeDiffs.join('\n\n')).toBe('');
    expect(described).toBeGreaterThanOrEqual(30);
    expect(rolledOut).toBeGreaterThanOrEqual(15);
  });

  it("prints what the cluster's controllers left as kubectl get does", () => {
    console.log(`workload differential: ${gets} gets printed by kubectl and knode`);
    expect(getDiffs.join('\n\n')).toBe('');
    expect(gets).toBeGreaterThanOrEqual(100);
  });

  it('every scenario and kind is as README.md records', () => {
    const readme = readFileSync(README, 'utf8');
    const table = new Map(parseTable(readme).map((r) => [`${r.scenario}/${r.kind}`, r]));
    const rows: TableRow[] = [];
    const failures: string[] = [];
    const report: string[] = [];
    for (const s of workloadScenarios) {
      const r = results.get(s.name)!;
      const kinds = [...new Set([...r.cluster.texts.keys(), ...r.knode.texts.keys()])];
      for (const kind of kinds) {
        const a = r.cluster.texts.get(kind) ?? 'absent';
        const b = r.knode.texts.get(kind) ?? 'absent';
        const key = `${s.name}/${kind}`;
        const committed = table.get(key);
        const result = a === b ? 'same' : 'different';
        rows.push({ scenario: s.name, kind, result, note: committed?.note ?? '' });
        if (result === 'different') report.push(`## ${key}\n### cluster\n${a}\n### knode\n${b}`);
        if (!committed) failures.push(`${key}: not in README.md's table (KNODE_WLDIFF_UPDATE=1 adds it)`);
        else if (committed.result === 'same' && result === 'different') failures.push(`${key}: README.md says same, now different`);
        else if (committed.result === 'different' && result === 'same') console.log(`${key}: README.md says different, now the same`);
        else if (result === 'different' && !committed.note) failures.push(`${key}: different, and README.md gives no reason`);
      }
    }
    // Every known difference a note names is described in README.md (### W<n> ...).
    const described = new Set([...readme.matchAll(/^### (W\d+)\b/gm)].map((m) => m[1]));
    for (const r of rows)
      for (const id of r.note.match(/\bW\d+\b/g) ?? [])
        if (r.result === 'different' && !described.has(id)) failures.push(`${r.scenario}/${r.kind}: ${id} is not described in README.md`);
    const out = process.env.KNODE_WLDIFF_OUT;
    if (out || failures.length > 0) {
      const dir = out || mkdtempSync(join(tmpdir(), 'knode-wldiff-report-'));
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'report.md'), report.join('\n\n'));
      const all = [...results].map(
        ([n, r]) => `# ${n}\n## cluster\n${[...r.cluster.texts.values()].join('\n')}\n## knode\n${[...r.knode.texts.values()].join('\n')}`,
      );
      writeFileSync(join(dir, 'all.md'), all.join('\n\n'));
      console.log(`workload differential: texts in ${dir}`);
    }
    console.log(
      `workload differential: ${rows.filter((r) => r.result === 'same').length} same, ${rows.filter((r) => r.result !== 'same').length} different`,
    );
    if (update) {
      writeFileSync(README, replaceTable(readme, renderTable(rows)));
      return;
    }
    expect(failures.join('\n\n')).toBe('');
  });
});
