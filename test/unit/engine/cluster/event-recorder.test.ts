import { describe, expect, it } from 'vitest';
import { EventRecorder } from '../../../../src/engine/cluster/event-recorder.js';
import { EventStream } from '../../../../src/engine/events.js';
import { FakeClock } from '../../../../src/util/clock.js';
import { FakeCluster } from '../../../helpers/fake-cluster.js';

function setup() {
  const cluster = new FakeCluster();
  const clock = new FakeClock();
  const events = new EventStream(() => clock.now());
  const recorder = new EventRecorder(cluster, clock, 'n1', () => {});
  recorder.start(events);
  const started = (pod = 'shop/web') =>
    events.emit({
      type: 'ContainerStarted',
      pod,
      uid: 'uid-1',
      container: 'app',
      reason: 'Started',
      message: 'Started container app',
      detail: { containerId: 'c-1', restartCount: 0, containerType: 'container' },
    });
  return { cluster, clock, events, recorder, started };
}

describe('the event recorder', () => {
  it("posts the kubelet's events on the pod and container, from the kubelet on this node", async () => {
    const { cluster, recorder, started, events } = setup();
    started();
    events.emit({
      type: 'ProbeFailed',
      pod: 'shop/web',
      uid: 'uid-1',
      container: 'app',
      reason: 'Unhealthy',
      message: 'Liveness probe failed: timeout',
      detail: { probe: 'liveness' },
    });
    events.emit({ type: 'PodSynced', pod: 'shop/web', uid: 'uid-1', detail: { updateType: 'sync', state: 'syncing', durationMs: 1 } });
    await recorder.idle();
    expect(cluster.events.map((e) => [e.type, e.reason, e.message])).toEqual([
      ['Normal', 'Started', 'Started container app'],
      ['Warning', 'Unhealthy', 'Liveness probe failed: timeout'],
    ]);
    expect(cluster.events[0]).toMatchObject({
      metadata: { namespace: 'shop', name: expect.stringMatching(/^web\.[0-9a-f]+$/) },
      involvedObject: { kind: 'Pod', namespace: 'shop', name: 'web', uid: 'uid-1', fieldPath: 'spec.containers{app}' },
      source: { component: 'kubelet', host: 'n1' },
      count: 1,
    });
  });

  it('counts a repeat within 10 minutes on the first event, and creates a new one after', async () => {
    const { cluster, clock, recorder, started } = setup();
    started();
    await clock.advance(60_000);
    started();
    started();
    await recorder.idle();
    expect(cluster.calls.filter((c) => /Event/.test(c)).map((c) => c.split(' ')[0])).toEqual(['createEvent', 'patchEvent', 'patchEvent']);
    expect(cluster.events[0].count).toBe(3);
    await clock.advance(10 * 60_000);
    started();
    await recorder.idle();
    expect(cluster.events).toHaveLength(2);
  });

  it('throttles a pod that floods: 25 at once, then one per 5 minutes', async () => {
    const { cluster, clock, recorder, events } = setup();
    for (let i = 0; i < 40; i++)
      events.emit({
        type: 'ContainerFailed',
        pod: 'shop/web',
        uid: 'uid-1',
        container: 'app',
        reason: 'Failed',
        message: `Error: attempt ${i}`,
      });
    await recorder.idle();
    expect(cluster.events).toHaveLength(25);
    await clock.advance(5 * 60_000);
    events.emit({ type: 'ContainerFailed', pod: 'shop/web', uid: 'uid-1', container: 'app', reason: 'Failed', message: 'Error: later' });
    await recorder.idle();
    expect(cluster.events.at(-1)?.message).toBe('Error: later');
  });

  it('posts a failed container garbage collection on the Node as a ContainerGCFailed warning', async () => {
    const { cluster, recorder, events } = setup();
    events.emit({ type: 'ContainerGCFailed', pod: '', uid: '', reason: 'ContainerGCFailed', message: 'ListContainers: UNAVAILABLE' });
    await recorder.idle();
    expect(cluster.events.map((e) => [e.involvedObject.kind, e.type, e.reason, e.message])).toEqual([
      ['Node', 'Warning', 'ContainerGCFailed', 'ListContainers: UNAVAILABLE'],
    ]);
  });

  it("posts a missing clusterDNS on the Node and on the pod, a cut resolver on the pod and an unusable host resolver file on the Node, as the kubelet's DNS warnings", async () => {
    const { cluster, recorder, events } = setup();
    const nodeMessage =
      'kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.';
    const podMessage = `pod: "web_shop(uid-1)". ${nodeMessage}`;
    events.emit({
      type: 'MissingClusterDNS',
      pod: 'shop/web',
      uid: 'uid-1',
      reason: 'MissingClusterDNS',
      message: podMessage,
      detail: { nodeMessage },
    });
    events.emit({
      type: 'DNSConfigForming',
      pod: 'shop/web',
      uid: 'uid-1',
      reason: 'DNSConfigForming',
      message: 'Nameserver limits were exceeded',
    });
    const unreadable = 'open /x: no such file or directory';
    events.emit({ type: 'CheckLimitsForResolvConf', pod: '', uid: '', reason: 'CheckLimitsForResolvConf', message: unreadable });
    await recorder.idle();
    expect(cluster.events.map((e) => [e.involvedObject.kind, e.involvedObject.name, e.type, e.reason, e.message])).toEqual([
      ['Node', 'n1', 'Warning', 'MissingClusterDNS', nodeMessage],
      ['Pod', 'web', 'Warning', 'MissingClusterDNS', podMessage],
      ['Pod', 'web', 'Warning', 'DNSConfigForming', 'Nameserver limits were exceeded'],
      ['Node', 'n1', 'Warning', 'CheckLimitsForResolvConf', unreadable],
    ]);
  });

  it('posts Starting and NodeReady/NodeNotReady on the Node', async () => {
    const { cluster, recorder, events } = setup();
    const detail = { nodeName: 'n1', runtimeName: 'knode-runtime', runtimeVersion: '0.1.0', sources: ['file'], evented: false };
    events.emit({ type: 'NodeStarted', pod: '', uid: '', detail });
    events.emit({ type: 'NodeReadyChanged', pod: '', uid: '', reason: 'KubeletNotReady', message: 'runtime down' });
    await recorder.idle();
    expect(cluster.events.map((e) => [e.involvedObject.kind, e.involvedObject.name, e.reason, e.message])).toEqual([
      ['Node', 'n1', 'Starting', 'Starting kubelet.'],
      ['Node', 'n1', 'NodeNotReady', 'Node n1 status is now: NodeNotReady'],
    ]);
  });
});

