// Every case of the hostile corpus through the decoder the sources use: no
// case throws, none takes long, every problem names the file and document
// (and the pod and field where there is one), and what must be refused is.
import { describe, expect, it } from 'vitest';
import { decodeStaticPods } from '../../../../src/engine/config/read-manifests.js';
import { validatePod } from '../../../../src/engine/config/validation.js';
import { hostileCorpus } from '../../../helpers/hostile-manifests.js';

const corpus = hostileCorpus();

describe('the hostile manifest corpus', () => {
  it('has at least a thousand cases, the same on every run', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(1_000);
    expect(hostileCorpus().map((c) => c.text)).toEqual(corpus.map((c) => c.text));
  });

  it.each([
    'wrong type',
    'huge',
    'deep nesting',
    'yaml bomb',
    'unicode and control characters',
    'path traversal',
    'absurd numbers',
    'syntax',
    'fuzz',
  ])(
    'decodes every %s case without throwing, quickly, naming where each problem is',
    (category) => {
      const cases = corpus.filter((c) => c.category === category);
      expect(cases.length).toBeGreaterThan(0);
      const failures: string[] = [];
      for (const c of cases) {
        const file = `/pods/${c.name}.yaml`;
        const started = performance.now();
        let result;
        try {
          result = decodeStaticPods(file, c.text, 'node1', 0);
        } catch (err) {
          failures.push(`${c.name}: threw ${(err as Error).message.slice(0, 200)}`);
          continue;
        }
        const ms = performance.now() - started;
        // A ceiling, not a benchmark: the largest files take a second or two of YAML parsing on a busy CI machine.
        if (ms > 10_000) failures.push(`${c.name}: took ${ms.toFixed(0)} ms`);
        const { decoded, pods } = result;
        for (const e of decoded.errors) {
          if (e.source !== file || !Number.isInteger(e.document) || !e.message)
            failures.push(`${c.name}: an error without its place: ${JSON.stringify(e).slice(0, 200)}`);
        }
        if (c.mustRefuse && pods.length > 0) failures.push(`${c.name}: accepted a pod it must refuse`);
        if (c.mustRefuse && decoded.errors.length === 0 && !decoded.unreadable) failures.push(`${c.name}: refused without saying why`);
        if (c.field && pods.length === 0 && !decoded.errors.some((e) => e.field?.startsWith(c.field!))) {
          failures.push(`${c.name}: no error names ${c.field} (got ${decoded.errors.map((e) => e.field).join(', ')})`);
        }
        if (c.field && decoded.errors.length > 0 && !decoded.errors.every((e) => e.pod === undefined || typeof e.pod === 'string'))
          failures.push(`${c.name}: a pod name that is not a string`);
        // What is accepted is a valid pod, whatever the input looked like.
        for (const p of decoded.pods) expect(validatePod(p.pod, { nameSuffixLength: 0 })).toEqual([]);
      }
      expect(failures).toEqual([]);
      // The whole category's YAML parsing, on a machine running the other suites beside it.
    },
    60_000,
  );
});
