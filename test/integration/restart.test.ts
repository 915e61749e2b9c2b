// A node restarted on the same runtime, through the real path: a kubelet in
// this process stopped (its containers left running) and started again with
// the same root dir, pod dir and node name.
import { describe, expect, it } from 'vitest';
import { KubeletLabels } from '../../src/cri/types.js';
import { containerOf, nodesOn, sleepUntilTerm } from '../helpers/node.js';
import { eventually, runtimesUnderTest } from '../helpers/runtimes.js';

describe.each(runtimesUnderTest())('a restarted node on the $name runtime', (runtime) => {
  const nodes = nodesOn(runtime);

  it('stops a pod whose manifest went while it was down, and runs it anew when the manifest comes back', async () => {
    const first = await nodes.start();
    const spec = { terminationGracePeriodSeconds: 2, containers: [{ name: 'main', image: 'busybox:1.36', command: sleepUntilTerm() }] };
    first.writePod('back', spec);
    const running = await first.waitForPod('back', 'Running', (p) => !!containerOf(p, 'main')?.state?.running);
    const uid = running.metadata.uid!;
    await first.stop();
    first.removePod('back');

    const second = await nodes.restart(first);
    const sandboxes = () => second.client.listPodSandbox({ labelSelector: { [KubeletLabels.podUid]: uid } });
    await eventually(async () => (await sandboxes()).every((s) => s.state === 'SANDBOX_NOTREADY'), 'the orphan to be stopped', 20_000);
    expect(second.events.some((e) => e.type === 'OrphanKilled' && e.uid === uid)).toBe(true);
    // A housekeeping pass that sees the orphan dead, whose stopped sandbox stays for the collector.
    const passes = second.events.filter((e) => e.type === 'Housekeeping').length;
    await eventually(() => second.events.filter((e) => e.type === 'Housekeeping').length > passes, 'a housekeeping pass', 10_000);

    // The same file is the same static pod UID: its first sync sees the stopped sandbox and makes attempt 1.
    second.writePod('back', spec);
    const again = await second.waitForPod('back', 'Running again', (p) => !!containerOf(p, 'main')?.state?.running);
    expect(again.metadata.uid).toBe(uid);
    expect(second.eventsOf('back')).not.toMatch(/Failed/);
    const attempts = (await sandboxes()).map((s) => [s.metadata?.attempt, s.state]).sort();
    expect(attempts).toEqual([
      [0, 'SANDBOX_NOTREADY'],
      [1, 'SANDBOX_READY'],
    ]);
  });
});
