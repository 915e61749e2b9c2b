// knode describe pod and knode events against a `knode run` child on the
// embedded runtime: a running pod, a crash-looping one, and a watch.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { knode, startKnodeRun, type RunningNode } from '../helpers/cli.js';
import { webDeployment } from '../helpers/workloads.js';
import { cliEntry, eventually } from '../helpers/runtimes.js';

const root = mkdtempSync(join(tmpdir(), 'knode-describe-'));
const manifests = join(root, 'manifests');
const at = ['--root-dir', root];
let node: RunningNode;

const pod = (name: string, command: string, extra = '') =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  labels:\n    app: ${name}\nspec:\n  containers:\n    - name: app\n      image: busybox:1.36\n      command: ["sh", "-c", "${command}"]\n${extra}`;

beforeAll(async () => {
  mkdirSync(manifests);
  writeFileSync(
    join(manifests, 'hello.yaml'),
    pod(
      'hello',
      "trap 'exit 0' TERM; while true; do sleep 1; done",
      '      ports:\n        - containerPort: 8080\n          name: http\n      resources:\n        limits:\n          memory: 64Mi\n      env:\n        - name: GREETING\n          value: hi\n',
    ),
  );
  writeFileSync(join(manifests, 'crash.yaml'), pod('crash', 'echo dying; exit 3'));
  // Fails once, then runs: a file of the host remembers the first run (the containers here are host processes).
  const once = join(root, 'twice-once');
  writeFileSync(
    join(manifests, 'twice.yaml'),
    pod('twice', `if [ -f ${once} ]; then echo second; exec sleep 3600; fi; touch ${once}; echo first; exit 1`),
  );
  const greet = webDeployment({ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'] }, { replicas: 1 });
  writeFileSync(join(manifests, 'greet.yaml'), stringify({ ...greet, metadata: { name: 'greet' } }));
  node = startKnodeRun(manifests, root, ['--output', 'plain']);
  await eventually(
    () =>
      /PodRunning +default\/hello-e2e/.test(node.output()) &&
      /ContainerBackOff +default\/crash-e2e/.test(node.output()) &&
      /PodRunning +default\/greet-/.test(node.output()),
    () => `the pods to run and crash; the node said:\n${node.output()}`,
    60_000,
  );
}, 90_000);

afterAll(async () => {
  node.child.kill('SIGTERM');
  await node.exited;
  await knode(['runtime', 'stop', ...at]);
});

describe('knode describe pod', () => {
  it('describes a running pod as kubectl does, with its events from the kubelet', async () => {
    const { code, stdout } = await knode(['describe', 'pod', 'hello-e2e', ...at]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Name: {9}hello-e2e$/m);
    expect(stdout).toMatch(/^Namespace: {4}default$/m);
    expect(stdout).toMatch(/^Node: {9}e2e\/\S+$/m);
    expect(stdout).toMatch(/^Start Time: {3}\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}$/m);
    expect(stdout).toMatch(/^Labels: {7}app=hello$/m);
    expect(stdout).toMatch(/^Status: {7}Running$/m);
    expect(stdout).toMatch(/^ {4}Container ID: +\w+:\/\/[0-9a-f]+$/m);
    expect(stdout).toMatch(/^ {4}Port: +8080\/TCP \(http\)$/m);
    expect(stdout).toMatch(/^ {4}State: +Running\n {6}Started: +\w{3}, /m);
    expect(stdout).toMatch(/^ {4}Ready: +True\n {4}Restart Count: +0$/m);
    expect(stdout).toMatch(/^ {4}Limits:\n {6}memory: +64Mi$/m);
    expect(stdout).toMatch(/^ {4}Environment:\n {6}GREETING: +hi$/m);
    expect(stdout).toMatch(/^Conditions:\n {2}Type +Status\n {2}PodReadyToStartContainers +True $/m);
    expect(stdout).toMatch(/^QoS Class: +Burstable$/m);
    expect(stdout).toMatch(/^Events:\n {2}Type +Reason +Age +From +Message\n {2}---- +------ +---- +---- +-------$/m);
    expect(stdout).toMatch(/^ {2}Normal +Started +\d+s +kubelet +spec\.containers\{app\}: Started container app$/m);
    // kubectl's spelling of a false boolean flag.
    const quiet = await knode(['describe', 'pod', 'hello-e2e', '--show-events=false', ...at]);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stdout).toMatch(/^Name: {9}hello-e2e$/m);
    expect(quiet.stdout).not.toContain('Events:');
  });

  it('shows a crash-looping container: waiting in back-off, its last termination, the BackOff events', async () => {
    const out = await eventually(
      async () => {
        const { stdout } = await knode(['describe', 'pod', 'default/crash-e2e', ...at]);
        return /Restart Count: +[1-9]/.test(stdout) && /Last State: +Terminated/.test(stdout) ? stdout : undefined;
      },
      'a restart of the crashing container',
      30_000,
    );
    expect(out).toMatch(/^ {4}Last State: +Terminated\n {6}Reason: +Error\n {6}Exit Code: +3\n {6}Started: +.+\n {6}Finished: +.+$/m);
    expect(out).toMatch(/^ {4}Ready: +False$/m);
    expect(out).toMatch(
      /^ {2}Warning +BackOff +\d+s( \(x\d+ over \d+s\))? +kubelet +spec\.containers\{app\}: Back-off restarting failed container/m,
    );
  });

  it("reads a restarted container's logs as the kubelet picks them: --previous is its last termination", async () => {
    await eventually(
      async () => (await knode(['logs', 'twice-e2e', '--previous', ...at])).stdout === 'first\n',
      "the first run's log as the previous one",
      30_000,
    );
    expect(await knode(['logs', 'twice-e2e', ...at])).toMatchObject({ code: 0, stdout: 'second\n' });
    // Waiting out its back-off, a crash-looping container's log is its last run's (a run just started may have written nothing yet).
    const current = await knode(['logs', 'crash-e2e', ...at]);
    expect(current.code, current.stderr).toBe(0);
    expect(current.stdout).toMatch(/^(dying\n)?$/);
  });

  it("answers an unknown pod with kubectl's error and exit code 1", async () => {
    const { code, stderr } = await knode(['describe', 'pod', 'nope', ...at]);
    expect(code).toBe(1);
    expect(stderr).toContain('pods "nope" not found');
  });

  it('describes several pods without their events unless asked, and goes on past one not found', async () => {
    const several = await knode(['describe', 'pods', 'nope', 'hello-e2e', ...at]);
    expect(several.code).toBe(1);
    expect(several.stderr).toContain('pods "nope" not found');
    expect(several.stdout).toMatch(/^Name: {9}hello-e2e$/m);
    expect(several.stdout).not.toContain('Events:');
    const asked = await knode(['describe', 'pods', 'hello-e2e', 'crash-e2e', '--show-events', ...at]);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout).toMatch(/^Events:\n {2}Type +Reason/m);
    // kubectl's blank line between two objects: the second starts after it.
    expect(asked.stdout).toMatch(/\n\n\nName: {9}crash-e2e$/m);
    // Every pod (describe TYPE): several, so without their events, as kubectl's; a type with none adds no line.
    const every = await knode(['describe', 'pods,jobs', ...at]);
    expect(every, every.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(every.stdout).toMatch(/^Name: {9}hello-e2e$/m);
    expect(every.stdout).toMatch(/^Name: {9}crash-e2e$/m);
    expect(every.stdout).not.toContain('Events:');
    const none = await knode(['describe', 'jobs,cronjobs', ...at]);
    expect(none).toMatchObject({ code: 0, stdout: '', stderr: 'No resources found in default namespace.\n' });
  });

  it("describes the pods a name begins when no pod has it, as kubectl's does, but not in TYPE/NAME", async () => {
    const byPrefix = await knode(['describe', 'pod', 'hello', ...at]);
    expect(byPrefix.code, byPrefix.stderr).toBe(0);
    expect(byPrefix.stdout).toMatch(/^Name: {9}hello-e2e$/m);
    expect(byPrefix.stdout).not.toContain('Events:');
    expect(byPrefix.stdout.endsWith('\n\n')).toBe(true);
    const withEvents = await knode(['describe', 'pods', 'hello', '--show-events', ...at]);
    expect(withEvents.stdout).toMatch(/^Events:\n {2}Type +Reason/m);
    const slashed = await knode(['describe', 'pod/hello', ...at]);
    expect(slashed.code).toBe(1);
    expect(slashed.stderr).toContain('pods "hello" not found');
  });
});

describe('knode events', () => {
  it("lists one pod's events with --for, as kubectl events prints them", async () => {
    const { code, stdout } = await knode(['events', '--for', 'pod/crash-e2e', ...at]);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^LAST SEEN +TYPE +REASON +OBJECT +MESSAGE$/);
    expect(lines.slice(1).every((l) => / Pod\/crash-e2e /.test(l))).toBe(true);
    expect(stdout).toMatch(/^\S+( \(x\d+ over \S+\))? +Warning +BackOff +Pod\/crash-e2e +Back-off restarting failed container/m);
    expect(stdout).toMatch(/Normal +Pulling +Pod\/crash-e2e +Pulling image "busybox:1.36"/);

    const warnings = await knode(['events', '--for', 'pod/crash-e2e', '--types', 'Warning', '--no-headers', ...at]);
    expect(warnings.stdout).toMatch(/^\S+( \(x\d+ over \S+\))? +Warning +BackOff +Pod\/crash-e2e /m);
    expect(warnings.stdout).not.toMatch(/Normal|LAST SEEN/);
    const yaml = await knode(['events', '--for', 'pod/crash-e2e', '-o', 'yaml', ...at]);
    expect(yaml.stdout).toMatch(/^apiVersion: v1\nkind: EventList\n/);
    const bad = await knode(['events', '--for', 'crash-e2e', ...at]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--for must be in resource/name form');
  });

  it("keeps the workload controllers' events, which describe and --for show as kubectl does", async () => {
    const described = await knode(['describe', 'deploy', 'greet', ...at]);
    expect(described.code).toBe(0);
    expect(described.stdout).toMatch(
      /^Events:\n {2}Type +Reason +Age +From +Message\n {2}-+ +-+ +-+ +-+ +-+\n {2}Normal +ScalingReplicaSet +\S+ +deployment-controller +Scaled up replica set greet-\w+ from 0 to 1$/m,
    );
    const replicaSet = /Scaled up replica set (greet-\w+)/.exec(described.stdout)![1];
    const rs = await knode(['describe', 'rs', replicaSet, ...at]);
    expect(rs.stdout).toMatch(/^ {2}Normal +SuccessfulCreate +\S+ +replicaset-controller +Created pod: greet-\w+-\w+$/m);
    const listed = await knode(['events', '--for', 'deploy/greet', '--no-headers', ...at]);
    expect(listed.stdout).toMatch(/^\S+ +Normal +ScalingReplicaSet +Deployment\/greet +Scaled up replica set greet-/m);
    expect(listed.stdout.trimEnd().split('\n')).toHaveLength(1);
    // The kubelet's side: a restart finds the image there already.
    const pods = await knode(['events', '--for', 'pod/crash-e2e', '--no-headers', ...at]);
    expect(pods.stdout).toMatch(/Normal +Pulled +Pod\/crash-e2e +Container image "busybox:1.36" already present on machine/);
  });

  it('prints a v1 EventList with -o json, repeats counted on one event', async () => {
    const { code, stdout } = await knode(['events', '-o', 'json', ...at]);
    expect(code).toBe(0);
    const list = JSON.parse(stdout) as {
      apiVersion: string;
      kind: string;
      items: { reason: string; count: number; involvedObject: { name: string } }[];
    };
    expect(list).toMatchObject({ apiVersion: 'v1', kind: 'EventList' });
    expect(list.items.map((e) => e.reason)).toEqual(expect.arrayContaining(['Starting', 'Pulled', 'Created', 'Started', 'BackOff']));
    const started = list.items.filter((e) => e.reason === 'Started' && e.involvedObject.name === 'crash-e2e');
    expect(started).toHaveLength(1);
    expect(started[0].count).toBeGreaterThan(1);
  });

  it('follows new events with --watch', async () => {
    const watch = spawn(process.execPath, [cliEntry, 'events', '--watch', '--for', 'pod/late-e2e', ...at], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    watch.stdout.on('data', (d) => (out += d));
    watch.stderr.on('data', (d) => (out += d));
    try {
      // The watch is open once it prints; until then, an event of late-e2e could come before it.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      writeFileSync(join(manifests, 'late.yaml'), pod('late', "trap 'exit 0' TERM; while true; do sleep 1; done"));
      await eventually(
        () => /Normal +Started +Pod\/late-e2e +Started container app/.test(out),
        () => `a Started row; the watch printed:\n${out}`,
        30_000,
      );
      expect(out.split('\n')[0]).toMatch(/^LAST SEEN +TYPE +REASON +OBJECT +MESSAGE$/);
    } finally {
      watch.kill('SIGINT');
    }
  });

  it('says that events need a running node', async () => {
    const { code, stderr } = await knode(['events', '--root-dir', mkdtempSync(join(tmpdir(), 'knode-none-'))]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/no node runs under .*: events are kept by a running node/);
  });
});

describe('knode describe pod without a node', () => {
  it('describes what the runtime holds, and says what is not known there', async () => {
    node.child.kill('SIGTERM');
    await node.exited;
    const { code, stdout, stderr } = await knode(['describe', 'pod', 'hello-e2e', ...at]);
    expect(code).toBe(0);
    expect(stderr).toMatch(/No node runs under .*: the pod's volumes, probes, resources, QoS class and conditions are not known there/);
    expect(stdout).toMatch(/^Name: +hello-e2e$/m);
    expect(stdout).toMatch(/^Labels: +app=hello$/m);
    expect(stdout).toMatch(/^ {4}State: +Running$/m);
    expect(stdout).toMatch(/^QoS Class: +<unknown>$/m);
    expect(stdout).not.toMatch(/^Events:/m);
  });
});
