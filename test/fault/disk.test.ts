// Disk faults (issue: faults): the node's root dir on a tmpfs of a few MiB,
// filled up while pods run, and the pods' log directory made read-only.
// knode and its embedded runtime keep going: a pod that cannot be created
// fails with an error naming the file and the reason, nothing half-made is
// left behind, the pods already running keep running, what happened while the
// disk was full is written once it has room, and the stuck pod starts once
// the disk takes writes again.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import { KubeletLabels } from '../../src/cri/types.js';
import { cliEntry, eventually, startEmbeddedRuntime, type EmbeddedRuntimeProcess } from '../helpers/runtimes.js';

const scratch = mkdtempSync(join(tmpdir(), 'knode-disk-'));
const root = join(scratch, 'root');
const manifests = join(scratch, 'manifests');
const go = join(scratch, 'job-may-exit');
const filler = join(root, 'filler');

const pod = (name: string, command: string, extra = '') =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  terminationGracePeriodSeconds: 1\n${extra}  containers:\n    - name: main\n      image: busybox:1.36\n      command: ["sh", "-c", ${JSON.stringify(command)}]\n`;

let runtime: EmbeddedRuntimeProcess;
let client: CriClient;
let node: ReturnType<typeof spawn>;
let out = '';

beforeAll(async () => {
  mkdirSync(root, { recursive: true });
  mkdirSync(manifests);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', root]);
  runtime = await startEmbeddedRuntime(root);
  client = new CriClient(runtime.endpoint);
  writeFileSync(
    join(manifests, 'steady.yaml'),
    pod('steady', 'pad=$(head -c 2000 /dev/zero | tr "\\0" x); i=0; while true; do i=$((i+1)); echo line-$i-$pad; sleep 0.1; done'),
  );
  writeFileSync(join(manifests, 'job.yaml'), pod('job', `while [ ! -e ${go} ]; do sleep 0.1; done; exit 3`, '  restartPolicy: Never\n'));
  node = spawn(
    process.execPath,
    [
      cliEntry,
      'run',
      '--static-dir',
      manifests,
      '--root-dir',
      root,
      '--runtime-endpoint',
      runtime.endpoint,
      '--node-name',
      'disk',
      '--file-check-frequency',
      '1s',
      '--output',
      'plain',
      '--read-only-port',
      '0',
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  node.stdout!.on('data', (d) => (out += d));
  node.stderr!.on('data', (d) => (out += d));
  await eventually(
    () => /PodRunning +default\/steady-disk/.test(out) && /PodRunning +default\/job-disk/.test(out),
    'both pods to run',
    60_000,
  );
});

afterAll(async () => {
  node?.kill('SIGTERM');
  client?.close();
  await runtime?.stop();
  execFileSync('umount', ['-l', root]);
  rmSync(scratch, { recursive: true, force: true });
});

const sandboxesOf = async (name: string) =>
  (await client.listPodSandbox({ labelSelector: { [KubeletLabels.podName]: name } })).filter((s) => s.state === 'SANDBOX_READY');
const runningOf = async (name: string) =>
  (await client.listContainers({ labelSelector: { [KubeletLabels.podName]: name } })).filter((c) => c.state === 'CONTAINER_RUNNING');
const stateFiles = () => ['sandboxes', 'containers'].flatMap((d) => readdirSync(join(root, 'runtime', 'state', d)));

describe('a full root dir', () => {
  let freedAt = 0;
  /** steady's container while the disk is full. */
  let steadyId = '';

  it('fails the pod it cannot create with the file and the reason, leaves nothing half-made, and keeps the others running', async () => {
    try {
      execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k'], { stdio: 'ignore' });
    } catch {
      // dd stops with "No space left on device": the disk is full
    }
    expect(statSync(filler).size).toBeGreaterThan(4 * 1024 * 1024);

    // The job exits while nothing can be written.
    writeFileSync(go, '');
    const [job] = await eventually(
      async () => {
        const all = await client.listContainers({ labelSelector: { [KubeletLabels.podName]: 'job-disk' } });
        return all.length === 1 && all[0].state === 'CONTAINER_EXITED' ? all : undefined;
      },
      'the job to exit',
      30_000,
    );
    expect((await client.containerStatus(job.id)).status?.exitCode).toBe(3);

    writeFileSync(join(manifests, 'late.yaml'), pod('late', 'echo late; sleep 3600'));
    await eventually(
      () => /FailedCreatePodSandBox +default\/late-disk|default\/late-disk.*FailedCreatePodSandBox/.test(out),
      'the new pod to fail',
      30_000,
    );
    const failure = out.split('\n').find((l) => l.includes('FailedCreatePodSandBox'))!;
    expect(failure).toMatch(
      /RESOURCE_EXHAUSTED: failed to create pod sandbox default\/late-disk: writing \S+\/runtime\/state\/sandboxes\/\w+\.json: ENOSPC: no space left on device/,
    );
    expect(await sandboxesOf('late-disk')).toHaveLength(0);
    expect(stateFiles().filter((f) => !f.endsWith('.json'))).toEqual([]);

    const steadyNow = await runningOf('steady-disk');
    expect(steadyNow).toHaveLength(1);
    steadyId = steadyNow[0].id;
    expect(node.exitCode).toBeNull();
    expect(runtime.child.exitCode).toBeNull();
    const status = execFileSync(process.execPath, [cliEntry, 'status', '--root-dir', root], { encoding: 'utf8' });
    expect(status).toMatch(/steady-disk +1\/1 +Running/);
    expect(status).toMatch(/job-disk +0\/1 +Error/);
  });

  it('writes what it kept in memory, resumes the logs and starts the pod once the disk has room', async () => {
    rmSync(filler);
    freedAt = Date.now();

    // The job's exit reaches its record: written over it while the disk was full (it fits in its file), or kept in memory until now.
    const [job] = await client.listContainers({ labelSelector: { [KubeletLabels.podName]: 'job-disk' } });
    await eventually(
      () => JSON.parse(readFileSync(join(root, 'runtime', 'state', 'containers', `${job.id}.json`), 'utf8')).exitCode === 3,
      "the job's exit on disk",
      20_000,
    );

    await eventually(async () => (await runningOf('late-disk')).length === 1, 'the new pod to run', 90_000);
    expect(await sandboxesOf('late-disk')).toHaveLength(1);
    // Its /etc/hosts is whole, not what a refused write left.
    const hosts = readdirSync(join(root, 'kubelet', 'pods')).map((uid) => join(root, 'kubelet', 'pods', uid, 'etc-hosts'));
    for (const file of hosts) expect(readFileSync(file, 'utf8')).toMatch(/late|steady|job/);

    // steady kept printing all along (2 kB a line): lines were dropped while the disk was full, and come again now.
    const [steady] = await runningOf('steady-disk');
    const logPath = (await client.containerStatus(steady.id)).status!.logPath;
    await eventually(
      () =>
        readFileSync(logPath, 'utf8')
          .split('\n')
          .some((l) => l !== '' && Date.parse(l.split(' ')[0]) > freedAt),
      'new log lines after the disk has room',
      20_000,
    );
    const numbers = readFileSync(logPath, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => Number(/line-(\d+)-/.exec(l)![1]));
    // The same container all along: a restart would start a new log, whole since the disk had room.
    expect(steady.id, `steady's container, ${steady.id}, is not the one that ran while the disk was full (${steadyId})`).toBe(steadyId);
    const gap = numbers.some((n, i) => i > 0 && n !== numbers[i - 1] + 1);
    expect(
      gap,
      `no line missing in ${logPath}: ${numbers.length} lines, ${numbers[0]} to ${numbers.at(-1)}; the disk was full from the job's exit until ${new Date(freedAt).toISOString()}`,
    ).toBe(true);
    expect(node.exitCode).toBeNull();
  });
});

