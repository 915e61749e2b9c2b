// The node's drain (knode run --drain-on-exit, the kubelet's graceful node
// shutdown) through the real path: pods from a directory, a kubelet in this
// process, a real runtime over gRPC.
import { describe, expect, it } from 'vitest';
import { KubeletLabels } from '../../src/cri/types.js';
import { NODE_SHUTDOWN_MESSAGE } from '../../src/engine/node-shutdown.js';
import { containerOf, nodesOn, sleepUntilTerm } from '../helpers/node.js';
import { runtimesUnderTest } from '../helpers/runtimes.js';

const image = 'busybox:1.36';

describe.each(runtimesUnderTest())('draining a node on the $name runtime', (runtime) => {
  const nodes = nodesOn(runtime);

  it('stops every running pod (Failed, Terminated, DisruptionTarget), leaves a finished one as it was, and admits no new pod', async () => {
    const node = await nodes.start({ config: { shutdownGracePeriod: 20_000, shutdownGracePeriodCriticalPods: 10_000 } });
    node.writePod('web', { terminationGracePeriodSeconds: 30, containers: [{ name: 'main', image, command: sleepUntilTerm() }] });
    node.writePod('done', { restartPolicy: 'Never', containers: [{ name: 'main', image, command: ['true'] }] });
    const running = await node.waitForPod('web', 'Running', (p) => !!containerOf(p, 'main')?.state?.running);
    await node.waitForPod('done', 'Succeeded', (p) => p.status?.phase === 'Succeeded');

    await node.kubelet.drain();

    const web = node.pod('web')!;
    expect(web.status).toMatchObject({ phase: 'Failed', reason: 'Terminated', message: NODE_SHUTDOWN_MESSAGE });
    expect(web.status!.conditions!.find((c) => c.type === 'DisruptionTarget')).toMatchObject({
      status: 'True',
      reason: 'TerminationByKubelet',
      message: NODE_SHUTDOWN_MESSAGE,
    });
    // Its program ended on the SIGTERM, well within the 10 s its group had.
    expect(containerOf(web, 'main')!.state!.terminated).toMatchObject({ exitCode: 143 });
    const uid = running.metadata.uid!;
    const containers = await node.client.listContainers({ labelSelector: { [KubeletLabels.podUid]: uid } });
    expect(containers.map((c) => c.state)).toEqual(['CONTAINER_EXITED']);
    const sandboxes = await node.client.listPodSandbox({ labelSelector: { [KubeletLabels.podUid]: uid } });
    expect(sandboxes.map((s) => s.state)).toEqual(['SANDBOX_NOTREADY']);
    expect(node.pod('done')!.status).toMatchObject({ phase: 'Succeeded' });
    expect(node.events.filter((e) => e.type === 'NodeShutdown').map((e) => e.message)).toEqual(['draining the node: stopping 1 pod']);

    node.writePod('late', { containers: [{ name: 'main', image, command: sleepUntilTerm() }] });
    const late = await node.waitForPod('late', 'rejected', (p) => p.status?.phase === 'Failed');
    expect(late.status).toMatchObject({
      reason: 'NodeShutdown',
      message: 'Pod was rejected: Pod was rejected as the node is shutting down.',
    });
  });
});
