// `knode apply` and `knode run` as a user runs them: bin/run.js as a child
// process, the embedded runtime it starts by itself, exit codes and output.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import { KubeletLabels } from '../../src/cri/types.js';
import { knode, startKnodeRun, type RunningNode } from '../helpers/cli.js';
import { eventually, repoRoot } from '../helpers/runtimes.js';

const roots: string[] = [];
function newRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'knode-e2e-'));
  roots.push(root);
  return root;
}

afterAll(async () => {
  for (const root of roots) await knode(['runtime', 'stop', '--root-dir', root]);
});

const examples = join(repoRoot, 'examples');

describe('knode apply', () => {
  it('runs the examples until Running, Succeeded or rolled out, exits 0, and prints a v1 List with -o json', async () => {
    const root = newRoot();
    const res = await knode(['apply', '-f', examples, '--root-dir', root, '--node-name', 'e2e', '-o', 'json']);
    expect(res.code, res.stderr).toBe(0);
    const list = JSON.parse(res.stdout);
    expect(list).toMatchObject({ apiVersion: 'v1', kind: 'List' });
    type Item = { kind: string; metadata: { name: string }; status?: { phase?: string; availableReplicas?: number } };
    const items: Item[] = list.items;
    const phases = Object.fromEntries(items.filter((p) => p.kind === 'Pod').map((p) => [p.metadata.name, p.status?.phase]));
    const greeters = Object.keys(phases).filter((name) =>
      /^greeter-[bcdfghjklmnpqrstvwxz2456789]{1,10}-[bcdfghjklmnpqrstvwxz2456789]{5}$/.test(name),
    );
    expect(greeters).toHaveLength(2);
    const counters = Object.keys(phases).filter((name) => /^count-[bcdfghjklmnpqrstvwxz2456789]{5}$/.test(name));
    expect(counters).toHaveLength(3);
    expect(phases).toEqual({
      'hello-e2e': 'Running',
      'web-e2e': 'Running',
      'once-e2e': 'Succeeded',
      ...Object.fromEntries(greeters.map((name) => [name, 'Running'])),
      ...Object.fromEntries(counters.map((name) => [name, 'Succeeded'])),
    });
    expect(items.find((o) => o.kind === 'Deployment')?.status?.availableReplicas).toBe(2);
    expect(items.map((o) => o.kind).filter((k) => k !== 'Pod')).toEqual(['ConfigMap', 'Deployment', 'ReplicaSet', 'Job']);
    expect(res.stderr).toMatch(/3 pods: 2 Running, 1 Succeeded/);
    expect(res.stderr).toContain('deployment "greeter" successfully rolled out');
    expect(res.stderr).toContain('job "count" completed');
    // The ConfigMap is applied, not counted among the workloads.
    expect(res.stderr).toMatch(/^2 workloads: 2 ready$/m);
    // The task list (plain lines: stderr is no terminal): each workload, and its pods under it by name.
    expect(res.stderr).toMatch(/^✔ deployment\.apps\/greeter {2}2\/2 ready in \d+\.\ds$/m);
    for (const name of greeters) expect(res.stderr).toContain(`\n✔ ${name}  1/1  Running\n`);
    expect(res.stderr).toMatch(/^✔ job\.batch\/count {2}3\/3 complete in \d+\.\ds$/m);
    for (const name of counters) expect(res.stderr).toContain(`\n✔ ${name}  0/1  Completed\n`);
    expect(res.stderr).not.toMatch(/configmap\S*\/greeter {2}/);
    // The pods keep running after apply exits.
    const client = new CriClient(`unix://${join(root, 'run', 'runtime.sock')}`);
    const running = await client.listContainers({ state: { state: 'CONTAINER_RUNNING' } });
    client.close();
    expect(running.map((c) => c.labels[KubeletLabels.containerName]).sort()).toEqual(['app', 'greeter', 'greeter', 'hello', 'log-shipper']);
  });

  it('exits 1 and says why when a pod cannot start', async () => {
    const root = newRoot();
    const file = join(root, 'bad-image.yaml');
    writeFileSync(
      file,
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: nopull\nspec:\n  containers:\n    - name: app\n      image: registry.invalid/team/app:1\n      command: ["sleep", "60"]\n',
    );
    const res = await knode(['apply', '-f', file, '--root-dir', root, '--node-name', 'e2e']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      /default\/nopull-e2e: ErrImagePull: container app: failed to pull and unpack image "registry\.invalid\/team\/app:1"/,
    );
  });

  it('exits 2 for a manifest it cannot use, naming the file, document, pod and field', async () => {
    const root = newRoot();
    const file = join(root, 'broken.yaml');
    writeFileSync(
      file,
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: broken\nspec:\n  containers:\n    - name: app\n      command: ["true"]\n',
    );
    const res = await knode(['apply', '-f', file, '--root-dir', root]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`${file}, document 0, pod "broken": spec.containers[0].image: Required value`);
  });

  it('reads a manifest from stdin', async () => {
    const root = newRoot();
    const res = await knode(['apply', '-f', '-', '--root-dir', root, '--node-name', 'e2e', '-o', 'yaml'], {
      input:
        'apiVersion: v1\nkind: Pod\nmetadata:\n  name: piped\nspec:\n  restartPolicy: Never\n  containers:\n    - name: app\n      image: busybox:1.36\n      command: ["true"]\n',
    });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/name: piped-e2e/);
    expect(res.stdout).toMatch(/phase: Succeeded/);
  });
});