describe('a read-only pod log directory', () => {
  it('fails the new pod with the directory and the reason, and starts it once the directory is writable', async () => {
    const logs = join(root, 'pods');
    execFileSync('mount', ['--bind', logs, logs]);
    execFileSync('mount', ['-o', 'remount,bind,ro', logs]);
    try {
      writeFileSync(join(manifests, 'late2.yaml'), pod('late2', 'echo late2; sleep 3600'));
      await eventually(() => /late2-disk.*Failed to create pod sandbox/.test(out), 'the pod to fail', 30_000);
      const failure = out.split('\n').find((l) => /late2-disk.*Failed to create pod sandbox/.test(l))!;
      expect(failure).toMatch(/Failed to create pod sandbox: mkdir \S+\/pods\/default_late2-disk_\w+: EROFS: read-only file system/);
      expect(await sandboxesOf('late2-disk')).toHaveLength(0);
      expect(await runningOf('steady-disk')).toHaveLength(1);
      // The runtime's own mkdir names the read-only directory too (a recursive mkdir alone says ENOENT).
      const direct = await client
        .runPodSandbox({
          metadata: { name: 'direct', uid: 'direct-uid', namespace: 'default', attempt: 0 },
          logDirectory: join(logs, 'default_direct_direct-uid'),
        })
        .catch((err: Error) => err);
      expect(String(direct)).toMatch(
        /failed to create pod sandbox default\/direct: mkdir \S+\/pods\/default_direct_direct-uid: EROFS: read-only file system/,
      );
    } finally {
      execFileSync('umount', [logs]);
    }
    await eventually(async () => (await runningOf('late2-disk')).length === 1, 'the pod to run', 90_000);
    expect(node.exitCode).toBeNull();
  });
});
