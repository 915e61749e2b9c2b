// knode apply's task list for workloads that do not make it, and knode
// delete -f's cascades, through bin/run.js on the embedded runtime. A Job
// whose only pod fails (backoffLimit 0), a Deployment whose pod never
// gets ready and one whose pod crash-loops, cut by --timeout: each
// workload's task fails with kubectl's reason, its pods under it with
// theirs (a crashing container with the logs command that shows why), and
// apply exits 1. Then a
// Deployment deleted with --cascade=orphan (the garbage collector's orphan
// finalizer runs to its end), and one in the foreground whose pod takes its
// grace period to stop. Last, a claim that outlives the Deployment using it.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { Pod } from '../../src/engine/api/v1.js';
import type { Deployment, KubeObject } from '../../src/engine/api/workloads.js';
import { knode } from '../helpers/cli.js';
import { eventually } from '../helpers/runtimes.js';

const root = mkdtempSync(join(tmpdir(), 'knode-apply-workloads-'));

afterAll(async () => {
  await knode(['runtime', 'stop', '--root-dir', root]);
}, 60_000);

/** The objects the local controllers saved under root. */
const saved = (): KubeObject[] => {
  try {
    return (JSON.parse(readFileSync(join(root, 'objects.json'), 'utf8')) as { objects: KubeObject[] }).objects;
  } catch {
    return []; // between the writer's rename and our read
  }
};

/** A Deployment of NAME whose container sleeps, with more YAML for its container and its pod spec. */
const sleeper = (name: string, replicas: number, more: { container?: string; pod?: string } = {}) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: { app: ${name} }
  template:
    metadata:
      labels: { app: ${name} }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: main
          image: busybox:1.36
          command: ["sh", "-c", "while :; do sleep 1; done"]
${more.container ?? ''}${more.pod ?? ''}`;

const MANIFESTS = `apiVersion: batch/v1
kind: Job
metadata:
  name: fails
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: main
          image: busybox:1.36
          command: ["sh", "-c", "exit 3"]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: never
spec:
  replicas: 1
  selector:
    matchLabels: { app: never }
  template:
    metadata:
      labels: { app: never }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: main
          image: busybox:1.36
          command: ["sleep", "600"]
          readinessProbe:
            exec: { command: ["false"] }
            periodSeconds: 1
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: crashes
spec:
  replicas: 1
  selector:
    matchLabels: { app: crashes }
  template:
    metadata:
      labels: { app: crashes }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: main
          image: busybox:1.36
          command: ["sh", "-c", "echo cannot start; exit 1"]
          # Never ready in the moment it runs: its rollout is not done by that moment.
          readinessProbe:
            exec: { command: ["false"] }
`;

it('fails the Job and the Deployment not ready at --timeout, each after its pods, with their reasons, and exits 1', async () => {
  const file = join(root, 'failing.yaml');
  writeFileSync(file, MANIFESTS);
  const res = await knode(['apply', '-f', file, '--timeout', '6s', '--root-dir', root, '--node-name', 'e2e', '-o', 'json'], {
    timeoutMs: 60_000,
  });
  expect(res.code, res.stderr).toBe(1);
  // stdout holds the List alone.
  const kinds = (JSON.parse(res.stdout) as { items: { kind: string }[] }).items.map((o) => o.kind);
  expect(kinds).toEqual(['Job', 'Pod', 'Deployment', 'ReplicaSet', 'Pod', 'Deployment', 'ReplicaSet', 'Pod']);
  const lines = res.stderr.split('\n');
  const at = (pattern: RegExp) => lines.findIndex((l) => pattern.test(l));
  const jobPod = at(
    /^✖ fails-[bcdfghjklmnpqrstvwxz2456789]{5} {2}0\/1 {2}Error \[FAILED: fails-\w+: Error: container main exited with code 3\]$/,
  );
  const job = at(
    /^✖ job\.batch\/fails {2}0\/1 complete, 1 failed \[FAILED: job "fails" failed: BackoffLimitExceeded: Job has reached the specified backoff limit\]$/,
  );
  const deploymentPod = at(/^✖ never-\w+-\w{5} {2}0\/1 {2}Running \[FAILED: never-\S+: Running: 0\/1 ready\]$/);
  const deployment = at(/^✖ deployment\.apps\/never {2}0\/1 ready \[FAILED: timed out after 6s\]$/);
  expect(
    [jobPod, job, deploymentPod, deployment].every((i) => i >= 0),
    res.stderr,
  ).toBe(true);
  expect(jobPod).toBeLessThan(job);
  expect(deploymentPod).toBeLessThan(deployment);
  expect(res.stderr).toContain('3 workloads: 0 ready, 3 not');

  // A pod that crashes says which container and the command that shows why, and that command does.
  const crashed =
    /^✖ (crashes-\w+-\w{5}) {2}0\/1 {2}\w+ .*\[FAILED: \S+: \w+: container main exited with code 1 \(knode logs (\S+) -c main( --previous)?\)\]$/m.exec(
      res.stderr,
    );
  expect(crashed, res.stderr).not.toBeNull();
  expect(crashed![2]).toBe(crashed![1]);
  const logs = await knode(['logs', crashed![2], '-c', 'main', ...(crashed![3] ? ['--previous'] : []), '--root-dir', root]);
  expect(logs.stdout, logs.stderr).toBe('cannot start\n');
}, 90_000);

it("deletes a Deployment with --cascade=orphan: its ReplicaSet and pod stay and run on; a bad value is kubectl's error", async () => {
  const file = join(root, 'orphans.yaml');
  writeFileSync(
    file,
    `apiVersion: apps/v1
