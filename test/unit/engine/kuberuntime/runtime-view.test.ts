import { describe, expect, it } from 'vitest';
import { KubeletLabels } from '../../../../src/cri/types.js';
import { RestartPolicyAnnotation } from '../../../../src/engine/kuberuntime/labels.js';
import { podsFromRuntime } from '../../../../src/engine/kuberuntime/runtime-view.js';
import { FakeRuntimeService, podLabels } from '../../../helpers/fake-runtime-service.js';

/** A pod of one sandbox whose containers ended with EXITCODES, its sandbox marked with POLICY (none: unmarked). */
async function phaseOf(
  policy: string | undefined,
  exitCodes: number[],
): Promise<{ phase?: string; restartPolicy?: string; annotations?: object }> {
  const runtime = new FakeRuntimeService();
  const labels = podLabels({ uid: 'u1', name: 'p', namespace: 'default' }, 'node-1');
  runtime.addSandbox({
    id: 's1',
    metadata: { name: 'p', uid: 'u1', namespace: 'default', attempt: 0 },
    labels,
    annotations: { team: 'a', ...(policy ? { [RestartPolicyAnnotation]: policy } : {}) },
  });
  exitCodes.forEach((exitCode, i) =>
    runtime.addContainer('s1', {
      id: `c${i}`,
      metadata: { name: `c${i}`, attempt: 0 },
      state: 'CONTAINER_EXITED',
      exitCode,
      labels: { ...labels, [KubeletLabels.containerName]: `c${i}` },
    }),
  );
  const [pod] = await podsFromRuntime(runtime, 'knode');
  return { phase: pod.status?.phase, restartPolicy: pod.spec.restartPolicy, annotations: pod.metadata.annotations };
}

describe('the runtime view of a pod whose containers all ended', () => {
  it("gives the kubelet's phase for the restart policy knode marked on the sandbox", async () => {
    expect((await phaseOf('Always', [0, 1])).phase).toBe('Running');
    expect((await phaseOf('Always', [0])).phase).toBe('Running');
    expect((await phaseOf('OnFailure', [0, 0])).phase).toBe('Succeeded');
    expect((await phaseOf('OnFailure', [0, 2])).phase).toBe('Running');
    expect((await phaseOf('Never', [0, 0])).phase).toBe('Succeeded');
    expect((await phaseOf('Never', [0, 2])).phase).toBe('Failed');
  });

  it('reads an unmarked sandbox as restarting none, and keeps the mark out of the pod annotations', async () => {
    expect(await phaseOf(undefined, [1])).toEqual({ phase: 'Failed', restartPolicy: undefined, annotations: { team: 'a' } });
    expect(await phaseOf('OnFailure', [0])).toEqual({ phase: 'Succeeded', restartPolicy: 'OnFailure', annotations: { team: 'a' } });
  });
});

describe("the runtime view's pod IPs", () => {
  /** Two pods, one on a ready sandbox with two IPs, one whose sandbox stopped. */
  function twoPods(): FakeRuntimeService {
    const runtime = new FakeRuntimeService();
    for (const [uid, state] of [
      ['u1', 'SANDBOX_READY'],
      ['u2', 'SANDBOX_NOTREADY'],
    ] as const)
      runtime.addSandbox({
        id: `s-${uid}`,
        state,
        metadata: { name: uid, uid, namespace: 'default', attempt: 0 },
        labels: podLabels({ uid, name: uid, namespace: 'default' }, 'node-1'),
        network: { ip: '10.88.0.7', additionalIps: [{ ip: 'fd00::7' }] },
      });
    return runtime;
  }

  it("are the ready sandbox's, as the kubelet takes them, when asked for", async () => {
    const pods = await podsFromRuntime(twoPods(), 'knode', { addresses: true });
    expect(pods.map((p) => [p.metadata.uid, p.status?.podIP, p.status?.podIPs])).toEqual([
      ['u1', '10.88.0.7', [{ ip: '10.88.0.7' }, { ip: 'fd00::7' }]],
      ['u2', undefined, undefined],
    ]);
  });

  it('are not asked for otherwise', async () => {
    const runtime = twoPods();
    const pods = await podsFromRuntime(runtime, 'knode');
    expect(pods.map((p) => p.status?.podIP)).toEqual([undefined, undefined]);
    expect(runtime.calls('podSandboxStatus')).toEqual([]);
  });
});
