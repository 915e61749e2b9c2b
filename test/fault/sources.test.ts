// Source faults (issue: faults) on the real path: `knode run --static-dir` on
// the embedded runtime, its manifests rewritten under it. A file rewritten in
// place is read while empty and while half-written, and nothing runs from
// those reads; a file replaced by a rename is read once, whole; the directory
// removed stops its pods (as the kubelet does) and, made again, is found and
// watched again; a manifest taken away and put back while its pod stops runs
// again. The poll is a minute, so what is seen here is seen by the watch and
// by the look for a missing directory, not by the poll.
import { spawn } from 'node:child_process';
import { closeSync, fsyncSync, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { NodeClient } from '../../src/cli/node-client.js';
import { CriClient } from '../../src/cri/client.js';
import { KubeletLabels } from '../../src/cri/types.js';
import { cliEntry, eventually, startEmbeddedRuntime, type EmbeddedRuntimeProcess } from '../helpers/runtimes.js';

const scratch = mkdtempSync(join(tmpdir(), 'knode-sources-'));
const root = join(scratch, 'root');
const manifests = join(scratch, 'manifests');

/** A pod whose one container is named CONTAINER, so each version of a manifest shows in the runtime. */
const pod = (name: string, container = 'main') =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  terminationGracePeriodSeconds: 1\n  containers:\n    - name: ${container}\n      image: busybox:1.36\n      command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"]\n`;

let runtime: EmbeddedRuntimeProcess;
let client: CriClient;
let node: ReturnType<typeof spawn>;
let out = '';

const running = async (podName: string) =>
  (await client.listContainers({ labelSelector: { [KubeletLabels.podName]: podName } })).filter((c) => c.state === 'CONTAINER_RUNNING');
const runningNamed = async (podName: string, container: string) => (await running(podName)).filter((c) => c.metadata?.name === container);
const count = (text: string, pattern: RegExp) => text.split('\n').filter((l) => pattern.test(l)).length;

beforeAll(async () => {
  mkdirSync(root);
  mkdirSync(manifests);
  runtime = await startEmbeddedRuntime(root);
  client = new CriClient(runtime.endpoint);
  writeFileSync(join(manifests, 'steady.yaml'), pod('steady'));
  writeFileSync(join(manifests, 'edited.yaml'), pod('edited'));
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
      'sources',
      '--file-check-frequency',
      '60s',
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
    async () => (await running('steady-sources')).length === 1 && (await running('edited-sources')).length === 1,
    'both pods to run',
    60_000,
  );
});

afterAll(async () => {
  node?.kill('SIGTERM');
  client?.close();
  await runtime?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

it('runs nothing from a file rewritten in place until it is whole: not the empty file, not the half-written one', async () => {
  const [steady] = await running('steady-sources');
  const [edited] = await running('edited-sources');
  const file = join(manifests, 'edited.yaml');
  const text = pod('edited', 'v2');
  const cut = text.indexOf('      image:'); // the container named, its image not yet written
  const mark = out.length;

  const fd = openSync(file, 'w'); // truncates: the file is empty until the writer goes on
  try {
    await eventually(() => /edited\.yaml, document 0: the file is empty/.test(out.slice(mark)), 'knode to read the empty file');
    writeSync(fd, text.slice(0, cut));
    fsyncSync(fd);
    await eventually(
      () => /edited\.yaml, document 0, pod "edited": spec\.containers\[0\]\.image: Required value/.test(out.slice(mark)),
      'knode to read the half-written file',
    );
    // Neither read changed what runs.
    expect((await running('edited-sources')).map((c) => c.id)).toEqual([edited.id]);
    expect(out.slice(mark)).not.toMatch(/PodTerminating +default\/edited-sources/);
    writeSync(fd, text.slice(cut));
  } finally {
    closeSync(fd);
  }

  await eventually(
    async () => (await runningNamed('edited-sources', 'v2')).length === 1 && (await runningNamed('edited-sources', 'main')).length === 0,
    'the whole file to run',
    30_000,
  );
  expect(count(out.slice(mark), /PodTerminating +default\/edited-sources/)).toBe(1);
  expect((await running('steady-sources')).map((c) => c.id)).toEqual([steady.id]);
});

it('reads a file replaced by a rename once, whole', async () => {
  const mark = out.length;
  const draft = join(manifests, '.edited.yaml.swp'); // hidden: not read as a manifest
  writeFileSync(draft, pod('edited', 'v3'));
  renameSync(draft, join(manifests, 'edited.yaml'));

  await eventually(
    async () => (await runningNamed('edited-sources', 'v3')).length === 1 && (await running('edited-sources')).length === 1,
    'the new file to run',
    30_000,
  );
  const since = out.slice(mark);
  expect(since).not.toMatch(/ManifestError/);
  expect(count(since, /PodTerminating +default\/edited-sources/)).toBe(1);
  expect(count(since, /SandboxCreated +default\/edited-sources/)).toBe(1);
});

it('stops the pods of a removed directory; made again, the directory is found and watched again', async () => {
  rmSync(manifests, { recursive: true });
  await eventually(
    async () => (await running('steady-sources')).length === 0 && (await running('edited-sources')).length === 0,
    'the pods to stop',
    30_000,
  );
  expect(out).toMatch(/manifests, document 0: path does not exist; watching for it/);

  mkdirSync(manifests);
  writeFileSync(join(manifests, 'steady.yaml'), pod('steady'));
  // Found by the look for the missing directory (a second or so, then less often), long before the minute's poll.
  await eventually(async () => (await running('steady-sources')).length === 1, 'the made-again directory to be found', 15_000);
  // A file added now is heard by a watch on the new directory.
  writeFileSync(join(manifests, 'late.yaml'), pod('late'));
  await eventually(async () => (await running('late-sources')).length === 1, 'a file in the new directory to be heard', 15_000);
  expect(await running('edited-sources')).toEqual([]);
  expect(node.exitCode).toBeNull();
});

it('runs again a manifest taken away and put back while its pod stops (same UID, a new life)', async () => {
  const file = join(manifests, 'slow.yaml');
  // Ignores SIGTERM: stopping takes its whole grace period, so the manifest is back before the pod has stopped.
  const text = pod('slow')
    .replace('terminationGracePeriodSeconds: 1', 'terminationGracePeriodSeconds: 3')
    .replace("trap 'exit 0' TERM", "trap '' TERM");
  writeFileSync(file, text);
  await eventually(async () => (await running('slow-sources')).length === 1, 'slow to run', 30_000);
  const [first] = await running('slow-sources');
  const mark = out.length;

  renameSync(file, join(scratch, 'slow.yaml'));
  await eventually(() => /PodTerminating +default\/slow-sources/.test(out.slice(mark)), 'slow to be stopping');
  renameSync(join(scratch, 'slow.yaml'), file);

  await eventually(() => /PodRestarted +default\/slow-sources/.test(out.slice(mark)), 'housekeeping to start slow anew', 20_000).catch(
    async (err: Error) => {
      const now = (await (await NodeClient.find(root))?.json<{ workers?: unknown[]; housekeeping?: unknown }>('/node'))?.body;
      throw new Error(
        `${err.message}; knode printed since the manifest went:\n${out.slice(mark)}\nits pod workers now: ${JSON.stringify(now?.workers)}\nits housekeeping: ${JSON.stringify(now?.housekeeping)}`,
      );
    },
  );
  await eventually(
    async () => {
      const now = await running('slow-sources');
      return now.length === 1 && now[0].id !== first.id;
    },
    'slow to run again',
    30_000,
  );
});
