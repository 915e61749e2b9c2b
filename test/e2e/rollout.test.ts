// knode rollout status and history as kubectl's: a running node's
// Deployment followed through a rollout its readiness probe slows, then a
// second template and the history of both; and rollout status on what an
// apply left, with no node to move it on; through bin/run.js on the
// embedded runtime.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { knode, startKnodeRun, stopKnodeRun, type RunningNode } from '../helpers/cli.js';
import { eventually } from '../helpers/runtimes.js';

const root = mkdtempSync(join(tmpdir(), 'knode-rollout-'));
const applyRoot = mkdtempSync(join(tmpdir(), 'knode-rollout-apply-'));
const dir = join(root, 'manifests');
let node: RunningNode | undefined;

afterAll(async () => {
  if (node) await stopKnodeRun(node, ['--root-dir', root]);
  await knode(['runtime', 'stop', '--root-dir', applyRoot]);
}, 60_000);

/** A two-replica Deployment NAME whose pods read ready only after DELAY seconds (never, for a negative one). */
function deployment(name: string, delay: number, version = 'v1'): string {
  const probe = delay < 0 ? 'test -e /never' : 'true';
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 2
  selector:
    matchLabels: { app: ${name} }
  template:
    metadata:
      labels: { app: ${name}, version: ${version} }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: main
          image: busybox:1.36
          command: ["sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1 & wait $!; done"]
          readinessProbe:
            exec: { command: ["sh", "-c", "${probe}"] }
            initialDelaySeconds: ${Math.max(delay, 0)}
            periodSeconds: 1
`;
}

describe('knode rollout status and history', () => {
  it("follows a running node's rollout line by line until it is done, and refuses what kubectl refuses", async () => {
    mkdirSync(dir);
    writeFileSync(join(dir, 'slow.yaml'), deployment('slow', 3));
    node = startKnodeRun(dir, root);
    // The node has read the file once the saved objects hold the Deployment.
    await eventually(async () => (await knode(['status', '--root-dir', root])).stdout.includes('deployment.apps/slow'), 'the Deployment');
    const res = await knode(['rollout', 'status', 'deploy/slow', '--root-dir', root], { timeoutMs: 60_000 });
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines.at(-1)).toBe('deployment "slow" successfully rolled out');
    // It waited for the probes: the lines before say why, each once.
    expect(lines[0]).toMatch(/^Waiting for deployment "slow" (spec update to be observed|rollout to finish: .*)\.\.\.$/);
    expect(lines).toContain('Waiting for deployment "slow" rollout to finish: 0 of 2 updated replicas are available...');
    expect(new Set(lines).size).toBe(lines.length);
    // Done: once, at once; TYPE alone is every one of the type.
    expect(await knode(['rollout', 'status', 'deployments', '--root-dir', root])).toMatchObject({
      code: 0,
      stdout: 'deployment "slow" successfully rolled out\n',
    });
    // A new template: a second ReplicaSet, and the history of both.
    writeFileSync(join(dir, 'slow.yaml'), deployment('slow', 0, 'v2'));
    await eventually(
      async () => ((await knode(['status', '--root-dir', root])).stdout.match(/^replicaset\.apps\/slow-/gm) ?? []).length === 2,
      'the second ReplicaSet',
    );
    const again = await knode(['rollout', 'status', 'deploy/slow', '--timeout', '50s', '--root-dir', root], { timeoutMs: 60_000 });
    expect(again.stdout.trimEnd().split('\n').at(-1), again.stderr).toBe('deployment "slow" successfully rolled out');
    expect(await knode(['rollout', 'history', 'deploy/slow', '--root-dir', root])).toMatchObject({
      code: 0,
      stdout: 'deployment.apps/slow \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n',
    });
    const second = await knode(['rollout', 'history', 'deployment', 'slow', '--revision', '2', '--root-dir', root]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(
      /^deployment\.apps\/slow with revision #2\nPod Template:\n {2}Labels:\tapp=slow\n\t+pod-template-hash=\w+\n\t+version=v2\n/,
    );
    expect(await knode(['rollout', 'history', 'deploy/slow', '--revision', '3', '--root-dir', root])).toMatchObject({
      code: 1,
      stderr: 'error: unable to find the specified revision\n',
    });
    expect(await knode(['rollout', 'status', 'deploy/nope', '--root-dir', root])).toMatchObject({
      code: 1,
      stderr: 'Error from server (NotFound): deployments.apps "nope" not found\n',
    });
    expect(await knode(['rollout', 'status', 'job/slow', '--root-dir', root])).toMatchObject({
      code: 1,
      stderr: 'error: no status viewer has been implemented for Job.batch\n',
    });
    expect(await knode(['rollout', 'status', 'sts', '--root-dir', root])).toMatchObject({
      code: 0,
      stderr: 'No resources found in default namespace.\n',
    });
  }, 120_000);

  it('says the state once without --watch, and refuses to wait where no node runs', async () => {
    const file = join(applyRoot, 'stuck.yaml');
    writeFileSync(file, deployment('stuck', -1));
    const applied = await knode(['apply', '-f', file, '--timeout', '4s', '--root-dir', applyRoot], { timeoutMs: 60_000 });
    expect(applied.code).toBe(1);
    const waiting = 'Waiting for deployment "stuck" rollout to finish: 0 of 2 updated replicas are available...\n';
    expect(await knode(['rollout', 'status', 'deploy/stuck', '--watch=false', '--root-dir', applyRoot])).toMatchObject({
      code: 0,
      stdout: waiting,
    });
    const refused = await knode(['rollout', 'status', 'deploy/stuck', '--root-dir', applyRoot]);
    expect(refused).toMatchObject({ code: 1, stdout: waiting });
    expect(refused.stderr).toContain(`no node runs under ${applyRoot}: nothing moves the rollout of deployments.apps/stuck on`);
  }, 90_000);
});
