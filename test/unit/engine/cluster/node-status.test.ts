import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClusterError } from '../../../../src/engine/cluster/client.js';
import { NodeLease } from '../../../../src/engine/cluster/node-lease.js';
import { NodeStatusManager } from '../../../../src/engine/cluster/node-status.js';
import { EventStream } from '../../../../src/engine/events.js';
import { FakeClock, flushMicrotasks } from '../../../../src/util/clock.js';
import { FakeCluster } from '../../../helpers/fake-cluster.js';

function setup() {
  const cluster = new FakeCluster();
  const clock = new FakeClock();
  const events = new EventStream(() => clock.now());
  const problems: string[] = [];
  const runtimeConditions: { type: string; status: boolean; reason: string; message: string }[] = [];
  const warnings: string[] = [];
  const seen: string[] = [];
  events.subscribe((e) => seen.push(`${e.type}${e.reason ? ` ${e.reason}` : ''}`));
  const nodeStatus = new NodeStatusManager({
    client: cluster,
    clock,
    events,
    nodeName: 'n1',
    labels: { 'kubernetes.io/hostname': 'n1', tier: 'edge' },
    maxPods: 110,
    rootDir: mkdtempSync(join(tmpdir(), 'knode-node-')),
    hostIP: '10.1.2.3',
    kubeletPort: 10250,
    knodeVersion: '0.1.0',
    runtime: () => ({ name: 'knode', version: '0.1.0' }),
    problems: () => problems,
    runtimeConditions: () => runtimeConditions,
    updateFrequency: 10_000,
    reportFrequency: 300_000,
    warn: (m) => warnings.push(m),
  });
  return { cluster, clock, events, problems, runtimeConditions, warnings, seen, nodeStatus };
}

const ready = (cluster: FakeCluster) => cluster.nodes.get('n1')?.status?.conditions?.find((c) => c.type === 'Ready');

describe('the node status', () => {
  it('registers the Node with its labels, capacity, addresses, system info and Ready', async () => {
    const { cluster, nodeStatus } = setup();
    nodeStatus.start();
    await nodeStatus.waitRegistered();
    const node = cluster.nodes.get('n1')!;
    expect(node.metadata.labels).toEqual({ 'kubernetes.io/hostname': 'n1', tier: 'edge' });
    expect(node.status?.capacity).toMatchObject({
      pods: '110',
      cpu: expect.stringMatching(/^\d+$/),
      memory: expect.stringMatching(/^\d+Ki$/),
    });
    expect(node.status?.allocatable).toEqual(node.status?.capacity);
    expect(node.status?.addresses?.[0]).toEqual({ type: 'InternalIP', address: '10.1.2.3' });
    expect(node.status?.daemonEndpoints).toEqual({ kubeletEndpoint: { Port: 10250 } });
    expect(node.status?.nodeInfo).toMatchObject({
      containerRuntimeVersion: 'knode://0.1.0',
      kubeletVersion: expect.stringMatching(/^v1\.\d+\.\d+-knode\.0\.1\.0$/),
      operatingSystem: 'linux',
    });
    expect(node.status?.conditions?.map((c) => `${c.type}=${c.status}`)).toEqual([
      'MemoryPressure=False',
      'DiskPressure=False',
      'PIDPressure=False',
      'Ready=True',
    ]);
    expect(ready(cluster)).toMatchObject({ reason: 'KubeletReady', message: 'kubelet is posting ready status' });
    expect(nodeStatus.uid).toBe(node.metadata.uid);
    await nodeStatus.stop();
  });

  it('adopts a Node that exists, adding the labels it lacks', async () => {
    const { cluster, nodeStatus } = setup();
    await cluster.createNode({ metadata: { name: 'n1', labels: { existing: 'yes' } } });
    nodeStatus.start();
    await nodeStatus.waitRegistered();
    expect(cluster.nodes.get('n1')?.metadata.labels).toEqual({ existing: 'yes', 'kubernetes.io/hostname': 'n1', tier: 'edge' });
    expect(cluster.calls.filter((c) => /Node/.test(c))).toEqual(['createNode n1', 'createNode n1', 'getNode n1', 'patchNode n1']);
    await nodeStatus.stop();
  });

  it('retries registration with backoff while the apiserver refuses', async () => {
    const { cluster, clock, nodeStatus, warnings } = setup();
    for (let i = 0; i < 3; i++) cluster.failNext('createNode', new ClusterError(0, 'Unreachable', 'create node n1: connection refused'));
    nodeStatus.start();
    await clock.advance(100 + 200 + 400);
    await nodeStatus.waitRegistered();
    expect(cluster.calls.filter((c) => c === 'createNode n1')).toHaveLength(4);
    expect(warnings).toHaveLength(1);
    await nodeStatus.stop();
  });

  it('writes the status only when it changed, or every report period, and at once when the runtime goes down', async () => {
    const { cluster, clock, problems, events, nodeStatus, seen } = setup();
    nodeStatus.start();
    await nodeStatus.waitRegistered();
    const patches = () => cluster.calls.filter((c) => c === 'patchNodeStatus n1').length;
    await clock.advance(60_000);
    expect(patches()).toBe(0);
    problems.push('container runtime is down: the runtime does not answer');
    events.emit({ type: 'RuntimeUnhealthy', pod: '', uid: '', message: 'down' });
    await flushMicrotasks();
    expect(patches()).toBe(1);
    expect(ready(cluster)).toMatchObject({
      status: 'False',
      reason: 'KubeletNotReady',
      message: 'container runtime is down: the runtime does not answer',
    });
    expect(seen).toContain('NodeReadyChanged KubeletNotReady');
    problems.length = 0;
    await clock.advance(10_000);
    expect(patches()).toBe(2);
    expect(ready(cluster)?.status).toBe('True');
    await clock.advance(300_000);
    expect(patches()).toBe(3);
    await nodeStatus.stop();
  });

  it("shows the runtime's own conditions as node conditions, and writes one when it changes", async () => {
    const { cluster, events, runtimeConditions, nodeStatus } = setup();
    runtimeConditions.push({ type: 'ContainerSandboxReady', status: true, reason: '', message: 'bubblewrap sandboxes' });
    nodeStatus.start();
    await nodeStatus.waitRegistered();
    const sandboxes = () => cluster.nodes.get('n1')?.status?.conditions?.find((c) => c.type === 'ContainerSandboxReady');
    expect(sandboxes()).toMatchObject({ status: 'True', reason: 'ContainerSandboxReady', message: 'bubblewrap sandboxes' });
    runtimeConditions[0] = { type: 'ContainerSandboxReady', status: false, reason: 'BubblewrapUnavailable', message: 'no bwrap on PATH' };
    events.emit({ type: 'RuntimeConditionChanged', pod: '', uid: '', message: 'ContainerSandboxReady=false' });
    await flushMicrotasks();
    expect(sandboxes()).toMatchObject({ status: 'False', reason: 'BubblewrapUnavailable', message: 'no bwrap on PATH' });
    expect(ready(cluster)?.status).toBe('True');
    await nodeStatus.stop();
  });
});

