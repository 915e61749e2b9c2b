// knode as a node of a real cluster: a real etcd and kube-apiserver (built
// from the Go module proxy, test/peers), the node's identity a client
// certificate under the Node authorizer and NodeRestriction, @kubernetes/client-node
// inside knode, the real kubectl outside it, and the embedded runtime below.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lease, Node } from '../../src/engine/api/cluster.js';
import type { Pod, PodList } from '../../src/engine/api/v1.js';
import type { CronJob, DaemonSet, KubeObject, StatefulSet } from '../../src/engine/api/workloads.js';
import { describeCronJob, describeDaemonSet, describeStatefulSet } from '../../src/ui/describe-workload.js';
import { pickPod } from '../../src/cli/workload-target.js';
import { parseTarget } from '../../src/cli/target-kinds.js';
import { ClusterError, connectCluster, loadKubeConfig, type ConnectedCluster } from '../../src/engine/cluster/client.js';
import { KubeletServer } from '../../src/engine/server/kubelet-server.js';
import type { Summary } from '../../src/engine/stats/types.js';
import { freePort, startControlPlane, type ControlPlane } from '../helpers/controlplane.js';
import { TEST_IMAGE } from '../helpers/cri.js';
import { roundTrip } from '../helpers/tcp.js';
import { startNode, type TestNode } from '../helpers/node.js';
import { eventually, runtimesUnderTest } from '../helpers/runtimes.js';

const NODE = 'knode-it';

