import { afterAll, beforeAll } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import { ensureImage } from './cri.js';
import { startNode, type TestNode } from './node.js';
import { startEmbeddedRuntime, type EmbeddedRuntimeProcess } from './runtimes.js';
import { SkewClock } from './skew-clock.js';

export interface SkewedNode {
  clock: SkewClock;
  node: TestNode;
  runtime: EmbeddedRuntimeProcess;
}

/**
 * For one test file: a real embedded runtime holding the test image, and a
 * node on a SkewClock beside it (back-offs skipped, not slept), started before
 * the file's tests and stopped after them.
 */
export function skewedNodeOnEmbeddedRuntime(): SkewedNode {
  const t = { clock: new SkewClock() } as SkewedNode;
  beforeAll(async () => {
    t.runtime = await startEmbeddedRuntime();
    const client = new CriClient(t.runtime.endpoint);
    await ensureImage(client);
    client.close();
    t.node = await startNode(t.runtime.endpoint, { clock: t.clock });
  });
  afterAll(async () => {
    await t.node?.stop();
    t.clock.dispose();
    await t.runtime?.stop();
  });
  return t;
}
