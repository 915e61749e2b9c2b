// kill -9 of `knode run`, fifty times, at seeded random points of a workload
// that has restarts in flight (a crash-looping container, a job that fails
// twice, init containers and a sidecar). After each kill the runtime is
// checked directly over CRI: never two running instances of one container or
// two ready sandboxes of one pod, restart counts never go back, and the
// long-running containers are the same ones (adopted, not restarted). At the
// end, the crash-looper has restarted no more often than its backoff allows
// over the whole time: the backoff survived the kills.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import { ensureEmbeddedRuntime } from '../../src/cri/embedded.js';
import { KubeletAnnotations, KubeletLabels } from '../../src/cri/types.js';
import { knode } from '../helpers/cli.js';
import { prng } from '../helpers/prng.js';
import { cliEntry, eventually } from '../helpers/runtimes.js';

const KILLS = Number(process.env.KNODE_FAULT_KILLS ?? 50);
const root = mkdtempSync(join(tmpdir(), 'knode-kill9-'));
const pods = join(root, 'manifests');
const state = join(root, 'job-state');
const at = ['--root-dir', root];

afterAll(async () => {
  await knode(['runtime', 'stop', ...at]);
});

const manifests: Record<string, string> = {
  steady:
    'containers: [{name: main, image: busybox:1.36, command: [sleep, "3600"]}, {name: second, image: busybox:1.36, command: [sleep, "3600"]}]',
  crasher: 'containers: [{name: crash, image: busybox:1.36, command: [sh, -c, "echo boom; exit 1"]}]',
  web: 'initContainers: [{name: prepare, image: busybox:1.36, command: [sleep, "0.3"]}, {name: shipper, image: busybox:1.36, restartPolicy: Always, command: [sleep, "3600"]}]\n  containers: [{name: app, image: busybox:1.36, command: [sleep, "3600"]}]',
  job: `restartPolicy: OnFailure\n  volumes: [{name: state, hostPath: {path: ${state}, type: DirectoryOrCreate}}]\n  containers: [{name: work, image: busybox:1.36, volumeMounts: [{name: state, mountPath: /state}], command: [sh, -c, 'n=$(cat $KNODE_MOUNT_STATE/n 2>/dev/null || echo 0); echo $((n+1)) > $KNODE_MOUNT_STATE/n; [ "$n" -ge 2 ]']}]`,
};

function startNode() {
  const child = spawn(
    process.execPath,
    [cliEntry, 'run', '--static-dir', pods, ...at, '--node-name', 'k9', '--read-only-port', '0', '--output', 'json'],
    { stdio: 'ignore' },
  );
  return { child, exited: new Promise((resolve) => child.once('exit', resolve)) };
}