kind: Deployment
metadata:
  name: kept
spec:
  replicas: 1
  selector:
    matchLabels: { app: kept }
  template:
    metadata:
      labels: { app: kept }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: main
          image: busybox:1.36
          command: ["sleep", "600"]
---
apiVersion: v1
kind: Service
metadata:
  name: kept
spec:
  selector: { app: kept }
  ports: [{ port: 80 }]
`,
  );
  const at = ['--root-dir', root, '--node-name', 'e2e'];
  const applied = await knode(['apply', '-f', file, ...at], { timeoutMs: 60_000 });
  expect(applied.code, applied.stderr).toBe(0);
  // A kind no node runs is named once, by file and document, and stops nothing.
  expect(
    applied.stderr.match(/^Warning: .*orphans\.yaml, document 1, Service "kept": a Service is not run on a node; skipped/gm),
  ).toHaveLength(1);
  const bad = await knode(['delete', '-f', file, '--cascade', 'yes', ...at]);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain('error: invalid cascade value (yes). Must be "background", "foreground", or "orphan"');

  const res = await knode(['delete', '-f', file, '--cascade=orphan', ...at], { timeoutMs: 60_000 });
  expect(res.code, res.stderr).toBe(0);
  expect(res.stdout).toBe('deployment.apps "kept" deleted from default namespace\n');
  const status = await knode(['status', '--root-dir', root]);
  expect(status.stdout).not.toMatch(/deployment\.apps\/kept/);
  expect(status.stdout).toMatch(/^replicaset\.apps\/kept-\w+ +1 +1 +1 /m);
  expect(status.stdout).toMatch(/^kept-\w+-\w{5} +1\/1 +Running /m);
  // The orphan finalizer did its work and went with the Deployment: the ReplicaSet has no owner, nothing is left marked.
  const kept = saved().filter((o) => o.metadata.name?.startsWith('kept'));
  expect(kept.map((o) => [o.kind, o.metadata.deletionTimestamp, o.metadata.finalizers])).toEqual([
    ['ReplicaSet', undefined, undefined],
    ['Pod', undefined, undefined],
  ]);
  expect(kept[0].metadata.ownerReferences).toBeUndefined();

  // No node runs: describe takes the pod's spec from what the controllers saved, its state from the runtime.
  const pod = /^(kept-\w+-\w{5}) /m.exec(status.stdout)![1];
  const described = await knode(['describe', 'pod', pod, '--root-dir', root]);
  expect(described.code, described.stderr).toBe(0);
  expect(described.stderr).toMatch(/describing what the runtime holds, with the spec the node saved/);
  expect(described.stdout).toMatch(/^Controlled By: +ReplicaSet\/kept-\w+$/m);
  expect(described.stdout).toMatch(/^ {6}sleep\n {6}600$/m);
  expect(described.stdout).toMatch(/^ {4}State: +Running$/m);
  expect(described.stdout).toMatch(/^QoS Class: +BestEffort$/m);
  expect(described.stdout).toMatch(/^IP: +\d+\.\d+\.\d+\.\d+$/m);
}, 90_000);

it('deletes a Deployment in the foreground: it waits, marked with foregroundDeletion, while its pod stops, then all go', async () => {
  const file = join(root, 'slow.yaml');
  // PID 1 ignores SIGTERM: the pod takes its whole 3 s grace period to stop.
  writeFileSync(
    file,
    `apiVersion: apps/v1
