// The node's faces as a user meets them: a `knode run` child process, then
// status, logs, trace, pleg, delete and the read-only HTTP API against it.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knode } from '../helpers/cli.js';
import { schemaProblems } from '../helpers/k8s-schema.js';
import { cliEntry, eventually, repoRoot } from '../helpers/runtimes.js';
import { freePort } from '../helpers/controlplane.js';

const root = mkdtempSync(join(tmpdir(), 'knode-faces-'));
const pods = join(root, 'manifests');
let port = 0;
let node: ChildProcess;
let output = '';
const at = ['--root-dir', root];

beforeAll(async () => {
  // The example pods; the workloads example has a suite of its own (workloads.test.ts).
  cpSync(join(repoRoot, 'examples'), pods, { recursive: true, filter: (src) => !src.endsWith('workloads.yaml') });
  port = await freePort();
  node = spawn(
    process.execPath,
    [cliEntry, 'run', '--static-dir', pods, ...at, '--node-name', 'faces', '--read-only-port', String(port), '--output', 'plain'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  node.stdout!.on('data', (d) => (output += d));
  node.stderr!.on('data', (d) => (output += d));
  await eventually(
    () => /PodRunning +default\/hello-faces/.test(output) && /PodRunning +default\/web-faces/.test(output),
    'the example pods to run',
    30_000,
  );
});

afterAll(async () => {
  if (node.exitCode === null && node.signalCode === null) {
    node.kill('SIGTERM');
    await new Promise((resolve) => node.once('exit', resolve));
  }
  await knode(['runtime', 'stop', ...at]);
});

describe('a running node', () => {
  it('lists its pods as kubectl get pods does, and as a v1 PodList that client-node accepts', async () => {
    const table = await knode(['status', ...at]);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^NAME +READY +STATUS +RESTARTS +AGE$/);
    expect(table.stdout).toMatch(/^hello-faces +1\/1 +Running +0 +\d+s$/m);
    expect(table.stdout).toMatch(/^web-faces +2\/2 +Running /m);
    // By name, as the apiserver lists them (the node's own order is the pods' arrival).
    const names = table.stdout
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => l.split(' ')[0]);
    expect(names).toEqual(['hello-faces', 'once-faces', 'web-faces']);

    const wide = await knode(['status', '-o', 'wide', ...at]);
    expect(wide.stdout.split('\n')[0]).toMatch(/IP +NODE +NOMINATED NODE +READINESS GATES +CPU +MEMORY$/);
    expect(wide.stdout).toMatch(/hello-faces .* faces +<none> +<none> +(\d+m|<unknown>) +\d+Mi$/m);

    const json = await knode(['status', '-o', 'json', ...at]);
    const list = JSON.parse(json.stdout);
    expect(schemaProblems(list, 'V1PodList')).toEqual([]);
    expect(list.items.map((p: { metadata: { name: string } }) => p.metadata.name).sort()).toEqual([
      'hello-faces',
      'once-faces',
      'web-faces',
    ]);

    const one = await knode(['status', 'default/hello-faces', '-o', 'json', ...at]);
    expect(schemaProblems(JSON.parse(one.stdout), 'V1Pod')).toEqual([]);
    expect(JSON.parse(one.stdout).status.phase).toBe('Running');

    const missing = await knode(['status', 'hello', ...at]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('Error from server (NotFound): pods "hello" not found\nHint: did you mean hello-faces?\n');
  });

  it('prints container logs, the first container of several as kubectl picks it, and an init container asked for', async () => {
    const logs = await knode(['logs', 'hello-faces', ...at]);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain('hello from hello-faces');
    const several = await knode(['logs', 'web-faces', ...at]);
    expect(several.code).toBe(0);
    expect(several.stderr).toBe('Defaulted container "app" out of: app, prepare (init), log-shipper (init)\n');
    expect(several.stdout).toMatch(/^serving$/m);
    const init = await knode(['logs', 'web-faces', '-c', 'prepare', '--timestamps', ...at]);
    expect(init.stdout).toMatch(/^\S+Z preparing$/m);
  });

  it("traces a pod's start-up as a waterfall and writes a Chrome trace file", async () => {
    const file = join(root, 'hello.trace.json');
    const res = await knode(['trace', 'hello-faces', '--out', file, ...at]);
    expect(res.code).toBe(0);
    for (const stage of ['seen by source', 'admitted', 'sandbox created', 'container started hello', 'PLEG observed', 'status Running'])
      expect(res.stdout).toContain(stage);
    expect(res.stdout.match(/◀ slowest/g)).toHaveLength(1);
    const trace = JSON.parse(readFileSync(file, 'utf8'));
    expect(trace.traceEvents.filter((e: { ph: string }) => e.ph === 'X').length).toBeGreaterThanOrEqual(6);
    for (const e of trace.traceEvents.filter((x: { ph: string }) => x.ph === 'X')) {
      expect(Number.isInteger(e.ts) && Number.isInteger(e.dur) && e.dur >= 1).toBe(true);
    }
    const json = JSON.parse((await knode(['trace', 'web-faces', '--json', ...at])).stdout);
    expect(json.stages.map((s: { name: string }) => s.name)).toContain('container exited');
    const unknown = await knode(['trace', 'web', ...at]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('pod default/web not found on node faces');
    expect(unknown.stderr).toContain('Hint: did you mean default/web-faces?');
  });

  it('shows CPU and memory as kubectl top does, for pods, containers and the node', async () => {
    const pods = await knode(['top', ...at]);
    expect(pods.code).toBe(0);
    const lines = pods.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME +CPU\(cores\) +MEMORY\(bytes\)$/);
    // The running pods; the finished job has no container left to measure.
    expect(lines.slice(1).map((l) => l.split(/ +/)[0])).toEqual(['hello-faces', 'web-faces']);
    for (const line of lines.slice(1)) expect(line).toMatch(/^\S+ +\d+m +\d+Mi$/);

    const containers = await knode(['top', 'pods', '--containers', '-A', '--sort-by', 'memory', ...at]);
    const rows = containers.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^NAMESPACE +POD +NAME +CPU\(cores\) +MEMORY\(bytes\)$/);
    expect(
      rows
        .slice(1)
        .map((r) => r.split(/ +/).slice(0, 3).join(' '))
        .sort(),
    ).toEqual(['default hello-faces hello', 'default web-faces app', 'default web-faces log-shipper']);
    // kubectl orders the pods by their sums and each pod's containers among themselves.
    const owners = rows.slice(1).map((r) => r.split(/ +/)[1]);
    expect(owners.filter((p, i) => p !== owners[i - 1])).toEqual([...new Set(owners)]);
    const web = rows.filter((r) => r.includes(' web-faces ')).map((r) => Number(/(\d+)Mi$/.exec(r)![1]));
    expect(web).toEqual([...web].sort((a, b) => b - a));

    const node = await knode(['top', 'node', ...at]);
    expect(node.stdout.split('\n')[0]).toMatch(/^NAME +CPU\(cores\) +CPU\(%\) +MEMORY\(bytes\) +MEMORY\(%\)$/);
    expect(node.stdout.split('\n')[1]).toMatch(/^faces +\d+m +\d+% +\d+Mi +\d+%$/);
  });

  it('serves /healthz, /pods and /metrics on its read-only port', async () => {
    const base = `http://127.0.0.1:${port}`;
    expect(await (await fetch(`${base}/healthz`)).text()).toBe('ok');
    const list = (await (await fetch(`${base}/pods`)).json()) as { kind: string };
    expect(list.kind).toBe('PodList');
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/^kubelet_running_pods 2$/m);
    expect(metrics).toMatch(/^kubelet_started_pods_total 3$/m);
    expect(metrics).toMatch(/^kubelet_pod_start_duration_seconds_count 3$/m);
    expect(metrics).toMatch(/^kubelet_runtime_operations_duration_seconds_count\{operation_type="run_podsandbox"\} 3$/m);
    // The process's own footprint, as the kubelet's process_* metrics, and the V8 heap within it.
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1]);
    const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${node.pid}/status`, 'utf8'))![1]);
    expect(value('process_resident_memory_bytes') / 1024).toBeGreaterThan(rssKiB / 2);
    expect(value('process_resident_memory_bytes') / 1024).toBeLessThan(rssKiB * 2);
    expect(value('process_cpu_seconds_total')).toBeGreaterThan(0);
    expect(value('process_open_fds')).toBeGreaterThan(3);
    expect(value('nodejs_heap_size_used_bytes')).toBeGreaterThan(1 << 20);
    expect(value('nodejs_heap_size_used_bytes')).toBeLessThanOrEqual(value('nodejs_heap_size_total_bytes'));
    expect(metrics).toMatch(/^nodejs_heap_space_size_committed_bytes\{space="old"\} [1-9]\d*$/m);
    expect((await fetch(`${base}/pods`, { method: 'POST' })).status).toBe(405);
    // The unix sockets answer without authentication (and the runtime's runs commands): their owner only.
    expect(statSync(join(root, 'run', 'knode.sock')).mode & 0o777).toBe(0o600);
    expect(statSync(join(root, 'run', 'runtime.sock')).mode & 0o777).toBe(0o600);
    // Profiling is off unless asked for, and says how to turn it on.
    const profile = await fetch(`${base}/debug/profile?seconds=1`);
    expect(profile.status).toBe(404);
    expect(await profile.text()).toContain('--enable-profiling-handler');
  });

  it("streams PLEG events as a new pod starts; delete leaves a pod of the node's sources alone and says why", async () => {
    const pleg = spawn(process.execPath, [cliEntry, 'pleg', '--json', ...at], { stdio: ['ignore', 'pipe', 'pipe'] });
    let lines = '';
    let note = '';
    pleg.stdout!.on('data', (d) => (lines += d));
    pleg.stderr!.on('data', (d) => (note += d));
    await eventually(() => note.includes('Streaming PLEG events'), 'the PLEG stream to open');
    const manifest = join(pods, 'extra.yaml');
    writeFileSync(
      manifest,
      'apiVersion: v1\nkind: Pod\nmetadata:\n  name: extra\nspec:\n  containers:\n    - name: main\n      image: busybox:1.36\n      command: ["sh", "-c", "trap \\"exit 143\\" TERM; sleep 300 & wait"]\n',
    );
    await eventually(
      () => lines.split('\n').some((l) => l.includes('"pod":"default/extra-faces"') && l.includes('"reason":"ContainerStarted"')),
      'a ContainerStarted PLEG event for the new pod',
      20_000,
    );
    pleg.kill('SIGINT');

    const del = await knode(['delete', '-f', manifest, '--node-name', 'faces', ...at]);
    // The node would start it again at once: it is not stopped (no grace period spent, no restart).
    expect(del.code).toBe(1);
    expect(del.stdout).toBe('');
    expect(del.stderr).toContain(
      `Error: default/extra-faces runs from the sources of the node running under ${root}, which would start it again: remove its manifest from the node's --static-dir to delete it`,
    );
    const still = await knode(['status', 'extra-faces', ...at]);
    expect(still.stdout).toMatch(/^extra-faces +1\/1 +Running +0 /m);
  });
});

