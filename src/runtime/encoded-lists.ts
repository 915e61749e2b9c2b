import protobuf from 'protobufjs';
import { join } from 'node:path';
import { protoRoot } from '../cri/proto.js';

/**
 * List answers built from per-record encodings that are cached until the
 * record changes: a relist of 1,000 unchanged containers costs a copy, not
 * 1,000 protobuf encodings. A ListContainersResponse is field 1 repeated, so
 * the answer is each cached `Container` message framed as field 1.
 */
export class EncodedListCache {
  private readonly type: protobuf.Type;
  private readonly cache = new Map<string, { revision: number; bytes: Uint8Array }>();
  /** Encodings added since the last prune: only those can have made others stale, so pruning waits for enough of them. */
  private added = 0;

  constructor(messageName: 'Container' | 'PodSandbox') {
    const root = protobuf.loadSync(join(protoRoot, 'runtime/v1/api.proto'));
    this.type = root.lookupType(`runtime.v1.${messageName}`);
  }

  /** The encoded list response for these items, each given with its current revision. */
  encode<T extends { id: string }>(items: T[], revisionOf: (id: string) => number, toMessage: (item: T) => object): Buffer {
    const frames: Uint8Array[] = [];
    for (const item of items) {
      const revision = revisionOf(item.id);
      let entry = this.cache.get(item.id);
      if (!entry || entry.revision !== revision) {
        const bytes = this.type.encode(this.type.fromObject(toMessage(item))).finish();
        entry = { revision, bytes };
        this.cache.set(item.id, entry);
        this.added++;
      }
      frames.push(FIELD_1_LEN, varint(entry.bytes.length), entry.bytes);
    }
    // Amortized: a pass over the cache per as many new encodings as it holds (a
    // filtered list of one pod must not walk the encodings of every other pod).
    if (this.added > this.cache.size / 2 + 256) this.prune(revisionOf);
    return Buffer.concat(frames);
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

/** Tag of field 1 with wire type 2 (length-delimited). */
const FIELD_1_LEN = Uint8Array.of(0x0a);

function varint(n: number): Uint8Array {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Uint8Array.from(out);
}