it(`keeps its pods through ${KILLS} kill -9s at random points: no duplicates, nothing lost, restart counts and backoff kept`, async () => {
  mkdirSync(pods, { recursive: true });
  for (const [name, spec] of Object.entries(manifests))
    writeFileSync(join(pods, `${name}.yaml`), `apiVersion: v1\nkind: Pod\nmetadata: {name: ${name}}\nspec:\n  ${spec}\n`);
  // The runtime runs on its own (as `knode run` leaves it): only knode is killed.
  const client = new CriClient(await ensureEmbeddedRuntime(root));
  const random = prng(9);
  const started = Date.now();
  const steadyIds = new Map<string, string>();
  let crashRestarts = 0;
  const problems: string[] = [];

  for (let i = 0; i < KILLS; i++) {
    const node = startNode();
    await new Promise((r) => setTimeout(r, 300 + Math.floor(random() * 3700)));
    node.child.kill('SIGKILL');
    await node.exited;

    const running = await client.listContainers({ state: { state: 'CONTAINER_RUNNING' } });
    const seen = new Map<string, number>();
    for (const c of running) {
      const key = `${c.labels[KubeletLabels.podName]}/${c.labels[KubeletLabels.containerName]}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      if (['steady-k9/main', 'steady-k9/second', 'web-k9/app', 'web-k9/shipper'].includes(key)) {
        const first = steadyIds.get(key) ?? c.id;
        steadyIds.set(key, first);
        if (first !== c.id) problems.push(`kill ${i}: ${key} is a new container (${c.id.slice(0, 12)}, was ${first.slice(0, 12)})`);
      }
    }
    for (const [key, n] of seen) if (n > 1) problems.push(`kill ${i}: ${n} running instances of ${key}`);
    const ready = await client.listPodSandbox({ state: { state: 'SANDBOX_READY' } });
    const sandboxes = new Map<string, number>();
    for (const s of ready) sandboxes.set(s.metadata!.name, (sandboxes.get(s.metadata!.name) ?? 0) + 1);
    for (const [name, n] of sandboxes) if (n > 1) problems.push(`kill ${i}: ${n} ready sandboxes of ${name}`);
    const crashes = (await client.listContainers({ labelSelector: { [KubeletLabels.podName]: 'crasher-k9' } })).map((c) =>
      Number(c.annotations[KubeletAnnotations.containerRestartCount] ?? 0),
    );
    const restarts = Math.max(0, ...crashes);
    if (restarts < crashRestarts) problems.push(`kill ${i}: the crasher's restart count went back from ${crashRestarts} to ${restarts}`);
    crashRestarts = Math.max(crashRestarts, restarts);
  }
  expect(problems).toEqual([]);

  // One last run, left alone: everything settles where it should.
  const node = startNode();
  let lastSeen = 'nothing listed yet';
  try {
    await eventually(
      async () => {
        const list = await client.listContainers({});
        lastSeen = list
          .map(
            (c) =>
              `${c.labels[KubeletLabels.podName]}/${c.metadata?.name}#${c.annotations[KubeletAnnotations.containerRestartCount]} ${c.state}`,
          )
          .sort()
          .join(', ');
        // A kill between a container's create and its start leaves it created: the next node starts
        // another with the count one higher, as the kubelet does, so the count is not the run's number.
        const exited = list.filter((c) => c.labels[KubeletLabels.podName] === 'job-k9' && c.state === 'CONTAINER_EXITED');
        const codes = await Promise.all(exited.map(async (c) => (await client.containerStatus(c.id)).status?.exitCode));
        const succeeded = codes.includes(0);
        const steady = list.filter(
          (c) => c.state === 'CONTAINER_RUNNING' && ['steady-k9', 'web-k9'].includes(c.labels[KubeletLabels.podName]),
        );
        return succeeded && steady.length === 4 ? true : undefined;
      },
      () => `the job to succeed and the long-running containers to run; last listed: ${lastSeen}`,
      90_000,
    );
    const running = (await client.listContainers({ state: { state: 'CONTAINER_RUNNING' } })).filter((c) =>
      ['steady-k9', 'web-k9'].includes(c.labels[KubeletLabels.podName]),
    );
    expect(new Set(running.map((c) => c.id))).toEqual(new Set(steadyIds.values()));
    // The job's program ran three times: no run was lost or made twice.
    expect(readFileSync(join(state, 'n'), 'utf8').trim()).toBe('3');
    // Backoff 10 s, 20 s, 40 s ... from the first crash: k restarts need 10 * (2^(k-1) - 1) s at the least.
    const elapsed = (Date.now() - started) / 1000;
    const allowed = Math.floor(Math.log2(elapsed / 10 + 1)) + 2;
    const crashes = (await client.listContainers({ labelSelector: { [KubeletLabels.podName]: 'crasher-k9' } })).map((c) =>
      Number(c.annotations[KubeletAnnotations.containerRestartCount] ?? 0),
    );
    expect(Math.max(...crashes)).toBeLessThanOrEqual(allowed);
    expect(Math.max(...crashes)).toBeGreaterThanOrEqual(1);
  } finally {
    node.child.kill('SIGTERM');
    await node.exited;
    client.close();
  }
}, 600_000);