function startRun(root: string, args: string[] = [], staticDir = examples): RunningNode {
  return startKnodeRun(staticDir, root, args);
}

describe('knode run', () => {
  it('refuses to start without a pod source', async () => {
    const res = await knode(['run', '--root-dir', newRoot()]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/needs at least one pod source/);
  });

  it('adopts its running containers after kill -9 and a restart: nothing duplicated, nothing lost', async () => {
    const root = newRoot();
    const endpoint = `unix://${join(root, 'run', 'runtime.sock')}`;
    const first = startRun(root);
    const settled = (out: string) =>
      /PodRunning +default\/hello-e2e/.test(out) && /PodRunning +default\/web-e2e/.test(out) && /PodSucceeded +default\/once-e2e/.test(out);
    await eventually(() => settled(first.output()), 'hello and web Running, once Succeeded', 30_000);
    await eventually(() => /job default\/count \[Completed\] Job completed/.test(first.output()), 'the example Job to complete', 30_000);
    const client = new CriClient(endpoint);
    const runningIds = async () => (await client.listContainers({ state: { state: 'CONTAINER_RUNNING' } })).map((c) => c.id).sort();
    const before = await eventually(async () => {
      const ids = await runningIds();
      return ids.length === 5 ? ids : undefined;
    }, 'hello, log-shipper, app and the two greeters running');
    const allBefore = (await client.listContainers()).length;

    first.child.kill('SIGKILL');
    await first.exited;
    const second = startRun(root);
    await eventually(() => settled(second.output()), 'the restarted node to see the same', 30_000);
    await new Promise((r) => setTimeout(r, 1500)); // a relist and a housekeeping round after adoption
    expect(await runningIds()).toEqual(before);
    expect((await client.listContainers()).length).toBe(allBefore);
    expect(second.output()).not.toMatch(/ContainerCreated|OrphanKilled/);

    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(await runningIds()).toEqual(before); // containers outlive knode
    client.close();
  });

  it('stops every pod on SIGTERM with --drain-on-exit (shutdownGracePeriod from --config), and the next run starts them again', async () => {
    const root = newRoot();
    const config = join(root, 'kubelet.yaml');
    writeFileSync(config, 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nshutdownGracePeriod: 5s\n');
    const run = startRun(root, ['--drain-on-exit', '--config', config]);
    // The job done first: it has nothing left to stop.
    const settled = (out: string) =>
      /PodRunning +default\/hello-e2e/.test(out) && /PodRunning +default\/web-e2e/.test(out) && /PodSucceeded +default\/once-e2e/.test(out);
    await eventually(() => settled(run.output()), 'hello and web Running, once Succeeded', 30_000);
    await eventually(() => /job default\/count \[Completed\] Job completed/.test(run.output()), 'the example Job to complete', 30_000);
    const client = new CriClient(`unix://${join(root, 'run', 'runtime.sock')}`);
    const running = async () =>
      (await client.listContainers({ state: { state: 'CONTAINER_RUNNING' } })).map((c) => c.labels[KubeletLabels.containerName]).sort();
    await eventually(async () => (await running()).length === 5, 'hello, log-shipper, app and the two greeters running');

    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(run.output()).toContain('knode: SIGTERM: draining the node, stopping its pods');
    expect(run.output()).toMatch(/NodeShutdown .*draining the node: stopping 4 pods/);
    expect(run.output()).toContain('knode: SIGTERM: stopping; its pods are stopped');
    expect(await running()).toEqual([]);
    expect((await client.listPodSandbox()).map((s) => s.state)).toEqual(Array(8).fill('SANDBOX_NOTREADY'));

    const again = startRun(root);
    await eventually(async () => (await running()).length === 5, 'the pods to run again', 30_000);
    expect(await running()).toEqual(['app', 'greeter', 'greeter', 'hello', 'log-shipper']);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
    client.close();
  });

  it('stops without waiting for the drain on a second SIGTERM', async () => {
    const root = newRoot();
    const pods = join(root, 'pods');
    mkdirSync(pods);
    // PID 1 of its namespace with no handler: the SIGTERM does nothing, and only the 60 s grace period's SIGKILL ends it.
    writeFileSync(
      join(pods, 'slow.yaml'),
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: slow\nspec:\n  terminationGracePeriodSeconds: 60\n  containers:\n    - name: main\n      image: busybox:1.36\n      command: ["sleep", "600"]\n',
    );
    const run = startRun(root, ['--drain-on-exit'], pods);
    await eventually(() => /PodRunning +default\/slow-e2e/.test(run.output()), 'slow to run', 30_000);
    run.child.kill('SIGTERM');
    await eventually(() => /ContainerKilling +default\/slow-e2e/.test(run.output()), 'the drain to stop slow', 10_000);
    const second = performance.now();
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    // knode waits a bounded while (10 s) for its workers' calls in flight, not the pod's 60 s.
    expect(performance.now() - second).toBeLessThan(20_000);
    expect(run.output()).toContain('knode: SIGTERM: stopping; containers keep running');
  });

  it('starts the embedded runtime again when it dies, and the pods come back', async () => {
    const root = newRoot();
    const run = startRun(root);
    const settled = (out: string) => /PodRunning +default\/hello-e2e/.test(out) && /PodRunning +default\/web-e2e/.test(out);
    await eventually(() => settled(run.output()), 'the pods to run', 30_000);
    const pid = Number(readFileSync(join(root, 'run', 'runtime.pid'), 'utf8'));
    process.kill(pid, 'SIGKILL');
    await eventually(
      () => run.output().includes('the embedded runtime does not answer: starting it again'),
      'knode to restart the runtime',
      30_000,
    );
    const client = new CriClient(`unix://${join(root, 'run', 'runtime.sock')}`);
    const hello = await eventually(
      async () => {
        const c = (
          await client.listContainers({ state: { state: 'CONTAINER_RUNNING' }, labelSelector: { [KubeletLabels.containerName]: 'hello' } })
        )[0];
        return c && c.annotations['io.kubernetes.container.restartCount'] === '1' ? c : undefined;
      },
      'hello to run again as its first restart',
      40_000,
    );
    expect(Number(readFileSync(join(root, 'run', 'runtime.pid'), 'utf8'))).not.toBe(pid);
    expect(hello.labels[KubeletLabels.podName]).toBe('hello-e2e');
    client.close();
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });
});
