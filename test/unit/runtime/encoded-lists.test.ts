import { describe, expect, it } from 'vitest';
import { EncodedListCache } from '../../../src/runtime/encoded-lists.js';

const sandbox = (id: string) => ({
  id,
  metadata: { name: id, uid: `uid-${id}`, namespace: 'default', attempt: 0 },
  state: 'SANDBOX_READY',
  createdAt: 1,
  labels: {},
  annotations: {},
  runtimeHandler: '',
});

describe('encoded list answers', () => {
  it('walks the cache now and then, not on every list of a few records', () => {
    const cache = new EncodedListCache('PodSandbox');
    const records = Array.from({ length: 1000 }, (_, i) => ({ id: `s${i}` }));
    let lookups = 0;
    const revisionOf = () => (lookups++, 1);
    cache.encode(records, revisionOf, (r) => sandbox(r.id));
    lookups = 0;
    for (const r of records) cache.encode([r], revisionOf, (x) => sandbox(x.id));
    // Was 1,000 walks over 1,000 encodings (a filtered list per pod): a million lookups.
    expect(lookups).toBeLessThanOrEqual(2 * records.length);
  });

  it('drops encodings of records that changed or are gone once enough new ones came', () => {
    const cache = new EncodedListCache('PodSandbox');
    const revisions = new Map<string, number>();
    const revisionOf = (id: string) => revisions.get(id) ?? 0;
    for (let round = 1; round <= 5; round++) {
      revisions.clear();
      const records = Array.from({ length: 400 }, (_, i) => ({ id: `r${round}-${i}` }));
      for (const r of records) revisions.set(r.id, round);
      const bytes = cache.encode(records, revisionOf, (r) => sandbox(r.id));
      expect(bytes.length).toBeGreaterThan(400);
    }
    // Five rounds of 400 records, each round's records gone the next: no more than a round and a half stays.
    expect(cache.size).toBeLessThanOrEqual(600 + 256);
  });
});