describe('the node lease', () => {
  function lease() {
    const { cluster, clock } = setup();
    const warnings: string[] = [];
    const nodeLease = new NodeLease({
      client: cluster,
      clock,
      nodeName: 'n1',
      durationSeconds: 40,
      nodeUid: () => 'node-uid',
      warn: (m) => warnings.push(m),
    });
    return { cluster, clock, nodeLease, warnings };
  }

  it('creates the Lease in kube-node-lease, owned by the Node, and renews it every 10 s', async () => {
    const { cluster, clock, nodeLease } = lease();
    nodeLease.start();
    await clock.advance(0);
    const first = cluster.leases.get('kube-node-lease/n1')!;
    expect(first.spec).toMatchObject({ holderIdentity: 'n1', leaseDurationSeconds: 40 });
    expect(first.spec.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(first.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid' }]);
    await clock.advance(10_000);
    expect(Date.parse(cluster.leases.get('kube-node-lease/n1')!.spec.renewTime!) - Date.parse(first.spec.renewTime!)).toBe(10_000);
    expect(cluster.calls).toEqual(['getLease kube-node-lease/n1', 'createLease kube-node-lease/n1', 'updateLease kube-node-lease/n1']);
    await nodeLease.stop();
  });

  it('reads the Lease again after a conflict and retries quickly', async () => {
    const { cluster, clock, nodeLease, warnings } = lease();
    nodeLease.start();
    await clock.advance(0);
    cluster.failNext('updateLease', new ClusterError(409, 'Conflict', 'the object has been modified'));
    await clock.advance(10_000);
    expect(warnings[0]).toMatch(/renewing lease kube-node-lease\/n1: the object has been modified/);
    await clock.advance(200);
    expect(cluster.calls.slice(-2)).toEqual(['getLease kube-node-lease/n1', 'updateLease kube-node-lease/n1']);
    expect(nodeLease.renewals).toBe(2);
    await nodeLease.stop();
  });
});
