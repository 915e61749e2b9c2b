// Workloads through the real path: `knode run --static-dir` on the embedded
// runtime, a ConfigMap, a Secret and a Deployment in the directory, the
// local controllers making the pods, the node running them. Without image
// file systems the runtime names a mount's host path in KNODE_MOUNT_<NAME>.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { knode, startKnodeRun } from '../helpers/cli.js';
import { eventually, repoRoot } from '../helpers/runtimes.js';

const root = mkdtempSync(join(tmpdir(), 'knode-workloads-'));
const dir = join(root, 'manifests');
mkdirSync(dir);

afterAll(async () => {
  await knode(['runtime', 'stop', '--root-dir', root]);
});

function manifest(version: string): string {
  return `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  GREETING: hello ${version}
---
apiVersion: v1
kind: Secret
metadata:
  name: creds
stringData:
  password: s3cret
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web, version: "${version}" }
    spec:
      terminationGracePeriodSeconds: 5
      containers:
        - name: web
          image: busybox:1.36
          command: ["sh", "-c", "trap 'exit 0' TERM; echo \\"$GREETING $(cat \${KNODE_MOUNT_CREDS:-/creds}/password)\\"; while true; do sleep 1 & wait $!; done"]
          envFrom:
            - configMapRef: { name: settings }
          volumeMounts:
            - { name: creds, mountPath: /creds }
      volumes:
        - name: creds
          secret: { secretName: creds }
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports: [{ port: 80 }]
`;
}

interface PodRow {
  metadata: { name: string; labels: Record<string, string>; ownerReferences?: { kind: string; name: string }[] };
  status: { phase: string };
}

/** The node's pods that are Running, by name. */
async function runningPods(): Promise<PodRow[]> {
  const res = await knode(['status', '-o', 'json', '--root-dir', root]);
  if (res.code !== 0) return [];
  return (JSON.parse(res.stdout).items as PodRow[]).filter((p) => p.status.phase === 'Running');
}

