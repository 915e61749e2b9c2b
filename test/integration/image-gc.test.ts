// Image garbage collection through the kubelet on the embedded runtime over
// real gRPC: usage is this machine's real filesystem (statfs of the mountpoint
// the runtime's ImageFsInfo names), thresholds of 1% and 0% make the
// collector free what it can; the unused image goes, the one a running pod
// uses stays, and not reaching the low threshold is a FreeDiskSpaceFailed.
// Embedded only: a containerd under test is shared with other suites, whose
// images this collection would remove.
import { describe, expect, it } from 'vitest';
import { IMAGE_GC_PERIOD } from '../../src/engine/images/image-garbage-collector.js';
import { TEST_IMAGE } from '../helpers/cri.js';
import { nodesOn, sleepUntilTerm } from '../helpers/node.js';
import { eventually, runtimesUnderTest } from '../helpers/runtimes.js';
import { SkewClock } from '../helpers/skew-clock.js';

describe.each(runtimesUnderTest().filter((r) => r.kind === 'embedded'))('the kubelet collecting images on the $name runtime', (runtime) => {
  const nodes = nodesOn(runtime);

  it('removes an unused image when usage is over the high threshold, and keeps the image a running pod uses', async () => {
    const clock = new SkewClock();
    try {
      const node = await nodes.start({
        clock,
        config: { imageGCHighThresholdPercent: 1, imageGCLowThresholdPercent: 0, imageMinimumGCAge: 60_000 },
      });
      node.writePod('user', { containers: [{ name: 'app', image: TEST_IMAGE, command: sleepUntilTerm() }] });
      await node.waitForPod('user', 'Running', (p) => p.status?.phase === 'Running');
      await node.client.pullImage({ image: 'docker.io/library/unused:1.0' });
      const unused = (await node.client.imageStatus({ image: 'docker.io/library/unused:1.0' }))!;
      const used = (await node.client.imageStatus({ image: TEST_IMAGE }))!.id;

      // Every five minutes on the node's clock: the first collection after the import sees the image, one a minimum age later removes it.
      const removedIds = () => node.events.flatMap((e) => (e.type === 'ImageGarbageCollected' ? e.detail.removed : []));
      const removed = () => removedIds().includes(unused.id);
      await eventually(
        () => {
          if (!removed()) clock.skip(IMAGE_GC_PERIOD);
          return removed();
        },
        () =>
          `a collection (images removed: ${removedIds().join(', ')}; events: ${node.events
            .filter((e) => e.type.includes('Image') || e.type.includes('Disk'))
            .map((e) => `${e.type}: ${e.message}`)
            .join('; ')})`,
        30_000,
      );
      const ids = (await node.client.listImages()).map((i) => i.id);
      expect(ids).toContain(used);
      expect(ids).not.toContain(unused.id);
      expect(removedIds()).not.toContain(used);
      // Removing it could not bring this machine's filesystem to 0% used.
      const failed = node.events.find((e) => e.type === 'FreeDiskSpaceFailed');
      expect(failed?.message).toMatch(
        /^Insufficient free disk space on the node's image filesystem \(\d+% of [\d.]+ [KMGT]iB used\)\. Failed to free sufficient space by deleting unused images \(freed \d+ bytes\)\./,
      );
      expect(node.kubelet.imageManager.records().get(used)?.lastUsed).toBeGreaterThan(0);
    } finally {
      clock.dispose();
    }
  }, 90_000);
});