kind: Deployment
metadata:
  name: slow
spec:
  replicas: 1
  selector:
    matchLabels: { app: slow }
  template:
    metadata:
      labels: { app: slow }
    spec:
      terminationGracePeriodSeconds: 3
      containers:
        - name: main
          image: busybox:1.36
          command: ["sh", "-c", "trap '' TERM; while :; do sleep 0.2; done"]
`,
  );
  const at = ['--root-dir', root, '--node-name', 'e2e'];
  const applied = await knode(['apply', '-f', file, ...at], { timeoutMs: 60_000 });
  expect(applied.code, applied.stderr).toBe(0);
  const slow = (o: KubeObject) => o.metadata.name?.startsWith('slow');
  // As kubectl, the line comes once the deletion is requested: the objects are still there, marked.
  let leftAtLine: number | undefined;
  const onStdout = () => (leftAtLine ??= saved().filter(slow).length);
  const deleting = knode(['delete', '-f', file, ...at], { timeoutMs: 60_000, onStdout });
  const marked = await eventually(() => {
    const objects = saved().filter(slow);
    return objects.length === 3 && objects.every((o) => o.metadata.deletionTimestamp) ? objects : undefined;
  }, 'the Deployment, its ReplicaSet and its pod marked');
  const finalizers = Object.fromEntries(marked.map((o) => [o.kind, o.metadata.finalizers]));
  expect(finalizers).toEqual({ Deployment: ['foregroundDeletion'], ReplicaSet: ['foregroundDeletion'], Pod: undefined });
  const res = await deleting;
  expect(res.code, res.stderr).toBe(0);
  expect(res.stdout).toBe('deployment.apps "slow" deleted from default namespace\n');
  expect(leftAtLine).toBe(3);
  expect(saved().filter(slow)).toEqual([]);
}, 90_000);

it('brings a changed ConfigMap into the files of a running pod that mounts it; the pod is ready without waiting its probe period', async () => {
  const file = join(root, 'site.yaml');
  const manifest = (page: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: site
data:
  index.html: ${page}
---
${sleeper('site', 1, {
  container: `          readinessProbe:
            exec: { command: ["true"] }
            periodSeconds: 300
          # Succeeds once only: run again, it fails, and the container is restarted.
          startupProbe:
            exec: { command: ["sh", "-c", "f=\${KNODE_MOUNT_SCRATCH:-/scratch}/started; test ! -e $f && touch $f"] }
            periodSeconds: 1
            failureThreshold: 1
          volumeMounts:
            - { name: site, mountPath: /site }
            - { name: scratch, mountPath: /scratch }
`,
  pod: `      volumes:
        - name: site
          configMap: { name: site }
        - name: scratch
          emptyDir: {}
`,
})}`;
  const at = ['--root-dir', root, '--node-name', 'e2e'];
  // Without image file systems (no registries.yaml here) the runtime names the mount's host path in KNODE_MOUNT_SITE.
  const read = ['sh', '-c', 'cat ${KNODE_MOUNT_SITE:-/site}/index.html'];
  const page = async () => (await knode(['exec', 'deploy/site', '--root-dir', root, '--', ...read])).stdout;
  writeFileSync(file, manifest('first'));
  // The probe runs once the container starts, not a random part of its 300 s period later, as the kubelet's status asks it.
  const first = await knode(['apply', '-f', file, '--timeout', '20s', ...at], { timeoutMs: 60_000 });
  expect(first.code, first.stderr).toBe(0);
  expect(await page()).toBe('first');
  // No node runs between the applies: the second one's node writes the file as the kubelet's next sync would.
  writeFileSync(file, manifest('second'));
  // The second node keeps the pod's readiness until its probe runs, as a restarted kubelet does.
  const second = await knode(['apply', '-f', file, '--timeout', '20s', ...at], { timeoutMs: 60_000 });
  expect(second.code, second.stderr).toBe(0);
  expect(await page()).toBe('second');
  // kubectl apply's word for what each apply did to the ConfigMap.
  expect(first.stderr).toMatch(/^configmap\/site created$/m);
  expect(second.stderr).toMatch(/^configmap\/site configured$/m);
  const third = await knode(['apply', '-f', file, '--timeout', '20s', ...at], { timeoutMs: 60_000 });
  expect(third.stderr).toMatch(/^configmap\/site unchanged$/m);
  // The saved Deployment is still available, its container still started and never restarted: the second
  // node kept the Started the status showed, as a restarted kubelet does, and ran no startup probe again.
  const deployment = saved().find((o) => o.kind === 'Deployment' && o.metadata.name === 'site') as Deployment | undefined;
  expect(deployment?.status?.conditions?.find((c) => c.type === 'Available')?.status).toBe('True');
  const sitePod = saved().find((o) => o.kind === 'Pod' && o.metadata.name?.startsWith('site-')) as Pod | undefined;
  expect(sitePod?.status?.containerStatuses?.[0]).toMatchObject({ started: true, ready: true, restartCount: 0 });
  const deleted = await knode(['delete', '-f', file, '--now', ...at], { timeoutMs: 60_000 });
  expect(deleted.code, deleted.stderr).toBe(0);
}, 90_000);