describe('a Deployment in the static dir', () => {
  it('runs as ReplicaSet pods with its ConfigMap and Secret, survives a restart, rolls out an edit, and goes with its file', async () => {
    const file = join(dir, 'web.yaml');
    writeFileSync(file, manifest('v1'));
    const first = startKnodeRun(dir, root, ['--output', 'plain']);
    const v1 = await eventually(
      async () => {
        const pods = await runningPods();
        return pods.length === 2 ? pods : undefined;
      },
      () => `two web pods Running; the node said:\n${first.output()}`,
      60_000,
    );
    const hash = v1[0].metadata.labels['pod-template-hash'];
    for (const pod of v1) {
      expect(pod.metadata.name).toMatch(new RegExp(`^web-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
      expect(pod.metadata.ownerReferences).toMatchObject([{ kind: 'ReplicaSet', name: `web-${hash}` }]);
    }
    expect(first.output()).toMatch(/ManifestSkipped .*Service "web": a Service is not run on a node/);
    const logs = await eventually(async () => {
      const res = await knode(['logs', v1[0].metadata.name, '--root-dir', root]);
      return res.stdout.includes('hello') ? res.stdout : undefined;
    }, 'the pod to log its greeting');
    expect(logs).toContain('hello v1 s3cret');
    // kubectl's TYPE/NAME, through the running node: one of the Deployment's two pods.
    const byType = await knode(['logs', 'deployment/web', '--root-dir', root]);
    expect(byType.code, byType.stderr).toBe(0);
    const picked = /^Found 2 pods, using pod\/(\S+)$/m.exec(byType.stderr)?.[1];
    expect(v1.map((p) => p.metadata.name)).toContain(picked);
    expect(byType.stdout).toContain('hello v1 s3cret');
    // --all-pods: each of its pods, each line after its source, and no note of the one picked.
    const allPods = await knode(['logs', 'deployment/web', '--all-pods', '--root-dir', root]);
    expect(allPods).toMatchObject({ code: 0, stderr: '' });
    for (const pod of v1) expect(allPods.stdout).toContain(`[pod/${pod.metadata.name}/web] hello v1 s3cret`);
    // kubectl's -l through the running node: every pod it matches, one after the other, each line after its source.
    const bySelector = await knode(['logs', '-l', 'app=web,version in (v1)', '--prefix', '--since', '1h', '--root-dir', root]);
    expect(bySelector.code, bySelector.stderr).toBe(0);
    for (const pod of v1) expect(bySelector.stdout).toContain(`[pod/${pod.metadata.name}/web] hello v1 s3cret`);
    const limited = await knode(['logs', v1[0].metadata.name, '--limit-bytes', '5', '--root-dir', root]);
    expect(limited).toMatchObject({ code: 0, stdout: 'hello' });
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const sinceLater = await knode(['logs', v1[0].metadata.name, '--since-time', later, '--root-dir', root]);
    expect(sinceLater).toMatchObject({ code: 0, stdout: '' });
    const none = await knode(['logs', '-l', 'app=none', '--root-dir', root]);
    expect(none).toMatchObject({ code: 0, stdout: '', stderr: 'No resources found in default namespace.\n' });
    const execByType = await knode(['exec', 'deploy/web', '--root-dir', root, '--', 'sh', '-c', 'echo $HOSTNAME']);
    expect(execByType.code, execByType.stderr).toBe(0);
    expect(v1.map((p) => `${p.metadata.name}\n`)).toContain(execByType.stdout);
    // The running node's workloads are its own: a delete beside it, by name or by file, is refused and stops nothing.
    for (const args of [['deploy/web'], ['-f', file]]) {
      const refused = await knode(['delete', ...args, '--root-dir', root]);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toContain(
        args[0] === '-f'
          ? `Error: the node running under ${root} runs configmap/settings, secret/creds, deployment.apps/web (of ${file}), which it would make again`
          : `Error: the node running under ${root} runs deployment.apps/web, which it would make again`,
      );
    }
    expect(await runningPods()).toHaveLength(2);

    // A restart finds the same pods: same names, nothing created again.
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    const saved = JSON.parse(readFileSync(join(root, 'objects.json'), 'utf8')) as { objects: { kind: string }[] };
    expect(saved.objects.map((o) => o.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'Pod', 'Pod', 'ReplicaSet', 'Secret']);
    const second = startKnodeRun(dir, root, ['--output', 'plain']);
    await eventually(
      () => /PodRunning/.test(second.output()),
      () => `the pods adopted; the node said:\n${second.output()}`,
      30_000,
    );
    expect((await runningPods()).map((p) => p.metadata.name).sort()).toEqual(v1.map((p) => p.metadata.name).sort());
    expect(second.output()).not.toMatch(/ContainerCreated|SuccessfulCreate/);

    // An edit of the template rolls out: a new ReplicaSet, every pod replaced, the new value read.
    writeFileSync(file, manifest('v2'));
    const v2 = await eventually(
      async () => {
        const pods = await runningPods();
        return pods.length === 2 && pods.every((p) => p.metadata.labels.version === 'v2') ? pods : undefined;
      },
      () => `two v2 pods Running and no v1; the node said:\n${second.output()}`,
      60_000,
    );
    expect(v2[0].metadata.labels['pod-template-hash']).not.toBe(hash);
    expect(second.output()).toMatch(
      /WorkloadEvent +deployment default\/web \[ScalingReplicaSet\] Scaled up replica set web-\w+ from 0 to 1/,
    );
    expect(second.output()).toMatch(
      new RegExp(`deployment default/web \\[ScalingReplicaSet\\] Scaled down replica set web-${hash} from 2 to 1`),
    );
    const newLogs = await eventually(async () => {
      const res = await knode(['logs', v2[0].metadata.name, '--root-dir', root]);
      return res.stdout.includes('hello') ? res.stdout : undefined;
    }, 'the new pod to log its greeting');
    expect(newLogs).toContain('hello v2 s3cret');

    // rollout restart: kubectl's annotation written into the file's pod template; every pod replaced by a new ReplicaSet's.
    const v2Hash = v2[0].metadata.labels['pod-template-hash'];
    const restart = await knode(['rollout', 'restart', 'deploy/web', '--root-dir', root]);
    expect(restart).toMatchObject({ code: 0, stdout: 'deployment.apps/web restarted\n', stderr: '' });
    expect(readFileSync(file, 'utf8')).toMatch(/\n {8}kubectl\.kubernetes\.io\/restartedAt: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"\n/);
    const restarted = await eventually(
      async () => {
        const pods = await runningPods();
        return pods.length === 2 && pods.every((p) => p.metadata.labels['pod-template-hash'] !== v2Hash) ? pods : undefined;
      },
      () => `two restarted pods Running and none of before; the node said:\n${second.output()}`,
      60_000,
    );
    expect(restarted.map((p) => p.metadata.labels.version)).toEqual(['v2', 'v2']);
    expect(await knode(['rollout', 'restart', 'deploy/nope', '--root-dir', root])).toMatchObject({
      code: 1,
      stderr: 'Error from server (NotFound): deployments.apps "nope" not found\n',
    });

    // scale: spec.replicas written into the file, the controllers scaling to it; kubectl's precondition.
    expect(await knode(['scale', 'deploy/web', '--replicas', '3', '--root-dir', root])).toMatchObject({
      code: 0,
      stdout: 'deployment.apps/web scaled\n',
    });
    await eventually(
      async () => (await runningPods()).length === 3,
      () => `three web pods Running; the node said:\n${second.output()}`,
      60_000,
    );
    expect(await knode(['scale', '--current-replicas', '2', '--replicas', '1', 'deployment', 'web', '--root-dir', root])).toMatchObject({
      code: 1,
      stderr: 'error: Expected replicas to be 2, was 3\n',
    });

    // The file goes: the Deployment, its ReplicaSets and its pods go with it.
    rmSync(file);
    await eventually(
      async () => (await runningPods()).length === 0,
      () => `every pod gone; the node said:\n${second.output()}`,
      30_000,
    );
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    const after = JSON.parse(readFileSync(join(root, 'objects.json'), 'utf8')) as { objects: { kind: string }[] };
    expect(after.objects).toEqual([]);
  });

  it('knode status lists the workloads knode apply ran, and knode delete -f removes them with their pods', async () => {
    const applyRoot = mkdtempSync(join(tmpdir(), 'knode-workloads-apply-'));
    const file = join(repoRoot, 'examples', 'workloads.yaml');
    try {
      const applied = await knode(['apply', '-f', file, '--root-dir', applyRoot, '--node-name', 'e2e'], { timeoutMs: 90_000 });
      expect(applied.code, applied.stderr).toBe(0);
      const status = await knode(['status', '--root-dir', applyRoot]);
      expect(status.stdout).toMatch(/^deployment\.apps\/greeter +2\/2 +2 +2 +\d+s$/m);
      expect(status.stdout).toMatch(/^job\.batch\/count +Complete +3\/3 +\d+s +\d+s$/m);
      expect(status.stdout).toMatch(/^greeter-\w+-\w{5} +1\/1 +Running /m);
      // kubectl's TYPE/NAME with no node running: the workload and its pods as the apply saved them.
      const greeter = await knode(['logs', 'deploy/greeter', '--root-dir', applyRoot]);
      expect(greeter.code, greeter.stderr).toBe(0);
      const pod = /^Found 2 pods, using pod\/(greeter-\w+-\w{5})$/m.exec(greeter.stderr)?.[1];
      expect(greeter.stdout).toContain(`(${pod})`);
      const exec = await knode(['exec', 'deploy/greeter', '--root-dir', applyRoot, '--', 'sh', '-c', 'echo $HOSTNAME']);
      expect(exec).toMatchObject({ code: 0, stdout: expect.stringMatching(/^greeter-\w+-\w{5}\n$/) });
      const replicas = await knode(['logs', 'deploy/greeter', '--all-pods', '--tail', '1', '--root-dir', applyRoot]);
      expect(replicas).toMatchObject({ code: 0, stderr: '' });
      expect(replicas.stdout.match(/^\[pod\/(greeter-\w+-\w{5})\/greeter\] hello from a Deployment \(\1\)$/gm)).toHaveLength(2);
      const count = await knode(['logs', 'job/count', '--root-dir', applyRoot]);
      expect(count.stderr).toMatch(/^Found 3 pods, using pod\/count-\w{5}$/m);
      // knode get, as kubectl get: one kind alone unprefixed, one named object as itself, kubectl's NotFound.
      const deployments = await knode(['get', 'deploy', '--root-dir', applyRoot]);
      expect(deployments).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(/^NAME +READY +UP-TO-DATE +AVAILABLE +AGE\ngreeter +2\/2 +2 +2 +\d+s\n$/),
      });
      const asJson = await knode(['get', 'deploy/greeter', '-o', 'json', '--root-dir', applyRoot]);
      expect(JSON.parse(asJson.stdout)).toMatchObject({ kind: 'Deployment', metadata: { name: 'greeter' }, status: { readyReplicas: 2 } });
      expect(await knode(['get', 'jobs', 'nope', '--root-dir', applyRoot])).toMatchObject({
        code: 1,
        stderr: 'Error from server (NotFound): jobs.batch "nope" not found\n',
      });
      // What was found, then the NotFound; the types in the order asked for; -n's namespace alone.
      expect(await knode(['get', 'deploy', 'greeter', 'nope', '--root-dir', applyRoot])).toMatchObject({
        code: 1,
        stdout: expect.stringMatching(/^NAME +READY.*\ngreeter +2\/2 /),
        stderr: 'Error from server (NotFound): deployments.apps "nope" not found\n',
      });
      const objects = await knode(['get', 'cm,deploy', '--root-dir', applyRoot]);
      expect(objects.code, objects.stderr).toBe(0);
      expect(objects.stdout).toMatch(/^NAME +DATA +AGE\nconfigmap\/\S+ +\d+ +\d+s\n\nNAME +READY .*\ndeployment\.apps\/greeter /);
      expect(await knode(['get', 'deploy,pods', '-n', 'elsewhere', '--root-dir', applyRoot])).toMatchObject({
        code: 0,
        stdout: '',
        stderr: expect.stringContaining('No resources found in elsewhere namespace.'),
      });
      // kubectl get all -l: the pods and the workloads whose own labels match (the ReplicaSet has the template's).
      const labelled = await knode(['status', '-l', 'app=greeter', '--root-dir', applyRoot]);
      expect(labelled.code, labelled.stderr).toBe(0);
      expect(labelled.stdout.match(/^greeter-\w+-\w{5} /gm)).toHaveLength(2);
      expect(labelled.stdout).toMatch(/^replicaset\.apps\/greeter-\w+ +2 +2 +2 /m);
      expect(labelled.stdout).not.toMatch(/count|job\.batch|deployment\.apps/);
      // Pods named are printed in the order asked, not sorted.
      const [first, second] = labelled.stdout.match(/^greeter-\w+-\w{5}/gm)!;
      const reversed = await knode(['get', 'pods', second, first, '--root-dir', applyRoot]);
      expect(reversed.code, reversed.stderr).toBe(0);
      expect(reversed.stdout.match(/^greeter-\w+-\w{5}/gm)).toEqual([second, first]);
      // rollout restart writes a running node's manifests: with none, it says where the spec lives instead.
      expect(await knode(['rollout', 'restart', 'deploy/greeter', '--root-dir', applyRoot])).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(new RegExp(`^Error: no node runs under ${applyRoot}\nHint: rollout restart writes `)),
      });
      // -l with no node running: the pods whose sandboxes carry the labels, their last line each here.
      const greeters = await knode(['logs', '-l', 'app=greeter', '--tail', '1', '--prefix', '--root-dir', applyRoot]);
      expect(greeters.code, greeters.stderr).toBe(0);
      expect(greeters.stdout).toMatch(
        /^\[pod\/(greeter-\w+-\w{5})\/greeter\] hello from a Deployment \(\1\)\n\[pod\/(greeter-\w+-\w{5})\/greeter\] hello from a Deployment \(\2\)\n$/,
      );
      // kubectl describe of the workloads, from the saved objects.
      // kubectl describe configmap: each key's value under it (no node running: no events kept).
      expect(await knode(['describe', 'cm/greeter', '--root-dir', applyRoot])).toMatchObject({
        code: 0,
        stdout: expect.stringMatching(
          /^Name: +greeter\nNamespace: +default\n[^]*\nData\n====\nGREETING:\n----\nhello from a Deployment\n\n\nBinaryData\n====\n\n$/,
        ),
      });
      const deploy = await knode(['describe', 'deploy', 'greeter', '--root-dir', applyRoot]);
      expect(deploy.code, deploy.stderr).toBe(0);
      expect(deploy.stdout).toMatch(/^Replicas: +2 desired \| 2 updated \| 2 total \| 2 available \| 0 unavailable$/m);
      expect(deploy.stdout).toMatch(/^NewReplicaSet: +greeter-\w+ \(2\/2 replicas created\)$/m);
      const job = await knode(['describe', 'job', 'count', '--root-dir', applyRoot]);
      expect(job.stdout).toMatch(/^Pods Statuses: +0 Active \(0 Ready\) \/ 3 Succeeded \/ 0 Failed$/m);
      // kubectl's TYPE/NAME and TYPE NAME... forms, several objects a blank line apart.
      const byForm = await knode(['describe', 'deployments/greeter', '--root-dir', applyRoot]);
      expect(byForm).toMatchObject({ code: 0, stdout: deploy.stdout });
      // kubectl's TYPE alone: every object of the type; none found is said on stderr, exit 0.
      const everyDeployment = await knode(['describe', 'deployments', '--root-dir', applyRoot]);
      expect(everyDeployment).toMatchObject({ code: 0, stdout: deploy.stdout });
      const everyPod = await knode(['describe', 'pods', '--root-dir', applyRoot]);
      expect(everyPod.stdout.match(/^Name: /gm)).toHaveLength(5);
      const noStatefulSet = await knode(['describe', 'sts', '--root-dir', applyRoot]);
      expect(noStatefulSet).toMatchObject({ code: 0, stdout: '', stderr: 'No resources found in default namespace.\n' });
      // Several objects a blank line apart (no node runs, so no events either way: describe-events.test.ts has them).
      const both = await knode(['describe', '--root-dir', applyRoot, 'deploy/greeter', 'jobs.batch/count']);
      const quiet = await knode(['describe', 'deploy', 'greeter', '--show-events=false', '--root-dir', applyRoot]);
      const quietJob = await knode(['describe', 'job', 'count', '--show-events=false', '--root-dir', applyRoot]);
      expect(both).toMatchObject({ code: 0, stdout: `${quiet.stdout}\n\n${quietJob.stdout}` });
      const withEvents = await knode(['describe', '--root-dir', applyRoot, 'deploy', 'greeter', 'count', '--show-events']);
      expect(withEvents).toMatchObject({ code: 1, stdout: deploy.stdout });
      const bothEvents = await knode(['describe', '--root-dir', applyRoot, 'deploy/greeter', 'jobs/count', '--show-events']);
      expect(bothEvents).toMatchObject({ code: 0, stdout: `${deploy.stdout}\n\n${job.stdout}` });
      // One not found is told, and the others are still described.
      const oneMissing = await knode(['describe', '--root-dir', applyRoot, 'job/nope', 'deploy/greeter', 'deploy/nope']);
      expect(oneMissing).toMatchObject({
        code: 1,
        stdout: quiet.stdout,
        stderr:
          'Error from server (NotFound): jobs.batch "nope" not found\nError from server (NotFound): deployments.apps "nope" not found\n',
      });
      // A name no Deployment has: those it begins, each followed by a blank line, as kubectl's; not in TYPE/NAME.
      const byPrefix = await knode(['describe', 'deployments', 'greet', '--root-dir', applyRoot]);
      expect(byPrefix).toMatchObject({ code: 0, stdout: `${deploy.stdout}\n` });
      const slashed = await knode(['describe', 'deploy/greet', '--root-dir', applyRoot]);
      expect(slashed).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): deployments.apps "greet" not found\n' });
      const noService = await knode(['describe', 'svc/greeter', '--root-dir', applyRoot]);
      expect(noService.code).toBe(2);
      expect(noService.stderr).toContain('the server doesn\'t have a resource type "svc"');
      const noJob = await knode(['describe', 'job', 'nope', '--root-dir', applyRoot]);
      expect(noJob).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): jobs.batch "nope" not found\n' });
      const missing = await knode(['logs', 'deploy/nope', '--root-dir', applyRoot]);
      expect(missing).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): deployments.apps "nope" not found\n' });
      // A kind with no pods of its own: kubectl's words, not a pod looked for in a namespace "cm".
      const podless = await knode(['logs', 'cm/greeter', '--root-dir', applyRoot]);
      expect(podless).toMatchObject({
        code: 1,
        stderr: 'error: cannot get the logs from *v1.ConfigMap: selector for *v1.ConfigMap not implemented\n',
      });
      const podlessExec = await knode(['exec', 'cronjobs/tick', '--root-dir', applyRoot, '--', 'true']);
      expect(podlessExec).toMatchObject({
        code: 1,
        stderr: 'error: cannot attach to *v1.CronJob: selector for *v1.CronJob not implemented\n',
      });
      // kubectl delete's TYPE NAME: one of the Deployment's pods (the local controllers' object goes with it), then the workloads.
      const onePod = await knode(['delete', 'pod', pod!, '--now', '--root-dir', applyRoot], { timeoutMs: 60_000 });
      expect(onePod).toMatchObject({ code: 0, stdout: `pod "${pod}" deleted from default namespace\n` });
      expect((await knode(['status', '--root-dir', applyRoot])).stdout).not.toContain(pod);
      const deleted = await knode(['delete', 'deployments/greeter', 'job/count', 'cm/greeter', '--root-dir', applyRoot], {
        timeoutMs: 90_000,
      });
      expect(deleted.code, deleted.stderr).toBe(0);
      expect(deleted.stdout.trim().split('\n')).toEqual([
        'deployment.apps "greeter" deleted from default namespace',
        'job.batch "count" deleted from default namespace',
        'configmap "greeter" deleted from default namespace',
      ]);
      const again = await knode(['delete', 'deploy', 'greeter', '--root-dir', applyRoot]);
      expect(again).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): deployment.apps "greeter" not found\n' });
      const after = await knode(['status', '--root-dir', applyRoot]);
      expect(after.stdout).toBe('');
      expect(after.stderr).toContain('No resources found');
      // The foreground cascade ran to its end: no owner is left marked, waiting on foregroundDeletion.
      expect((JSON.parse(readFileSync(join(applyRoot, 'objects.json'), 'utf8')) as { objects: unknown[] }).objects).toEqual([]);
    } finally {
      await knode(['runtime', 'stop', '--root-dir', applyRoot]);
    }
  });
});