describe('a node of a real cluster (kube-apiserver, etcd)', () => {
  let cp: ControlPlane;
  let node: TestNode;
  let api: KubeletServer;
  let cleanupRuntime: () => Promise<void>;
  let client: ConnectedCluster;

  const getPod = (name: string) => cp.kubectlJson<Pod>('get', 'pod', name);
  const podGone = async (name: string) => (await cp.kubectl('get', 'pod', name)).code !== 0;
  const apply = async (manifest: object) => {
    const file = join(mkdtempSync(join(tmpdir(), 'knode-manifest-')), 'm.json');
    writeFileSync(file, JSON.stringify(manifest));
    const answer = await cp.kubectl('apply', '-f', file);
    if (answer.code !== 0) throw new Error(answer.stderr);
  };
  const boundPod = (name: string, spec: Partial<Pod['spec']> = {}): Pod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: {
      nodeName: NODE,
      terminationGracePeriodSeconds: 5,
      containers: [{ name: 'main', image: TEST_IMAGE, command: ['sh', '-c', 'echo started; exec sleep 300'] }],
      ...spec,
    },
  });

  beforeAll(async () => {
    cp = startControlPlane();
    const started = await runtimesUnderTest()[0].start();
    cleanupRuntime = started.cleanup;
    client = await connectCluster(await loadKubeConfig(cp.nodeKubeconfig(NODE)));
    const port = await freePort();
    node = await startNode(started.endpoint, {
      cluster: client,
      config: {
        nodeName: NODE,
        nodeIP: '127.0.0.1',
        port,
        nodeLabels: { 'knode.test/tier': 'edge' },
        registerWithTaints: [{ key: 'knode.test/lane', value: 'edge', effect: 'PreferNoSchedule' }],
        nodeLeaseDurationSeconds: 2,
        nodeStatusUpdateFrequency: 500,
      },
    });
    api = new KubeletServer(node.kubelet, {
      address: '127.0.0.1',
      port,
      certDir: join(node.podsDir, '..', 'pki'),
      clientCAFile: cp.ca,
      nodeName: NODE,
      client,
      clock: node.kubelet.clock,
    });
    await api.start();
  }, 120_000);

  afterAll(async () => {
    await api?.stop();
    await node?.stop();
    await cleanupRuntime?.();
    cp?.stop();
  });

  it('registers its Node, Ready, with labels, taints, capacity, addresses and system info, and renews its Lease', async () => {
    const ready = await eventually(async () => {
      const n = await cp.kubectlJson<Node>('get', 'node', NODE).catch(() => undefined);
      return n?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' ? n : undefined;
    }, 'the Node to be Ready');
    expect(ready.metadata.labels).toMatchObject({ 'kubernetes.io/hostname': NODE, 'kubernetes.io/os': 'linux', 'knode.test/tier': 'edge' });
    // Beside the apiserver's own not-ready taint (its TaintNodesByCondition admission), which no controller takes off here.
    expect(ready.spec?.taints).toContainEqual({ key: 'knode.test/lane', value: 'edge', effect: 'PreferNoSchedule' });
    expect(ready.status?.addresses).toContainEqual({ type: 'InternalIP', address: '127.0.0.1' });
    expect(ready.status?.nodeInfo?.containerRuntimeVersion).toMatch(/^knode:\/\//);
    expect(ready.status?.capacity?.pods).toBe('110');
    const lease = async () => (await cp.kubectlJson<Lease>('get', 'lease', '-n', 'kube-node-lease', NODE)).spec;
    const first = await eventually(() => lease().catch(() => undefined), 'the Lease');
    expect(first).toMatchObject({ holderIdentity: NODE, leaseDurationSeconds: 2 });
    await eventually(async () => (await lease()).renewTime !== first.renewTime, 'the Lease to be renewed');
  });

  it('runs a pod the apiserver binds to it, with its service account token, and reports its status there', async () => {
    await apply(boundPod('web'));
    const pod = await eventually(
      async () => {
        const p = await getPod('web');
        return p.status?.phase === 'Running' && p.status.containerStatuses?.[0]?.ready ? p : undefined;
      },
      'web to be Running in the apiserver',
      30_000,
    );
    expect(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(pod.status?.containerStatuses?.[0]).toMatchObject({ name: 'main', restartCount: 0, state: { running: {} } });
    expect(pod.status?.hostIP).toBe('127.0.0.1');
    expect(pod.spec.volumes?.some((v) => v.name.startsWith('kube-api-access-'))).toBe(true);
    const events = await eventually(async () => {
      const list = await cp.kubectlJson<{ items: { reason: string; source: { component: string; host: string } }[] }>(
        'get',
        'events',
        '--field-selector',
        'involvedObject.name=web',
      );
      return list.items.some((e) => e.reason === 'Started') ? list.items : undefined;
    }, 'events for web');
    expect(events.map((e) => e.reason)).toEqual(expect.arrayContaining(['Pulling', 'Pulled', 'Created', 'Started']));
    expect(events[0].source).toEqual({ component: 'kubelet', host: NODE });
  });

  it("reports the apiserver's refusals of its plain JSON calls with their status, reason and message", async () => {
    // The Node authorizer lets a node read only the pods bound to it and the ConfigMaps they name.
    const other = await client.getPod('default', 'no-such-pod').catch((err: unknown) => err);
    expect(other).toMatchObject({ name: 'ClusterError', status: 403, reason: 'Forbidden' });
    expect((other as Error).message).toMatch(
      /^get pod default\/no-such-pod: 403 Forbidden: pods "no-such-pod" is forbidden: User "system:node:knode-it" cannot get resource "pods"/,
    );
    const unnamed = await client.getConfigMap('default', 'named-by-no-pod').catch((err: unknown) => err);
    expect(unnamed).toMatchObject({ name: 'ClusterError', status: 403, reason: 'Forbidden' });
    const web = await getPod('web');
    const stale = await client.deletePod('default', 'web', 'not-its-uid', 0).catch((err: unknown) => err);
    expect(stale).toMatchObject({ name: 'ClusterError', status: 409, reason: 'Conflict' });
    expect(ClusterError.conflict(stale)).toBe(true);
    expect((await getPod('web')).metadata.uid).toBe(web.metadata.uid);
  });

  it('asks the apiserver who a token belongs to and what a user may do (TokenReview, SubjectAccessReview)', async () => {
    const web = await getPod('web');
    const { token } = await client.createToken('default', 'default', {
      audiences: [],
      expirationSeconds: 600,
      pod: { name: 'web', uid: web.metadata.uid! },
    });
    const who = await client.reviewToken(token);
    expect(who?.user).toBe('system:serviceaccount:default:default');
    expect(who?.groups).toEqual(expect.arrayContaining(['system:serviceaccounts', 'system:serviceaccounts:default']));
    expect(await client.reviewToken('not-a-token')).toBeUndefined();
    const proxy = { verb: 'get', resource: 'nodes', subresource: 'proxy', name: NODE };
    expect(await client.reviewAccess({ user: who!.user, groups: who!.groups, ...proxy })).toEqual({ allowed: false, reason: '' });
    expect(await client.reviewAccess({ user: 'admin', groups: ['system:masters'], ...proxy })).toMatchObject({ allowed: true });
  });

  it('serves kubectl logs through the apiserver', async () => {
    await eventually(async () => (await getPod('web')).status?.phase === 'Running', 'web to run', 30_000);
    const logs = await cp.kubectl('logs', 'web');
    expect(logs).toMatchObject({ code: 0, stdout: 'started\n' });
  });

  it('serves kubectl exec, attach and port-forward through the apiserver', async () => {
    await eventually(async () => (await getPod('web')).status?.phase === 'Running', 'web to run', 30_000);
    expect(await cp.kubectl('exec', 'web', '--', 'sh', '-c', 'echo "in $0"; echo oops >&2')).toMatchObject({
      code: 0,
      stdout: 'in sh\n',
      stderr: 'oops\n',
    });
    const failed = await cp.kubectl('exec', 'web', '--', 'sh', '-c', 'exit 7');
    expect(failed.code).toBe(7);
    expect(failed.stderr).toMatch(/command terminated with exit code 7/);
    expect(await cp.kubectlInput('through stdin\n', 'exec', '-i', 'web', '--', 'cat')).toMatchObject({
      code: 0,
      stdout: 'through stdin\n',
    });
    expect((await cp.kubectl('exec', 'web', '-c', 'nosuch', '--', 'true')).stderr).toMatch(
      /container nosuch is not valid|container not found/,
    );

    // port-forward to a port the pod listens on (host network: busybox nc, an echo per connection).
    const podPort = await freePort();
    await apply(
      boundPod('echoer', {
        containers: [{ name: 'main', image: TEST_IMAGE, command: ['busybox', 'nc', '-ll', '-p', String(podPort), '-e', 'cat'] }],
      }),
    );
    await eventually(async () => (await getPod('echoer')).status?.phase === 'Running', 'echoer to run', 30_000);
    const localPort = await freePort();
    const forward = cp.kubectlLive('port-forward', 'pod/echoer', `${localPort}:${podPort}`);
    try {
      await eventually(
        () => forward.out().includes(`Forwarding from 127.0.0.1:${localPort} -> ${podPort}`),
        () => `kubectl port-forward to listen: ${forward.out()}${forward.err()}`,
        30_000,
      );
      expect(await roundTrip(localPort, 'forwarded through the apiserver')).toBe('forwarded through the apiserver');
    } finally {
      forward.stop();
    }

    // attach: what the container writes from now on.
    await apply(
      boundPod('ticker', {
        containers: [
          { name: 'main', image: TEST_IMAGE, command: ['sh', '-c', 'i=0; while true; do i=$((i + 1)); echo "tick $i"; sleep 0.2; done'] },
        ],
      }),
    );
    await eventually(async () => (await getPod('ticker')).status?.phase === 'Running', 'ticker to run', 30_000);
    const attach = cp.kubectlLive('attach', 'ticker');
    try {
      await eventually(
        () => /tick \d+\ntick \d+\n/.test(attach.out()),
        () => `kubectl attach to show the ticks: ${attach.out()}${attach.err()}`,
        30_000,
      );
    } finally {
      attach.stop();
    }
  });

  // A second node, on containerd 2: the kubelet API proxies to containerd's own streaming server.
  const containerd2 = runtimesUnderTest().find((r) => r.name === 'containerd 2');
  it.runIf(containerd2)("proxies kubectl exec to containerd 2's streaming server for a node on containerd 2", async () => {
    const started = await containerd2!.start();
    const name = 'knode-ctr2';
    const client = await connectCluster(await loadKubeConfig(cp.nodeKubeconfig(name)));
    const port = await freePort();
    const second = await startNode(started.endpoint, {
      cluster: client,
      config: { nodeName: name, nodeIP: '127.0.0.1', port, nodeStatusUpdateFrequency: 500 },
    });
    const secondApi = new KubeletServer(second.kubelet, {
      address: '127.0.0.1',
      port,
      certDir: join(second.podsDir, '..', 'pki'),
      clientCAFile: cp.ca,
      nodeName: name,
      client,
      clock: second.kubelet.clock,
    });
    await secondApi.start();
    try {
      const pod = boundPod('on-containerd');
      await apply({ ...pod, spec: { ...pod.spec, nodeName: name } });
      await eventually(async () => (await getPod('on-containerd')).status?.phase === 'Running', 'on-containerd to run', 60_000);
      expect(await cp.kubectl('exec', 'on-containerd', '--', 'sh', '-c', 'echo "from $(hostname)"; exit 3')).toMatchObject({
        code: 3,
        stdout: 'from on-containerd\n',
      });
      expect(await cp.kubectlInput('typed\n', 'exec', '-i', 'on-containerd', '--', 'cat')).toMatchObject({ code: 0, stdout: 'typed\n' });
      expect((await cp.kubectl('delete', 'pod', 'on-containerd', '--wait=false')).code).toBe(0);
      await eventually(() => podGone('on-containerd'), 'on-containerd to be gone', 30_000);
    } finally {
      await secondApi.stop();
      await second.stop();
      await started.cleanup();
    }
  });

  // The apiserver's nodes/proxy refuses loopback node addresses ("address not allowed"), and
  // tests listen on loopback only: kubectl goes to the kubelet API directly, as metrics-server
  // does, with the admin's client certificate (signed by the CA the node trusts).
  it('picks the pod of deploy/NAME, rs/NAME, sts/NAME and job/NAME that kubectl logs and kubectl exec pick', async () => {
    // Pods bound to a node that is not there: no kubelet changes the statuses set here, and kubectl,
    // having picked a pod, names it before it fails to reach that node.
    const at = (secondsAgo: number) => new Date(Date.now() - secondsAgo * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
    interface Shape {
      name: string;
      assigned?: boolean;
      phase: 'Pending' | 'Running';
      readySecondsAgo?: number;
      restarts?: number;
      deleting?: boolean;
    }
    const workloads: { type: string; kind: string; apiVersion: string; label: string; pods: Shape[] }[] = [
      // Restarts: logs take the most restarted, exec the least.
      {
        type: 'deploy',
        kind: 'Deployment',
        apiVersion: 'apps/v1',
        label: 'restarts',
        pods: [
          { name: 'restarts-a', phase: 'Running', readySecondsAgo: 30, restarts: 3 },
          { name: 'restarts-b', phase: 'Running', readySecondsAgo: 30 },
        ],
      },
      // Assignment, phase and readiness rank before the rest, alike in both orders.
      {
        type: 'rs',
        kind: 'ReplicaSet',
        apiVersion: 'apps/v1',
        label: 'phases',
        pods: [
          { name: 'phases-a', assigned: false, phase: 'Pending' },
          { name: 'phases-b', phase: 'Pending' },
          { name: 'phases-c', phase: 'Running' },
          { name: 'phases-d', phase: 'Running', readySecondsAgo: 5, restarts: 2 },
        ],
      },
      // Ready longest for logs; for exec, a pod being deleted ranks below one that is not.
      {
        type: 'sts',
        kind: 'StatefulSet',
        apiVersion: 'apps/v1',
        label: 'deleting',
        pods: [
          { name: 'deleting-a', phase: 'Running', readySecondsAgo: 120, deleting: true },
          { name: 'deleting-b', phase: 'Running', readySecondsAgo: 10 },
          { name: 'deleting-c', phase: 'Running', readySecondsAgo: 60 },
        ],
      },
      {
        type: 'job',
        kind: 'Job',
        apiVersion: 'batch/v1',
        label: 'job',
        pods: [
          { name: 'job-a', phase: 'Running', readySecondsAgo: 40 },
          { name: 'job-b', phase: 'Running', readySecondsAgo: 90, restarts: 1 },
        ],
      },
    ];
    const template = (label: string) => ({
      metadata: { labels: { pick: label } },
      spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: TEST_IMAGE }] },
    });
    for (const w of workloads) {
      const selector = { matchLabels: { pick: w.label } };
      const spec =
        w.kind === 'Job'
          ? { manualSelector: true, selector, template: template(w.label) }
          : { selector, template: { ...template(w.label), spec: { containers: [{ name: 'c', image: TEST_IMAGE }] } } };
      await apply({ apiVersion: w.apiVersion, kind: w.kind, metadata: { name: `pick-${w.label}`, namespace: 'default' }, spec });
      for (const p of w.pods) {
        await apply({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: p.name, namespace: 'default', labels: { pick: w.label } },
          spec: { ...(p.assigned === false ? {} : { nodeName: 'ghost' }), containers: [{ name: 'c', image: TEST_IMAGE }] },
        });
        const ready = p.readySecondsAgo !== undefined;
        const status = {
          phase: p.phase,
          conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: at(p.readySecondsAgo ?? 0) }],
          containerStatuses: [
            { name: 'c', image: TEST_IMAGE, imageID: '', ready, restartCount: p.restarts ?? 0, state: { waiting: { reason: 'Test' } } },
          ],
        };
        const patched = await cp.kubectl('patch', 'pod', p.name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status }));
        expect(patched.stderr).toBe('');
        // Graceful: with no kubelet to confirm it, the pod stays, being deleted.
        if (p.deleting) expect((await cp.kubectl('delete', 'pod', p.name, '--wait=false')).code).toBe(0);
      }
    }
    const objects = (await cp.kubectlJson<{ items: KubeObject[] }>('get', 'deployments,replicasets,statefulsets,jobs')).items;
    const pods = (await cp.kubectlJson<PodList>('get', 'pods')).items;
    for (const w of workloads) {
      const arg = `${w.type}/pick-${w.label}`;
      const logs = await cp.kubectl('logs', arg);
      const exec = await cp.kubectl('exec', arg, '-v=6', '--', 'true');
      const theirs = {
        logs: /Found \d+ pods, using pod\/(\S+)/.exec(logs.stderr)?.[1],
        attach: /\/pods\/([a-z0-9-]+)\/exec/.exec(exec.stderr)?.[1],
      };
      const ours = {
        logs: pickPod(parseTarget(arg, undefined), objects, pods, 'logs').pod.metadata.name,
        attach: pickPod(parseTarget(arg, undefined), objects, pods, 'attach').pod.metadata.name,
      };
      expect({ arg, ...ours }).toEqual({ arg, ...theirs });
    }
  });

  it('describes a StatefulSet with volume claim templates and a DaemonSet with a node selector as kubectl describe does', async () => {
    // No controllers run here: the objects stay as made, with nothing to race the two reads.
    const template = { metadata: { labels: { app: 'desc' } }, spec: { containers: [{ name: 'c', image: TEST_IMAGE }] } };
    await apply({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'desc', namespace: 'default', labels: { tier: 'db' } },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'desc' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['web', 'cache'] }] },
        template: { ...template, metadata: { labels: { app: 'desc', tier: 'db' } } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Retain' },
        volumeClaimTemplates: [
          {
            metadata: { name: 'data', labels: { keep: 'yes' }, annotations: { note: 'first' } },
            spec: {
              accessModes: ['ReadWriteOnce', 'ReadOnlyMany'],
              storageClassName: 'fast',
              resources: { requests: { storage: '1536Mi' } },
            },
          },
          { metadata: { name: 'scratch' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1G' } } } },
        ],
      },
    });
    await apply({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'desc', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'desc' } },
        template: { ...template, spec: { ...template.spec, nodeSelector: { 'kubernetes.io/os': 'linux', disk: 'ssd' } } },
      },
    });
    const pods = (await cp.kubectlJson<PodList>('get', 'pods')).items;
    const sts = await cp.kubectlJson<StatefulSet>('get', 'statefulset', 'desc');
    const ds = await cp.kubectlJson<DaemonSet>('get', 'daemonset', 'desc');
    const theirs = async (ref: string) => (await cp.kubectl('describe', ref, '--show-events=false')).stdout;
    expect(describeStatefulSet(sts, pods, undefined, Date.now())).toBe(await theirs('statefulset/desc'));
    expect(describeDaemonSet(ds, pods, undefined, Date.now())).toBe(await theirs('daemonset/desc'));
  });

  it('describes CronJobs, with and without the optional fields and a status, as kubectl describe does', async () => {
    // No controller manager here: the CronJobs' statuses are set by hand, and nothing runs their schedules.
    const jobTemplate = (spec: object) => ({
      spec: { ...spec, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: TEST_IMAGE }] } } },
    });
    await apply({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'desc-full', namespace: 'default', labels: { team: 'ops' }, annotations: { note: 'nightly' } },
      spec: {
        schedule: '30 2 * * *',
        timeZone: 'Europe/Paris',
        concurrencyPolicy: 'Forbid',
        suspend: true,
        startingDeadlineSeconds: 120,
        successfulJobsHistoryLimit: 5,
        failedJobsHistoryLimit: 0,
        jobTemplate: jobTemplate({ parallelism: 2, completions: 4, activeDeadlineSeconds: 600, backoffLimit: 2 }),
      },
    });
    await apply({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'desc-min', namespace: 'default' },
      spec: { schedule: '@hourly', jobTemplate: jobTemplate({}) },
    });
    const status = {
      lastScheduleTime: '2026-12-04T02:30:00Z',
      active: [
        { kind: 'Job', namespace: 'default', name: 'desc-full-29412345', uid: 'u1', apiVersion: 'batch/v1' },
        { kind: 'Job', namespace: 'default', name: 'desc-full-29412346', uid: 'u2', apiVersion: 'batch/v1' },
      ],
    };
    const patched = await cp.kubectl(
      'patch',
      'cronjob',
      'desc-full',
      '--subresource=status',
      '--type=merge',
      '-p',
      JSON.stringify({ status }),
    );
    expect(patched.code, patched.stderr).toBe(0);
    for (const name of ['desc-full', 'desc-min']) {
      const cronJob = await cp.kubectlJson<CronJob>('get', 'cronjob', name);
      const theirs = await cp.kubectl('describe', `cronjob/${name}`, '--show-events=false');
      expect(describeCronJob(cronJob, undefined, Date.now())).toBe(theirs.stdout);
    }
  });

  it('serves the Summary API and /configz on the kubelet API to a client certificate the cluster CA signed, as metrics-server reaches them', async () => {
    const direct = [
      '--server',
      `https://127.0.0.1:${api.listening!.port}`,
      '--certificate-authority',
      join(node.podsDir, '..', 'pki', 'kubelet.crt'),
    ];
    const raw = async (path: string) => {
      const res = await cp.kubectl(...direct, 'get', '--raw', path);
      expect(res.stderr).toBe('');
      return res.stdout;
    };
    const summary = JSON.parse(await raw('/stats/summary')) as Summary;
    expect(summary.node.nodeName).toBe(NODE);
    expect(summary.pods.map((p) => p.podRef.name)).toContain('web');
    expect(await raw('/metrics/resource')).toMatch(
      /^container_memory_working_set_bytes\{container="main",namespace="default",pod="web"\} \d+ \d+$/m,
    );
    expect(JSON.parse(await raw('/configz')).kubeletconfig).toMatchObject({
      kind: 'KubeletConfiguration',
      nodeStatusUpdateFrequency: '500ms',
    });
  });

  it('fills configMap and secret volumes and env from the apiserver', async () => {
    await apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { greeting: 'hello from a configmap' } });
    await apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds' }, stringData: { password: 's3cret' } });
    await apply(
      boundPod('configured', {
        restartPolicy: 'Never',
        volumes: [
          { name: 'cfg', configMap: { name: 'settings' } },
          { name: 'sec', secret: { secretName: 'creds' } },
        ],
        containers: [
          {
            name: 'main',
            image: TEST_IMAGE,
            // The embedded runtime hands a mount to its host process as KNODE_MOUNT_<PATH>.
            command: ['sh', '-c', 'echo "$(cat "$KNODE_MOUNT_ETC_CFG/greeting")"; echo "password=$PASSWORD"'],
            env: [{ name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } }],
            volumeMounts: [
              { name: 'cfg', mountPath: '/etc/cfg' },
              { name: 'sec', mountPath: '/etc/sec' },
            ],
          },
        ],
      }),
    );
    await eventually(async () => (await getPod('configured')).status?.phase === 'Succeeded', 'configured to succeed', 30_000);
    expect((await cp.kubectl('logs', 'configured')).stdout).toBe('hello from a configmap\npassword=s3cret\n');
  });

  it('mounts a ConfigMap created after its pod at the next try, its sync waiting rather than failing', async () => {
    await apply(
      boundPod('late-config', {
        restartPolicy: 'Never',
        volumes: [{ name: 'cfg', configMap: { name: 'late-settings' } }],
        containers: [
          {
            name: 'main',
            image: TEST_IMAGE,
            command: ['sh', '-c', 'cat "$KNODE_MOUNT_ETC_CFG/greeting"'],
            volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg' }],
          },
        ],
      }),
    );
    const ofPod = (reason: string) => node.events.filter((e) => e.pod === 'default/late-config' && e.reason === reason);
    await eventually(() => ofPod('FailedMount').length > 0, 'a FailedMount for the missing ConfigMap', 30_000);
    expect(ofPod('FailedMount')[0].message).toMatch(/^volume "cfg": configmap "late-settings" not found/);
    await apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late-settings' }, data: { greeting: 'late but there' } });
    await eventually(async () => (await getPod('late-config')).status?.phase === 'Succeeded', 'late-config to succeed', 30_000);
    expect((await cp.kubectl('logs', 'late-config')).stdout).toBe('late but there\n');
    // The sync waited for the volume, as the kubelet's does: it never failed, so no worker back-off (10 s) came between.
    expect(ofPod('FailedSync')).toEqual([]);
  });

  it('terminates a pod deleted in the apiserver gracefully, then deletes the object', async () => {
    await eventually(async () => (await getPod('web')).status?.phase === 'Running', 'web to run', 30_000);
    const deleting = cp.kubectl('delete', 'pod', 'web', '--wait=false');
    expect((await deleting).code).toBe(0);
    await eventually(() => podGone('web'), 'web to be gone from the apiserver', 30_000);
    expect(node.events.some((e) => e.type === 'ContainerKilling' && e.pod === 'default/web')).toBe(true);
    const running = await node.client.listContainers({
      state: { state: 'CONTAINER_RUNNING' },
      labelSelector: { 'io.kubernetes.pod.name': 'web' },
    });
    expect(running).toEqual([]);
  });

  it('keeps a mirror pod for a static pod, and recreates it when deleted without touching the static pod', async () => {
    node.writePod('static', { containers: [{ name: 'main', image: TEST_IMAGE, command: ['sleep', '300'] }] });
    const name = `static-${NODE}`;
    const mirror = await eventually(
      async () => {
        const p = await getPod(name).catch(() => undefined);
        return p?.status?.phase === 'Running' ? p : undefined;
      },
      'the mirror pod to show Running',
      30_000,
    );
    expect(mirror.metadata.annotations?.['kubernetes.io/config.mirror']).toBe(mirror.metadata.annotations?.['kubernetes.io/config.hash']);
    expect(mirror.metadata.ownerReferences).toMatchObject([{ kind: 'Node', name: NODE, controller: true }]);
    const started = node.events.filter((e) => e.type === 'ContainerStarted' && e.pod === `default/${name}`).length;
    expect((await cp.kubectl('delete', 'pod', name, '--wait=false')).code).toBe(0);
    const again = await eventually(
      async () => {
        const p = await getPod(name).catch(() => undefined);
        return p && p.metadata.uid !== mirror.metadata.uid && p.status?.phase === 'Running' ? p : undefined;
      },
      'a new mirror pod',
      30_000,
    );
    expect(again.metadata.annotations?.['kubernetes.io/config.mirror']).toBe(mirror.metadata.annotations?.['kubernetes.io/config.mirror']);
    expect(node.events.filter((e) => e.type === 'ContainerStarted' && e.pod === `default/${name}`)).toHaveLength(started);
    node.removePod('static');
    await eventually(() => podGone(name), 'the mirror pod to go with the static pod', 30_000);
  });

  it('closes its connections as on a certificate rotation: the watch resumes from its resourceVersion, nothing listed again', async () => {
    const before = node.kubelet.podConfig.apiserverStats()!;
    expect(client.closeConnections()).toBe(1);
    await eventually(
      async () => (node.kubelet.podConfig.apiserverStats()!.watches > before.watches ? true : undefined),
      'the pod watch to be made again',
      10_000,
    );
    await apply(boundPod('after-cut'));
    await eventually(async () => (await getPod('after-cut')).status?.phase === 'Running', 'after-cut to run', 30_000);
    expect(node.kubelet.podConfig.apiserverStats()!.lists).toBe(before.lists);
    expect((await cp.kubectl('delete', 'pod', 'after-cut', '--grace-period=1')).code).toBe(0);
  });

  it('comes through an apiserver restart (watch cut, 410 Gone, relist) without losing or doubling work', async () => {
    await apply(boundPod('before'));
    await eventually(async () => (await getPod('before')).status?.phase === 'Running', 'before to run', 30_000);
    const lists = node.kubelet.podConfig.apiserverStats()!.lists;
    cp.restartApiserver();
    // While the node reconnects: one pod goes, one comes.
    expect((await cp.kubectl('delete', 'pod', 'before', '--wait=false')).code).toBe(0);
    await apply(boundPod('after'));
    await eventually(async () => (await getPod('after').catch(() => undefined))?.status?.phase === 'Running', 'after to run', 60_000);
    await eventually(() => podGone('before'), 'before to be gone', 60_000);
    const sandboxes = await node.client.listPodSandbox({ labelSelector: { 'io.kubernetes.pod.name': 'after' } });
    expect(sandboxes).toHaveLength(1);
    const containers = await node.client.listContainers({ labelSelector: { 'io.kubernetes.pod.name': 'after' } });
    expect(containers).toHaveLength(1);
    expect(node.events.filter((e) => e.type === 'PodSeen' && e.pod === 'default/after')).toHaveLength(1);
    // The new apiserver did not have the old resourceVersion: the source listed again.
    expect(node.kubelet.podConfig.apiserverStats()!.lists).toBeGreaterThan(lists);
  });

  // Last but one: a drained node takes no more pods.
  it('drains: its pods Failed (Terminated, DisruptionTarget) in the apiserver, the Node not ready as shutting down, new pods rejected', async () => {
    await apply(boundPod('drained'));
    await eventually(async () => (await getPod('drained')).status?.phase === 'Running', 'drained to run', 30_000);
    await node.kubelet.drain();
    // The drain ends once the statuses it set reached the apiserver.
    const drained = await getPod('drained');
    expect(drained.status).toMatchObject({
      phase: 'Failed',
      reason: 'Terminated',
      message: 'Pod was terminated in response to imminent node shutdown.',
    });
    expect(drained.status?.conditions?.find((c) => c.type === 'DisruptionTarget')).toMatchObject({
      status: 'True',
      reason: 'TerminationByKubelet',
    });
    expect(drained.status?.containerStatuses?.[0].state?.terminated).toBeDefined();
    const ready = (await cp.kubectlJson<Node>('get', 'node', NODE)).status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'False', reason: 'KubeletNotReady', message: 'node is shutting down' });
    const nodeEvents = await cp.kubectlJson<{ items: { reason: string; message: string }[] }>(
      'get',
      'events',
      '--field-selector',
      `involvedObject.kind=Node,involvedObject.name=${NODE}`,
    );
    expect(nodeEvents.items).toContainEqual(
      expect.objectContaining({ reason: 'Shutdown', message: 'Shutdown manager detected shutdown event' }),
    );

    await apply(boundPod('late'));
    const late = await eventually(
      async () => {
        const p = await getPod('late');
        return p.status?.phase === 'Failed' ? p : undefined;
      },
      'late to be rejected',
      30_000,
    );
    expect(late.status).toMatchObject({
      reason: 'NodeShutdown',
      message: 'Pod was rejected: Pod was rejected as the node is shutting down.',
    });
  });

  it('reports Ready=False with the reason while the runtime is down', async () => {
    const readyOf = async () => (await cp.kubectlJson<Node>('get', 'node', NODE)).status?.conditions?.find((c) => c.type === 'Ready');
    await cleanupRuntime();
    const down = await eventually(
      async () => {
        const c = await readyOf();
        return c?.status === 'False' && c.message?.includes('container runtime is down') ? c : undefined;
      },
      'the Node to be NotReady as its runtime is down',
      30_000,
    );
    expect(down.reason).toBe('KubeletNotReady');
    expect(down.message).toMatch(/container runtime is down/);
  });
});
