// The container log manager on every runtime: a kubelet in this process
// with a small containerLogMaxSize rotates a writer's log through the
// runtime's ReopenContainerLog, compresses the older files and keeps the
// directory within containerLogMaxSize × containerLogMaxFiles, as the
// kubelet does it on any CRI runtime.
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KubeletLabels } from '../../src/cri/types.js';
import { TEST_IMAGE } from '../helpers/cri.js';
import { nodesOn } from '../helpers/node.js';
import { eventually, runtimesUnderTest } from '../helpers/runtimes.js';

const MAX_SIZE = 2 * 1024;
const MAX_FILES = 5;
// About 450 bytes a second: the kubelet bounds a log only at its looks (3 s apart, its minimum), so the current
// file and the newest rotated one may each hold MAX_SIZE and a look's writing beside MAX_FILES - 2 compressed
// ones; at this pace that stays within MAX_SIZE × MAX_FILES.
const WRITER = 'i=0; while true; do i=$((i+1)); echo "line $i"; sleep 0.1; done';

describe.each(runtimesUnderTest())('container log rotation by the kubelet on the $name runtime', (runtime) => {
  const nodes = nodesOn(runtime);

  it('keeps a writer within containerLogMaxSize × containerLogMaxFiles, older files compressed', async () => {
    const node = await nodes.start({
      config: { containerLogMaxSize: MAX_SIZE, containerLogMaxFiles: MAX_FILES, containerLogMonitorInterval: 3_000 },
    });
    node.writePod('writer', { containers: [{ name: 'app', image: TEST_IMAGE, command: ['sh', '-c', WRITER] }] });
    const pod = await node.waitForPod('writer', 'Running', (p) => p.status?.phase === 'Running');
    const [container] = await node.client.listContainers({ labelSelector: { [KubeletLabels.podUid]: pod.metadata.uid! } });
    const dir = dirname((await node.client.containerStatus(container.id)).status!.logPath);

    let largest = 0;
    let most = 0;
    const compressed = new Set<string>();
    const files = () =>
      readdirSync(dir).flatMap((name) => {
        try {
          return [{ name, size: statSync(join(dir, name)).size }];
        } catch {
          return []; // rotated away as it was read
        }
      });
    // Until a compressed file has been removed: MAX_FILES - 2 compressed ones are kept.
    await eventually(
      () => {
        const now = files();
        largest = Math.max(
          largest,
          now.reduce((sum, f) => sum + f.size, 0),
        );
        most = Math.max(most, now.filter((f) => !f.name.endsWith('.tmp')).length);
        for (const f of now) if (f.name.endsWith('.gz')) compressed.add(f.name);
        return compressed.size >= MAX_FILES - 1;
      },
      () => `${MAX_FILES - 1} compressed logs (files now: ${JSON.stringify(files())})`,
      60_000,
    );
    expect(most).toBeLessThanOrEqual(MAX_FILES);
    expect(largest).toBeGreaterThan(MAX_SIZE);
    expect(largest).toBeLessThanOrEqual(MAX_SIZE * MAX_FILES);
    expect([...compressed].every((name) => /^0\.log\.\d{8}-\d{6}\.gz$/.test(name))).toBe(true);
    expect(node.events.some((e) => e.type === 'ContainerLogRotated')).toBe(true);
  }, 90_000);
});