describe('the events of DNS and eviction', () => {
  it('posts a missing clusterDNS on the pod and the node, an eviction and a preemption on the pod, and pressure on the node', async () => {
    const { cluster, recorder, events } = setup();
    events.emit({
      type: 'MissingClusterDNS',
      pod: 'shop/web',
      uid: 'uid-1',
      reason: 'MissingClusterDNS',
      message: 'pod: "web_shop(uid-1)". kubelet does not have ClusterDNS IP configured',
      detail: { nodeMessage: 'kubelet does not have ClusterDNS IP configured' },
    });
    events.emit({
      type: 'PodEvicted',
      pod: 'shop/web',
      uid: 'uid-1',
      reason: 'Evicted',
      message: 'The node was low on resource: memory. ',
    });
    events.emit({
      type: 'PodPreempted',
      pod: 'shop/batch',
      uid: 'uid-2',
      reason: 'Preempting',
      message: 'Preempted in order to admit critical pod',
    });
    events.emit({ type: 'NodePressureChanged', pod: '', uid: '', reason: 'NodeHasInsufficientMemory', message: '' });
    events.emit({
      type: 'EvictionThresholdMet',
      pod: '',
      uid: '',
      reason: 'EvictionThresholdMet',
      message: 'Attempting to reclaim memory',
    });
    await recorder.idle();
    expect(cluster.events.map((e) => [e.involvedObject.kind, e.type, e.reason, e.message])).toEqual([
      ['Node', 'Warning', 'MissingClusterDNS', 'kubelet does not have ClusterDNS IP configured'],
      ['Pod', 'Warning', 'MissingClusterDNS', 'pod: "web_shop(uid-1)". kubelet does not have ClusterDNS IP configured'],
      ['Pod', 'Warning', 'Evicted', 'The node was low on resource: memory. '],
      ['Pod', 'Warning', 'Preempting', 'Preempted in order to admit critical pod'],
      ['Node', 'Normal', 'NodeHasInsufficientMemory', 'Node n1 status is now: NodeHasInsufficientMemory'],
      ['Node', 'Warning', 'EvictionThresholdMet', 'Attempting to reclaim memory'],
    ]);
  });
});
