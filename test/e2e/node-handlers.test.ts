// The kubelet's other handlers on a `knode run` child process: /configz, the
// node log directory at /logs/ (and every way of climbing out of it refused),
// and the profiling handlers, asked for while a hundred pods start.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knode } from '../helpers/cli.js';
import { freePort } from '../helpers/controlplane.js';
import { cliEntry, eventually } from '../helpers/runtimes.js';

const root = mkdtempSync(join(tmpdir(), 'knode-handlers-'));
const pods = join(root, 'manifests');
const logDir = join(root, 'varlog');
const secretDir = join(root, 'secret');
const at = ['--root-dir', root];
let base = '';
let port = 0;
let node: ChildProcess;
let output = '';

beforeAll(async () => {
  mkdirSync(pods);
  mkdirSync(join(logDir, 'app'), { recursive: true });
  mkdirSync(secretDir);
  writeFileSync(join(logDir, 'syslog'), 'boot ok\n');
  writeFileSync(join(logDir, 'app', 'app.log'), 'line 1\nline 2\n');
  writeFileSync(join(logDir, 'a&b <c>.log'), 'odd name\n');
  writeFileSync(join(secretDir, 'key'), 'do not serve\n');
  symlinkSync(join(secretDir, 'key'), join(logDir, 'escape'));
  symlinkSync(secretDir, join(logDir, 'escape-dir'));
  symlinkSync(join(logDir, 'app', 'app.log'), join(logDir, 'inside'));
  port = await freePort();
  base = `http://127.0.0.1:${port}`;
  node = spawn(
    process.execPath,
    [
      cliEntry,
      'run',
      '--static-dir',
      pods,
      ...at,
      '--node-name',
      'handlers',
      '--read-only-port',
      String(port),
      '--output',
      'plain',
      '--enable-profiling-handler',
      '--node-log-dir',
      logDir,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  node.stdout!.on('data', (d) => (output += d));
  node.stderr!.on('data', (d) => (output += d));
  await eventually(async () => (await fetch(`${base}/healthz`).catch(() => undefined))?.ok, `the node to answer (${output})`, 30_000);
});

afterAll(async () => {
  node.kill('SIGTERM');
  await new Promise((resolve) => node.once('exit', resolve));
  await knode(['runtime', 'stop', ...at]);
});

/** A request sent byte for byte (no client normalises the path), and the status line's code. */
function rawStatus(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('connect', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
    socket.on('data', (d) => (answer += d));
    socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
    socket.on('error', reject);
  });
}

describe('the kubelet handlers of a running node', () => {
  it('answers /configz with the effective configuration, as the kubelet does', async () => {
    const { kubeletconfig } = (await (await fetch(`${base}/configz`)).json()) as { kubeletconfig: Record<string, unknown> };
    expect(kubeletconfig).toMatchObject({
      kind: 'KubeletConfiguration',
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      staticPodPath: pods,
      readOnlyPort: port,
      syncFrequency: '1m',
      enableProfilingHandler: true,
      enableSystemLogHandler: true,
    });
  });

  it('serves the node log directory with listings, and nothing outside it', async () => {
    const listing = await fetch(`${base}/logs/`);
    expect(listing.headers.get('content-type')).toContain('text/html');
    const html = await listing.text();
    for (const entry of [
      '<a href="syslog">syslog</a>',
      '<a href="app/">app/</a>',
      '<a href="a%26b%20%3Cc%3E.log">a&amp;b &lt;c&gt;.log</a>',
    ])
      expect(html).toContain(entry);
    expect(await (await fetch(`${base}/logs/syslog`)).text()).toBe('boot ok\n');
    expect(await (await fetch(`${base}/logs/app/app.log`)).text()).toBe('line 1\nline 2\n');
    expect(await (await fetch(`${base}/logs/inside`)).text()).toBe('line 1\nline 2\n');
    expect(await (await fetch(`${base}/logs/a%26b%20%3Cc%3E.log`)).text()).toBe('odd name\n');
    const redirect = await fetch(`${base}/logs/app`, { redirect: 'manual' });
    expect([redirect.status, redirect.headers.get('location')]).toEqual([301, 'app/']);

    const escapes = [
      '/logs/../secret/key',
      '/logs/../../etc/passwd',
      '/logs/..',
      '/logs/app/../../secret/key',
      '/logs/%2e%2e/secret/key',
      '/logs/%2E%2E/secret/key',
      '/logs/.%2e/secret/key',
      '/logs/%2e./secret/key',
      '/logs/%2e%2e%2fsecret%2fkey',
      '/logs/%2E%2E%2Fsecret%2Fkey',
      '/logs/app/%2e%2e%2f%2e%2e%2fsecret%2fkey',
      '/logs/%252e%252e/secret/key',
      '/logs/%252e%252e%252fsecret%252fkey',
      '/logs/%25252e%25252e/secret/key',
      '/logs/..%5csecret%5ckey',
      '/logs/..%5Csecret%5Ckey',
      '/logs/%2e%2e%5csecret%5ckey',
      '/logs/..\\secret\\key',
      '/logs/%5c..%5c..%5csecret%5ckey',
      '/logs/app%5c..%5c..%5csecret',
      '/logs//etc/passwd',
      '/logs/%2fetc%2fpasswd',
      '/logs/%2F%2Fetc%2Fpasswd',
      `/logs/${encodeURIComponent(join(secretDir, 'key'))}`,
      '/logs/escape',
      '/logs/escape-dir/key',
      '/logs/escape-dir/',
      '/logs/escape%2fkey',
      '/logs/syslog%00.txt',
      '/logs/%00',
      '/logs/%c0%ae%c0%ae/secret/key',
      '/logs/%e0%80%ae%e0%80%ae/secret/key',
      '/logs/%uff0e%uff0e/secret/key',
      '/logs/%%32%65%%32%65/secret/key',
      '/logs/.../secret/key',
      '/logs/app/..;/..;/secret/key',
    ];
    expect(escapes.length).toBeGreaterThanOrEqual(30);
    const answers = await Promise.all(escapes.map(async (path) => [path, await rawStatus(path)] as const));
    const leaked = answers.filter(([, status]) => status !== 400 && status !== 404);
    expect(leaked).toEqual([]);
    // The same through a client that normalises paths first.
    for (const path of escapes.slice(0, 12)) expect([400, 404]).toContain((await fetch(`${base}${path}`)).status);
  });

  it('takes a CPU profile while a hundred pods start, with the sync loop and the pod workers in it, and a heap snapshot that parses', async () => {
    for (let i = 0; i < 100; i++) {
      writeFileSync(
        join(pods, `p${i}.yaml`),
        `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p${i}\nspec:\n  containers:\n    - name: main\n      image: busybox:1.36\n      command: ["sleep", "300"]\n`,
      );
    }
    const res = await fetch(`${base}/debug/profile?seconds=3`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/filename="knode-handlers-.*\.cpuprofile"/);
    const profile = (await res.json()) as {
      nodes: { callFrame: { functionName: string; url: string } }[];
      samples: number[];
      startTime: number;
      endTime: number;
    };
    expect(profile.samples.length).toBeGreaterThan(100);
    expect(profile.endTime - profile.startTime).toBeGreaterThanOrEqual(2_900_000);
    // knode's own code runs from its bundled commands (dist/bundle).
    const knodeFrames = new Set(
      profile.nodes.filter((n) => n.callFrame.url.includes('/dist/bundle/')).map((n) => n.callFrame.functionName),
    );
    expect([...knodeFrames]).toEqual(expect.arrayContaining(['syncLoopIteration']));
    expect(['workerLoop', 'syncPod', 'SyncPod'].some((f) => knodeFrames.has(f))).toBe(true);
    await eventually(
      async () => {
        const list = (await (await fetch(`${base}/pods`)).json()) as { items: { status?: { phase?: string } }[] };
        return list.items.filter((p) => p.status?.phase === 'Running').length === 100;
      },
      'the hundred pods to run',
      60_000,
    );

    expect((await fetch(`${base}/debug/profile?seconds=0`)).status).toBe(400);
    const heap = await fetch(`${base}/debug/heap`);
    expect(heap.headers.get('content-disposition')).toMatch(/\.heapsnapshot"$/);
    const snapshot = (await heap.json()) as { snapshot: { meta: { node_fields: string[] }; node_count: number }; strings: string[] };
    expect(snapshot.snapshot.meta.node_fields).toContain('name');
    expect(snapshot.snapshot.node_count).toBeGreaterThan(10_000);
    expect(snapshot.strings).toContain('SummaryProvider');
  });
});
