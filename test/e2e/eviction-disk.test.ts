// Disk pressure through the real path: `knode run --config` on a root dir
// that is a small tmpfs, so the node's filesystem fills on purpose. A Job's
// pod writes into its root file system until the free space is under the
// hard `nodefs.available` threshold. The eviction manager then reclaims what
// the node holds first, as the kubelet does (the dead container of a finished
// Job's pod, then an image no container uses), and, the pressure still there,
// evicts the writer; the static pod is critical and stays.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knode, startKnodeRun, stopKnodeRun } from '../helpers/cli.js';
import { mirrorConfig, startRegistry, type LocalRegistry } from '../helpers/registry.js';
import { eventually } from '../helpers/runtimes.js';

const isRoot = process.getuid?.() === 0;
const root = mkdtempSync(join(tmpdir(), 'knode-eviction-disk-'));
let registry: LocalRegistry | undefined;

interface NodeEvent {
  type: string;
  pod: string;
  message: string;
  detail?: { removed?: unknown[] };
}

/** The node's lifecycle events so far (`--output json`: one JSON object a line). */
function eventsOf(output: string): NodeEvent[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as NodeEvent);
}

beforeAll(() => {
  if (!isRoot) return;
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'knode-e2e-nodefs', root]);
  registry = startRegistry();
  writeFileSync(join(root, 'registries.yaml'), mirrorConfig(registry.host));
}, 180_000);

afterAll(async () => {
  if (!isRoot) return;
  await knode(['runtime', 'stop', '--root-dir', root]);
  registry?.stop();
  execFileSync('umount', [root]);
  rmdirSync(root);
});

describe.skipIf(!isRoot)('disk pressure on a node whose root dir is a small tmpfs', () => {
  it('collects dead containers and unused images before it evicts, and never the static pod', async () => {
    const unused = await knode(['image', 'pull', 'busybox-user:1.0', '--root-dir', root]);
    expect(unused.code, unused.stderr).toBe(0);
    const dir = join(root, 'manifests');
    mkdirSync(dir);
    const config = join(root, 'kubelet.yaml');
    writeFileSync(
      config,
      [
        'apiVersion: kubelet.config.k8s.io/v1beta1',
        'kind: KubeletConfiguration',
        'evictionHard:',
        '  nodefs.available: 20Mi',
        // Images may go as soon as nothing uses them; the periodic image collection stays off, so only the eviction manager collects.
        'imageMinimumGCAge: 0s',
        'imageGCHighThresholdPercent: 100',
        '',
      ].join('\n'),
    );
    const forever = `trap 'exit 0' TERM; while true; do sleep 1 & wait $!; done`;
    writeFileSync(
      join(dir, 'static.yaml'),
      `apiVersion: v1\nkind: Pod\nmetadata: { name: keeper }\nspec:\n  containers: [{ name: app, image: busybox:1.36, command: ["sh", "-c", "${forever}"] }]\n`,
    );
    const job = (name: string, script: string) =>
      `apiVersion: batch/v1\nkind: Job\nmetadata: { name: ${name} }\nspec:\n  backoffLimit: 0\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{ name: app, image: busybox:1.36, command: ["sh", "-c", "${script}"] }]\n`;
    writeFileSync(join(dir, 'done.yaml'), job('done', 'true'));
    // The writer waits for the other pods to settle, then fills its root file system past the threshold.
    writeFileSync(join(dir, 'writer.yaml'), job('writer', `sleep 8; head -c 29360128 /dev/zero > /fill; ${forever}`));

    const node = startKnodeRun(dir, root, ['--config', config, '--output', 'json']);
    try {
      const evicted = await eventually(
        () => eventsOf(node.output()).find((e) => e.type === 'PodEvicted'),
        () => `a pod evicted; the node said:\n${node.output()}`,
        90_000,
      );
      expect(evicted.pod).toMatch(/^default\/writer-/);
      expect(evicted.message).toMatch(
        /The node was low on resource: ephemeral-storage\. Threshold quantity: 20Mi, available: \d+(Ki|Mi)?\. Container app was using \d+(Ki|Mi), request is 0, has larger consumption of ephemeral-storage\. $/,
      );

      // Before that eviction, in this order: the threshold met, the dead container of the finished Job
      // collected, the unused image collected.
      const events = eventsOf(node.output());
      const at = (found: (e: NodeEvent) => boolean) => events.findIndex(found);
      const evictedAt = at((e) => e.type === 'PodEvicted');
      const metAt = at((e) => e.type === 'EvictionThresholdMet' && e.message === 'Attempting to reclaim ephemeral-storage');
      const containersAt = at((e) => e.type === 'ContainerGarbageCollected' && /^removed [1-9]\d* dead containers/.test(e.message));
      const imagesAt = at((e) => e.type === 'ImageGarbageCollected' && e.message.startsWith('removed 1 images'));
      expect(metAt, 'EvictionThresholdMet for ephemeral-storage').toBeGreaterThanOrEqual(0);
      expect(containersAt, 'ContainerGarbageCollected with dead containers').toBeGreaterThanOrEqual(0);
      expect(imagesAt, 'ImageGarbageCollected with one image').toBeGreaterThanOrEqual(0);
      expect(metAt).toBeLessThan(containersAt);
      expect(containersAt).toBeLessThan(imagesAt);
      expect(imagesAt).toBeLessThan(evictedAt);
      expect(events.some((e) => e.type === 'NodePressureChanged' && /DiskPressure/.test(JSON.stringify(e)))).toBe(true);

      // The image no container used is gone; the one the pods use is kept.
      const images = await knode(['image', 'ls', '--root-dir', root]);
      expect(images.stdout).not.toMatch(/busybox-user/);
      expect(images.stdout).toMatch(/busybox\s+1\.36/);
      // The static pod is critical: never evicted.
      expect(events.some((e) => e.type === 'PodEvicted' && e.pod.startsWith('default/keeper'))).toBe(false);
    } finally {
      await stopKnodeRun(node, ['--root-dir', root]);
    }
  }, 150_000);
});
