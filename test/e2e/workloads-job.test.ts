// A Job in `knode run --static-dir` on the embedded runtime: the local Job
// controller makes its pods, the node runs them through the api source, and
// the Job's status in the saved store ends as kube-controller-manager's.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { Pod } from '../../src/engine/api/v1.js';
import type { Job, KubeObject } from '../../src/engine/api/workloads.js';
import { knode } from '../helpers/cli.js';
import { cliEntry, eventually } from '../helpers/runtimes.js';

const root = mkdtempSync(join(tmpdir(), 'knode-e2e-job-'));
afterAll(async () => {
  await knode(['runtime', 'stop', '--root-dir', root]);
});

const JOB = `apiVersion: batch/v1
kind: Job
metadata:
  name: count
spec:
  completions: 3
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: work
          image: busybox:1.36
          command: ["sh", "-c", "echo done"]
`;

it('runs a Job of 3 completions, 2 at a time, to Complete, its status saved in objects.json', async () => {
  const dir = join(root, 'manifests');
  mkdirSync(dir);
  writeFileSync(join(dir, 'job.yaml'), JOB);
  const child = spawn(process.execPath, [cliEntry, 'run', '--static-dir', dir, '--root-dir', root, '--node-name', 'e2e'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const saved = () => {
    try {
      return (JSON.parse(readFileSync(join(root, 'objects.json'), 'utf8')) as { objects: KubeObject[] }).objects;
    } catch {
      return undefined;
    }
  };
  const job = await eventually(
    () => {
      const j = saved()?.find((o) => o.kind === 'Job') as Job | undefined;
      return j?.status?.conditions?.some((c) => c.type === 'Complete') ? j : undefined;
    },
    () => `the Job to complete; output:\n${out}`,
    60_000,
  );
  child.kill('SIGTERM');
  expect(await exited).toBe(0);
  expect(job.status).toMatchObject({ succeeded: 3, terminating: 0, ready: 0 });
  expect(job.status?.active).toBeUndefined();
  expect(job.status?.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
    ['SuccessCriteriaMet', 'True', 'CompletionsReached'],
    ['Complete', 'True', 'CompletionsReached'],
  ]);
  const pods = (saved() ?? []).filter((o) => o.kind === 'Pod') as unknown as Pod[];
  expect(pods.map((p) => p.status?.phase)).toEqual(['Succeeded', 'Succeeded', 'Succeeded']);
  for (const pod of pods) {
    expect(pod.metadata.name).toMatch(/^count-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(pod.metadata.labels?.['job-name']).toBe('count');
    expect(pod.metadata.finalizers).toBeUndefined();
  }
  expect(out).toMatch(/job\/count: Job completed/);
  expect(out).not.toMatch(/SyncFailed|FailedCreate|FailedDelete/);
}, 90_000);