describe('the runtime alone, once the node has stopped', () => {
  it("tells a pod's init containers, sidecars and restart policy, by knode's marks on them", async () => {
    node.kill('SIGTERM');
    await new Promise((resolve) => node.once('exit', resolve));
    const table = await knode(['status', ...at]);
    expect(table.stderr).toContain('showing what the runtime holds');
    expect(table.stdout).toMatch(/^web-faces +2\/2 +Running /m);
    const pod = JSON.parse((await knode(['status', 'web-faces', '-o', 'json', ...at])).stdout);
    expect(pod.spec.initContainers).toEqual([
      { name: 'prepare', image: 'busybox:1.36' },
      { name: 'log-shipper', image: 'busybox:1.36', restartPolicy: 'Always' },
    ]);
    expect(pod.spec.containers).toEqual([{ name: 'app', image: 'busybox:1.36' }]);
    // The restart policy knode marked on the sandbox, which gives a pod whose containers all ended the kubelet's phase.
    expect(pod.spec.restartPolicy).toBe('Always');
    const once = JSON.parse((await knode(['status', 'once-faces', '-o', 'json', ...at])).stdout);
    expect([once.spec.restartPolicy, once.status.phase]).toEqual(['OnFailure', 'Succeeded']);
    expect(Object.keys(once.metadata.annotations ?? {}).filter((k) => k.startsWith('io.knode.'))).toEqual([]);
    expect(pod.status.conditions).toEqual([
      { type: 'Initialized', status: 'True' },
      { type: 'Ready', status: 'True' },
    ]);
    // logs picks and lists the containers as it does from the node's spec.
    const several = await knode(['logs', 'web-faces', ...at]);
    expect(several.stderr).toBe('Defaulted container "app" out of: app, prepare (init), log-shipper (init)\n');
    expect(several.stdout).toMatch(/^serving$/m);
  });
});
