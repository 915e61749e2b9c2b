// The admit step of the SyncHandler: what a rejected pod's status says, and
// how a critical pod gets its room (the kubelet's rejectPod and preemption).
import { cpus } from 'node:os';
import { describe, expect, it } from 'vitest';
import type { Pod, PodStatus } from '../../../src/engine/api/v1.js';
import { EventStream, type LifecycleEvent } from '../../../src/engine/events.js';
import { BasicPodManager } from '../../../src/engine/pod-manager.js';
import type { PodWorkers } from '../../../src/engine/pod-workers.js';
import type { StatusManager } from '../../../src/engine/status/status-manager.js';
import { SyncHandler } from '../../../src/engine/sync-handler.js';

function pod(name: string, cpu: string | undefined, source: 'file' | 'api'): Pod {
  return {
    metadata: { name, namespace: 'default', uid: name, annotations: { 'kubernetes.io/config.source': source } },
    spec: { containers: [{ name: 'c', image: 'busybox', ...(cpu ? { resources: { requests: { cpu }, limits: { cpu } } } : {}) }] },
  };
}

function setup() {
  const statuses = new Map<string, PodStatus>();
  const updates: { updateType: string; pod?: Pod; statusFn?: (s: PodStatus) => void }[] = [];
  const events = new EventStream(() => 0);
  const emitted: LifecycleEvent[] = [];
  events.subscribe((e) => emitted.push(e));
  const handler = new SyncHandler({
    podManager: new BasicPodManager(),
    podWorkers: { updatePod: (u: (typeof updates)[number]) => updates.push(u) } as unknown as PodWorkers,
    statusManager: {
      getPodStatus: (uid: string) => statuses.get(uid),
      setPodStatus: (p: Pod, s: PodStatus) => statuses.set(p.metadata.uid!, s),
    } as unknown as StatusManager,
    events,
    maxPods: 110,
    nodeName: 'n1',
    now: () => Date.parse('2026-01-02T03:04:05Z'),
  });
  return { handler, statuses, updates, emitted };
}

describe('SyncHandler admission', () => {
  it('leaves a rejected pod Failed with its QoS class, reason and message', () => {
    const { handler, statuses, updates } = setup();
    handler.handlePodAdditions([
      { ...pod('far', undefined, 'api'), spec: { ...pod('far', undefined, 'api').spec, nodeSelector: { disk: 'ssd' } } },
    ]);
    expect(statuses.get('far')).toEqual({
      qosClass: 'BestEffort',
      phase: 'Failed',
      reason: 'NodeAffinity',
      message: "Pod was rejected: Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector",
    });
    expect(updates).toEqual([]);
  });

  it('preempts a non-critical pod for a static pod that needs its CPU, marking it as the kubelet does', () => {
    const { handler, updates, emitted } = setup();
    const api = pod('api', `${cpus().length}`, 'api');
    handler.handlePodAdditions([api]);
    handler.handlePodAdditions([pod('static', '1', 'file')]);
    const kill = updates.find((u) => u.updateType === 'kill');
    expect(kill?.pod?.metadata.name).toBe('api');
    const status: PodStatus = { phase: 'Running', conditions: [] };
    kill!.statusFn!(status);
    expect(status).toEqual({
      phase: 'Failed',
      reason: 'Preempting',
      message: 'Preempted in order to admit critical pod',
      conditions: [
        {
          type: 'DisruptionTarget',
          status: 'True',
          reason: 'TerminationByKubelet',
          message: 'Pod was preempted by Kubelet to accommodate a critical pod.',
          lastProbeTime: null,
          lastTransitionTime: '2026-01-02T03:04:05Z',
        },
      ],
    });
    expect(updates.filter((u) => u.updateType === 'create').map((u) => u.pod?.metadata.name)).toEqual(['api', 'static']);
    // The kubelet's event on the preempted pod (pkg/kubelet/preemption: events.PreemptContainer).
    expect(emitted.filter((e) => e.type === 'PodPreempted').map((e) => [e.pod, e.uid, e.reason, e.message])).toEqual([
      ['default/api', 'api', 'Preempting', 'Preempted in order to admit critical pod'],
    ]);
  });
});
