// A Job in `knode run --static-dir` on the embedded runtime: the local Job
// controller makes its pods, the node runs them through the api source, and
// the Job's status in the saved store ends as kube-controller-manager's. A
// Job with a TTL of 0 goes, with its pod, once finished; a ConfigMap whose
// owner does not exist is collected.
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

/** A Job the TTL-after-finished controller deletes as it finishes, in the foreground, and a ConfigMap whose owner is not there. */
const COLLECTED = `apiVersion: batch/v1
kind: Job
metadata:
  name: once
spec:
  ttlSecondsAfterFinished: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: work
          image: busybox:1.36
          command: ["true"]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: stray
  ownerReferences:
    - { apiVersion: apps/v1, kind: Deployment, name: gone, uid: 9b1c2d3e-0000-4000-8000-000000000000 }
data: { a: b }
`;

it('runs a Job of 3 completions, 2 at a time, to Complete, its status saved in objects.json', async () => {
  const dir = join(root, 'manifests');
  mkdirSync(dir);
  writeFileSync(join(dir, 'job.yaml'), `${JOB}---\n${COLLECTED}`);
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
      const objects = saved() ?? [];
      const j = objects.find((o) => o.kind === 'Job' && o.metadata.name === 'count') as Job | undefined;
      // The Job with a TTL of 0 finished, then went with its pod; the foreground cascade ended (nothing left marked).
      const onceGone =
        /job default\/once \[Completed\] Job completed/.test(out) && !objects.some((o) => o.metadata.name?.startsWith('once'));
      return j?.status?.conditions?.some((c) => c.type === 'Complete') && onceGone ? j : undefined;
    },
    () => `the Job to complete, and once to go; output:\n${out}`,
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
  // The garbage collector took the ConfigMap whose owner does not exist.
  expect((saved() ?? []).map((o) => `${o.kind}/${o.metadata.name}`)).not.toContain('ConfigMap/stray');
  const pods = (saved() ?? []).filter((o) => o.kind === 'Pod') as unknown as Pod[];
  expect(pods.map((p) => p.status?.phase)).toEqual(['Succeeded', 'Succeeded', 'Succeeded']);
  for (const pod of pods) {
    expect(pod.metadata.name).toMatch(/^count-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(pod.metadata.labels?.['job-name']).toBe('count');
    expect(pod.metadata.finalizers).toBeUndefined();
  }
  expect(out).toMatch(/job default\/count \[Completed\] Job completed/);
  expect(out).not.toMatch(/SyncFailed|FailedCreate|FailedDelete/);

  // A node started again over the finished pods only cleans them up, as the kubelet does (kubernetes#105523):
  // nothing of them runs, so none is told stopping.
  const again = spawn(process.execPath, [cliEntry, 'run', '--static-dir', dir, '--root-dir', root, '--node-name', 'e2e', '-v', '3'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let restarted = '';
  again.stdout!.on('data', (d) => (restarted += d));
  again.stderr!.on('data', (d) => (restarted += d));
  const exitedAgain = new Promise<number | null>((resolve) => again.once('exit', (code) => resolve(code)));
  const names = pods.map((p) => p.metadata.name!);
  await eventually(
    () => names.every((n) => new RegExp(`WorkerFinished +default/${n} `).test(restarted)),
    () => `each finished pod's worker to end; output:\n${restarted}`,
    30_000,
  );
  again.kill('SIGTERM');
  expect(await exitedAgain).toBe(0);
  expect(restarted).not.toMatch(/PodTerminating +default\/count-/);
  expect(restarted).not.toMatch(/SyncFailed/);
}, 120_000);
