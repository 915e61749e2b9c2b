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
