// The runtime dies and comes back (issue: faults): `knode run` on a containerd
// of its own (test/containerd/containerd.sh), whose daemon is killed with -9
// while a pod runs. knode says the runtime is down and keeps going; its PLEG,
// whose relists fail meanwhile, turns unhealthy past its threshold (5 s here,
// 3 min by default) and so does /healthz; the pod's container, killed while
// containerd is away, is restarted per the pod's restart policy once
// containerd is back, and knode says the runtime and the PLEG are healthy.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { NodeClient } from '../../src/cli/node-client.js';
import { CriClient } from '../../src/cri/client.js';
import { KubeletLabels } from '../../src/cri/types.js';
import { rootPaths } from '../../src/util/paths.js';
import { cliEntry, eventually, repoRoot } from '../helpers/runtimes.js';

const script = join(repoRoot, 'test/containerd/containerd.sh');
const dir = mkdtempSync(join(tmpdir(), 'kctr-fault-'));
const root = mkdtempSync(join(tmpdir(), 'knode-fault-'));
const marker = `fault-marker-${process.pid}`;

afterAll(() => {
  execFileSync('bash', [script, 'down', dir], { stdio: 'inherit' });
  rmSync(root, { recursive: true, force: true });
});

/** The node's /healthz over its unix socket: status and text. */
async function healthz(root: string): Promise<{ status: number; text: string }> {
  const res = await new NodeClient(rootPaths(root).nodeSocket).open('/healthz');
  let text = '';
  for await (const chunk of res) text += chunk;
  return { status: res.statusCode ?? 0, text };
}

it('reports containerd down after kill -9 and its PLEG unhealthy, keeps going, and restarts the pod it lost once containerd is back', async () => {
  const endpoint = execFileSync('bash', [script, 'up', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  const pods = join(root, 'pods');
  mkdirSync(pods);
  writeFileSync(
    join(pods, 'survivor.yaml'),
    `apiVersion: v1\nkind: Pod\nmetadata:\n  name: survivor\nspec:\n  hostNetwork: true\n  terminationGracePeriodSeconds: 1\n  containers:\n    - name: app\n      image: busybox:1.36\n      command: ["sh", "-c", "echo ${marker}; trap 'exit 0' TERM; while true; do sleep 1; done"]\n`,
  );
  const child = spawn(
    process.execPath,
    [
      cliEntry,
      'run',
      '--static-dir',
      pods,
      '--root-dir',
      root,
      '--runtime-endpoint',
      endpoint,
      '--node-name',
      'fault',
      '--pleg-relist-threshold',
      '5s',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const client = new CriClient(endpoint);
  try {
    await eventually(() => /PodRunning +default\/survivor-fault/.test(out), 'the pod to run', 60_000);
    const appOf = async () =>
      (await client.listContainers({ labelSelector: { [KubeletLabels.containerName]: 'app' } })).filter(
        (c) => c.state === 'CONTAINER_RUNNING',
      );

    // containerd crashes; its shim and the container keep running without it.
    process.kill(Number(readFileSync(join(dir, 'containerd.pid'), 'utf8')), 'SIGKILL');
    await eventually(() => /RuntimeUnhealthy/.test(out), 'knode to say the runtime is down', 30_000);
    expect(out).toMatch(/RuntimeUnhealthy.*does not answer/);
    await eventually(() => /PLEGUnhealthy/.test(out), 'knode to say the PLEG is not healthy', 30_000);
    expect(out).toMatch(/PLEGUnhealthy.*PLEG is not healthy: pleg was last seen active \d+s ago; threshold is 6s/);
    const sick = await healthz(root);
    expect(sick.status).toBe(500);
    expect(sick.text).toMatch(/^PLEG is not healthy: .*\ncontainer runtime is down: the runtime does not answer/);
    // While it is away, the container dies.
    execFileSync('pkill', ['-f', marker]);

    execFileSync('bash', [script, 'restart', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
    await eventually(() => /RuntimeHealthy/.test(out), 'knode to say the runtime is back', 30_000);
    await eventually(() => /PLEGHealthy/.test(out), 'knode to say the PLEG relists again', 30_000);
    expect(await healthz(root)).toEqual({ status: 200, text: 'ok' });
    const restarted = await eventually(
      async () => {
        const [app] = await appOf();
        return app && app.annotations['io.kubernetes.container.restartCount'] === '1' ? app : undefined;
      },
      'the lost container to be restarted as its first restart',
      60_000,
    );
    expect(restarted.labels[KubeletLabels.podName]).toBe('survivor-fault');
    // One pod, one sandbox: the pod came back in place, nothing duplicated.
    expect((await client.listPodSandbox()).filter((s) => s.state === 'SANDBOX_READY')).toHaveLength(1);
    expect(child.exitCode).toBeNull();
  } finally {
    client.close();
    child.kill('SIGTERM');
    await exited;
  }
});
