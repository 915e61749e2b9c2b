import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { restartInStaticDir, rfc3339 } from '../../../src/cli/rollout-restart.js';
import { scaleInStaticDir } from '../../../src/cli/scale-static.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const CONFIG = `# the page
apiVersion: v1
kind: ConfigMap
metadata: {name: site}
data: {index: hello}
`;
const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the front
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers: [{name: c, image: busybox:1.36}]
`;
const JOB = `apiVersion: batch/v1
kind: Job
metadata: {name: once}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox:1.36}]
`;

function staticDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'knode-restart-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const ref = (kind: string, name: string) => ({ kind, namespace: 'default', name });
const NOW = Date.parse('2026-12-08T00:10:00.250Z');

describe('rollout restart in a static dir', () => {
  it("writes kubectl's annotation into the workload's pod template, the rest of the file as it was", async () => {
    const dir = staticDir({ 'site.yaml': `${CONFIG}---\n${DEPLOYMENT}` });
    const outcomes = await restartInStaticDir(dir, [ref('Deployment', 'web')], NOW, () => true);
    expect(outcomes).toEqual([{ out: 'deployment.apps/web restarted' }]);
    const text = readFileSync(join(dir, 'site.yaml'), 'utf8');
    expect(text.startsWith(`${CONFIG}---\n`)).toBe(true);
    expect(text).toContain('name: web # the front');
    // Read as the node reads manifests (YAML 1.1, where a bare time is a timestamp): a string.
    const deployment = parse(text.split('---\n')[1], { version: '1.1' }) as { spec: { template: { metadata: unknown } } };
    expect(deployment.spec.template.metadata).toEqual({
      labels: { app: 'web' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-12-08T00:10:00Z' },
    });
    // A second restart replaces the stamp.
    await restartInStaticDir(dir, [ref('Deployment', 'web')], NOW + 60_000, () => true);
    expect(readFileSync(join(dir, 'site.yaml'), 'utf8')).toContain(`kubectl.kubernetes.io/restartedAt: "${rfc3339(NOW + 60_000)}"`);
  });

  it('refuses as kubectl does what it cannot restart, and names a workload whose manifest is not there; writes nothing then', async () => {
    const paused = DEPLOYMENT.replace('name: web # the front', 'name: still').replace(
      'spec:\n  selector',
      'spec:\n  paused: true\n  selector',
    );
    const dir = staticDir({ 'a.yaml': JOB, 'b.yaml': paused });
    const outcomes = await restartInStaticDir(
      dir,
      [ref('Job', 'once'), ref('Deployment', 'still'), ref('Deployment', 'gone'), ref('StatefulSet', 'elsewhere')],
      NOW,
      (r) => r.name === 'elsewhere',
    );
    expect(outcomes).toEqual([
      { error: 'error: jobs.batch "once" restarting is not supported' },
      { error: `error: deployments.apps "still" can't restart paused deployment (run rollout resume first)` },
      { error: 'Error from server (NotFound): deployments.apps "gone" not found' },
      {
        error: `error: statefulsets.apps "elsewhere": its manifest is not a document in the node's --static-dir (${dir}), where restart writes: edit it where it comes from`,
      },
    ]);
    expect(readFileSync(join(dir, 'a.yaml'), 'utf8')).toBe(JOB);
    expect(readFileSync(join(dir, 'b.yaml'), 'utf8')).toBe(paused);
  });
});

describe('scale in a static dir', () => {
  it('writes spec.replicas, minding --current-replicas, and stops at the first refusal as kubectl does', async () => {
    const dir = staticDir({ 'site.yaml': DEPLOYMENT, 'job.yaml': JOB });
    expect(await scaleInStaticDir(dir, [ref('Deployment', 'web')], 3, 1, () => true)).toEqual([{ out: 'deployment.apps/web scaled' }]);
    expect(parse(readFileSync(join(dir, 'site.yaml'), 'utf8'))).toMatchObject({ metadata: { name: 'web' }, spec: { replicas: 3 } });
    expect(readFileSync(join(dir, 'site.yaml'), 'utf8')).toContain('name: web # the front');
    expect(await scaleInStaticDir(dir, [ref('Deployment', 'web')], 5, 2, () => true)).toEqual([
      { error: 'error: Expected replicas to be 2, was 3' },
    ]);
    expect(await scaleInStaticDir(dir, [ref('Job', 'once'), ref('Deployment', 'web')], 5, -1, () => true)).toEqual([
      { error: 'Error from server (NotFound): the server could not find the requested resource' },
    ]);
    expect(parse(readFileSync(join(dir, 'site.yaml'), 'utf8'))).toMatchObject({ spec: { replicas: 3 } });
  });
});
