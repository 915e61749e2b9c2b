// The hostile manifest corpus through the real path: every case written as a
// file into a running node's static pod directory (embedded runtime over
// gRPC), beside three valid pods. The valid pods run, every file that must
// be refused is reported with its file, the node stays healthy and its memory
// bounded.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { hostileCorpus, validPod } from '../helpers/hostile-manifests.js';
import { nodesOn } from '../helpers/node.js';
import { eventually, runtimesUnderTest } from '../helpers/runtimes.js';

describe('a node fed a thousand hostile manifests', () => {
  const nodes = nodesOn(runtimesUnderTest()[0]);

  it('runs the valid pods beside them, reports each bad file, and stays healthy and bounded', async () => {
    const node = await nodes.start();
    const corpus = hostileCorpus();
    const rssBefore = process.memoryUsage().rss;
    for (const name of ['good-a', 'good-b', 'good-c']) {
      const pod = validPod(name);
      writeFileSync(join(node.podsDir, `${name}.yaml`), stringify(pod));
    }
    for (const c of corpus) writeFileSync(join(node.podsDir, `${c.name}.yaml`), c.text);

    for (const name of ['good-a', 'good-b', 'good-c']) {
      await node.waitForPod(name, 'Running', (p) => p.status?.phase === 'Running', 90_000);
    }
    const refused = corpus.filter((c) => c.mustRefuse);
    const reported = await eventually(
      () => {
        const files = new Set(
          node.events.filter((e) => e.type === 'ManifestError').map((e) => /\/([^/]+)\.yaml\b/.exec(e.message ?? '')?.[1]),
        );
        return refused.every((c) => files.has(c.name)) ? files : undefined;
      },
      'every refused file to be reported',
      60_000,
    );
    expect(reported.size).toBeGreaterThanOrEqual(refused.length);
    // None of the refused manifests became a pod.
    const names = new Set(node.kubelet.podManager.getPods().map((p) => p.metadata.name));
    for (const prefix of ['typed', 'nest', 'bomb', 'uni', 'trav', 'num', 'bigfile'])
      expect(names.has(`${prefix}-${node.nodeName}`)).toBe(false);
    expect(node.kubelet.healthz()).toMatchObject({ ok: true });
    // The whole node (this process) grows by less than the corpus is big, many times over.
    const corpusBytes = corpus.reduce((n, c) => n + c.text.length, 0);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(400 * 1024 * 1024);
    expect(corpusBytes).toBeGreaterThan(10 * 1024 * 1024);
  }, 240_000);
});
