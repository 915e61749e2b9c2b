// Image pulls of the embedded runtime's OCI store (issue: real images): the
// 3-layer busybox image from a local docker-registry (test/registry/registry.sh),
// cold (a fresh, empty store each time: every blob fetched, checked and
// unpacked) and warm (the same store again: the tag resolved, nothing fetched).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { OciImageStore } from '../src/runtime/oci/image-store.js';
import { parseRegistryConfig } from '../src/runtime/oci/registry-config.js';
import { mirrorConfig, startRegistry } from '../test/helpers/registry.js';

export interface PullFigures {
  image: string;
  cold: number[];
  warm: number[];
}

export async function benchPulls(coldRuns = 10, warmRuns = 20): Promise<PullFigures> {
  const registry = startRegistry();
  const config = parseRegistryConfig(parse(mirrorConfig(registry.host)));
  const image = registry.images.layers;
  const cold: number[] = [];
  const warm: number[] = [];
  try {
    for (let i = 0; i < coldRuns; i++) {
      const dir = mkdtempSync(join(tmpdir(), 'knode-pull-bench-'));
      const store = new OciImageStore(dir, config);
      const t0 = performance.now();
      await store.pull(image);
      cold.push(performance.now() - t0);
      if (i === coldRuns - 1) {
        for (let j = 0; j < warmRuns; j++) {
          const t1 = performance.now();
          await store.pull(image);
          warm.push(performance.now() - t1);
        }
      }
      rmSync(dir, { recursive: true, force: true });
    }
  } finally {
    registry.stop();
  }
  return { image, cold, warm };
}