it('updates an object of the same name from another file, as kubectl apply does, and delete -f of either file deletes it', async () => {
  const [a, b] = [join(root, 'dup-a.yaml'), join(root, 'dup-b.yaml')];
  writeFileSync(a, sleeper('dup', 1));
  writeFileSync(b, sleeper('dup', 2));
  const at = ['--root-dir', root, '--node-name', 'e2e'];
  const first = await knode(['apply', '-f', a, '--timeout', '20s', ...at], { timeoutMs: 60_000 });
  expect(first.code, first.stderr).toBe(0);
  // The second file's Deployment is the first's, scaled: not left to the first file, unread now.
  const second = await knode(['apply', '-f', b, '--timeout', '20s', ...at], { timeoutMs: 60_000 });
  expect(second.code, second.stderr).toBe(0);
  expect(second.stderr).toContain('deployment "dup" successfully rolled out');
  const dup = saved().find((o) => o.kind === 'Deployment' && o.metadata.name === 'dup') as Deployment | undefined;
  expect(dup?.spec.replicas).toBe(2);
  expect(dup?.status?.readyReplicas).toBe(2);
  const deleted = await knode(['delete', '-f', a, '--now', ...at], { timeoutMs: 60_000 });
  expect(deleted).toMatchObject({ code: 0, stdout: 'deployment.apps "dup" deleted from default namespace\n' });
  expect(saved().filter((o) => o.metadata.name?.startsWith('dup'))).toEqual([]);
}, 90_000);

it('keeps a claim past its pods: get and describe show it bound and used, delete -f keeps it without --claims', async () => {
  const file = join(root, 'claim.yaml');
  const claim = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: notes
  labels: { app: notes }
spec:
  accessModes: [ReadWriteOnce]
  resources: { requests: { storage: 64Mi } }
---
`;
  const mount = `          volumeMounts: [{ name: notes, mountPath: /notes }]\n`;
  writeFileSync(
    file,
    claim +
      sleeper('notes', 1, { container: mount, pod: `      volumes: [{ name: notes, persistentVolumeClaim: { claimName: notes } }]\n` }),
  );
  const at = ['--root-dir', root, '--node-name', 'e2e'];
  const applied = await knode(['apply', '-f', file, '--timeout', '20s', ...at], { timeoutMs: 60_000 });
  expect(applied.code, applied.stderr).toBe(0);
  const pod = saved().find((o) => o.kind === 'Pod' && o.metadata.name?.startsWith('notes-'))!.metadata.name!;
  expect(await knode(['get', 'pvc', ...at.slice(0, 2)])).toMatchObject({
    code: 0,
    stdout: expect.stringMatching(
      /^NAME +STATUS +VOLUME +CAPACITY +ACCESS MODES +STORAGECLASS +VOLUMEATTRIBUTESCLASS +AGE\nnotes +Bound +<unset> +\d+s\n$/,
    ),
  });
  const described = await knode(['describe', 'pvc', 'notes', ...at.slice(0, 2)]);
  expect(described.code, described.stderr).toBe(0);
  expect(described.stdout).toMatch(/^Name: +notes\nNamespace: +default\nStorageClass: +\nStatus: +Bound\nVolume: +\nLabels: +app=notes\n/);
  expect(described.stdout).toContain(`\nUsed By:       ${pod}\n`);
  const deleted = await knode(['delete', '-f', file, '--now', ...at], { timeoutMs: 60_000 });
  expect(deleted.code, deleted.stderr).toBe(0);
  expect(deleted.stderr).toContain('persistentvolumeclaim "notes" kept (give --claims to delete claims)');
  const after = await knode(['describe', 'persistentvolumeclaims/notes', ...at.slice(0, 2)]);
  expect(after.stdout).toContain('\nUsed By:       <none>\n');
}, 90_000);
