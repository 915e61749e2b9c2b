import { plainCoder, type PlainCoder } from '../cri/proto.js';

/**
 * List answers built from per-record encodings that are cached until the
 * record changes: a relist of 1,000 unchanged containers costs a copy, not
 * 1,000 protobuf encodings. A ListContainersResponse is field 1 repeated, so
 * the answer is each cached `Container` message framed as field 1 (kept framed).
 */
export class EncodedListCache {
  private readonly type: PlainCoder;
  private readonly cache = new Map<string, { revision: number; frame: Uint8Array }>();
  /** Encodings added since the last prune: only those can have made others stale, so pruning waits for enough of them. */
  private added = 0;

  constructor(messageName: 'Container' | 'PodSandbox') {
    this.type = plainCoder(`runtime.v1.${messageName}`);
  }

  /** The encoded list response for these items, each given with its current revision. */
  encode<T extends { id: string }>(items: T[], revisionOf: (id: string) => number, toMessage: (item: T) => object): Buffer {
    const frames: Uint8Array[] = new Array(items.length);
    let length = 0;
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      const revision = revisionOf(item.id);
      let entry = this.cache.get(item.id);
      if (!entry || entry.revision !== revision) {
        entry = { revision, frame: frame(this.type.encode(toMessage(item))) };
        this.cache.set(item.id, entry);
        this.added++;
      }
      frames[i] = entry.frame;
      length += entry.frame.length;
    }
    // Amortized: a pass over the cache per as many new encodings as it holds (a
    // filtered list of one pod must not walk the encodings of every other pod).
    if (this.added > this.cache.size / 2 + 256) this.prune(revisionOf);
    // One copy per item into one buffer (Buffer.concat's checks per piece cost more than the copying).
    const out = Buffer.allocUnsafe(length);
    let offset = 0;
    for (const f of frames) {
      out.set(f, offset);
      offset += f.length;
    }
    return out;
  }

  /** Drops encodings of records that changed or are gone (revision 0). */
  private prune(revisionOf: (id: string) => number): void {
    for (const [id, entry] of this.cache) if (revisionOf(id) !== entry.revision) this.cache.delete(id);
    this.added = 0;
  }

  /** Encodings held, for tests. */
  get size(): number {
    return this.cache.size;
  }
}

/** A message framed as field 1 of its list: tag (field 1, length-delimited), length, bytes. */
function frame(bytes: Uint8Array): Uint8Array {
  const head: number[] = [0x0a];
  let n = bytes.length;
  while (n > 0x7f) {
    head.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  head.push(n);
  const out = new Uint8Array(head.length + bytes.length);
  out.set(head, 0);
  out.set(bytes, head.length);
  return out;
}
