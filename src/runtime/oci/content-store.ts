// The embedded runtime's image content, shared between images: blobs
// (manifests, configs, compressed layers) by digest, as containerd's content
// store keeps them, and each layer unpacked once, by diff_id, beside them.
//
//   <dir>/blobs/sha256/<hex>             verified bytes
//   <dir>/layers/sha256/<hex>/fs/        the layer's files (diff_id <hex>)
//   <dir>/layers/sha256/<hex>/layer.json its whiteouts, size and inode count
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { checkDigest } from './manifest.js';
import { LayerEntryError, unpackLayer, type UnpackedLayer } from './unpack.js';

export interface LayerRecord extends UnpackedLayer {
  /** The blob it was unpacked from. */
  digest: string;
}

/** A blob whose bytes are not what its digest (or size) says. */
export class DigestMismatchError extends Error {
  override readonly name = 'DigestMismatchError';
}

export class ContentStore {
  private readonly unpacking = new Map<string, Promise<LayerRecord>>();
  /** Digests a pull or import in progress has fetched but no image record names yet. */
  private readonly pinned = new Map<string, number>();

  constructor(readonly dir: string) {
    for (const kind of ['blobs', 'layers']) {
      const sub = join(dir, kind, 'sha256');
      mkdirSync(sub, { recursive: true });
      // Leftovers of writes a previous runtime did not finish.
      for (const name of readdirSync(sub)) if (name.includes('.tmp-')) rmSync(join(sub, name), { recursive: true, force: true });
    }
  }

  /** Keeps `digests` from garbage collection until the returned function is called. */
  pin(digests: string[]): () => void {
    for (const d of digests) this.pinned.set(d, (this.pinned.get(d) ?? 0) + 1);
    return () => {
      for (const d of digests) {
        const n = (this.pinned.get(d) ?? 1) - 1;
        if (n <= 0) this.pinned.delete(d);
        else this.pinned.set(d, n);
      }
    };
  }

  blobPath(digest: string): string {
    return join(this.dir, 'blobs', 'sha256', checkDigest(digest, 'blob').slice(7));
  }

  hasBlob(digest: string, size?: number): boolean {
    try {
      const stat = statSync(this.blobPath(digest));
      return size === undefined || stat.size === size;
    } catch {
      return false;
    }
  }

  readBlob(digest: string): Buffer {
    return readFileSync(this.blobPath(digest));
  }

  /** Stores bytes already in memory (manifests, configs) after checking them against `digest`. */
  putBlob(bytes: Buffer, digest = sha256(bytes)): string {
    const actual = sha256(bytes);
    if (actual !== digest) throw new DigestMismatchError(`content of ${digest} has digest ${actual}`);
    const path = this.blobPath(digest);
    if (!existsSync(path)) {
      const tmp = `${path}.tmp-${randomBytes(4).toString('hex')}`;
      writeFileSync(tmp, bytes);
      renameSync(tmp, path);
    }
    return digest;
  }

  /**
   * Streams a blob into the store. It lands under its digest only when every
   * byte hashed to that digest (and, when given, the size matches), so a
   * store never holds a blob that lies about its content.
   */
  async writeBlob(digest: string, source: AsyncIterable<Uint8Array>, size?: number): Promise<void> {
    const path = this.blobPath(digest);
    const tmp = `${path}.tmp-${randomBytes(4).toString('hex')}`;
    const hash = createHash('sha256');
    let written = 0;
    const file = await open(tmp, 'wx', 0o644);
    try {
      for await (const chunk of source) {
        hash.update(chunk);
        written += chunk.length;
        if (size !== undefined && written > size)
          throw new DigestMismatchError(`blob ${digest} is larger than the ${size} bytes its descriptor says`);
        await file.write(chunk);
      }
    } catch (err) {
      await file.close();
      rmSync(tmp, { force: true });
      throw err;
    }
    await file.close();
    const actual = `sha256:${hash.digest('hex')}`;
    if (actual !== digest || (size !== undefined && written !== size)) {
      rmSync(tmp, { force: true });
      throw new DigestMismatchError(
        `blob ${digest} failed verification: got ${written} bytes with digest ${actual}${size !== undefined ? ` (want ${size} bytes)` : ''}`,
      );
    }
    renameSync(tmp, path);
  }

  layerDir(diffId: string): string {
    return join(this.dir, 'layers', 'sha256', checkDigest(diffId, 'layer').slice(7));
  }

  layer(diffId: string): LayerRecord | undefined {
    try {
      return JSON.parse(readFileSync(join(this.layerDir(diffId), 'layer.json'), 'utf8')) as LayerRecord;
    } catch {
      return undefined;
    }
  }

  /**
   * Unpacks blob `digest` as layer `diffId`, once: a layer already unpacked
   * (or being unpacked for another pull) is shared. The uncompressed content
   * must hash to `diffId`, and no entry may escape the layer's directory.
   */
  unpack(digest: string, diffId: string): Promise<LayerRecord> {
    const done = this.layer(diffId);
    if (done) return Promise.resolve(done);
    let running = this.unpacking.get(diffId);
    if (!running) {
      running = this.unpackOnce(digest, diffId).finally(() => this.unpacking.delete(diffId));
      this.unpacking.set(diffId, running);
    }
    return running;
  }

  private async unpackOnce(digest: string, diffId: string): Promise<LayerRecord> {
    const final = this.layerDir(diffId);
    const tmp = `${final}.tmp-${randomBytes(4).toString('hex')}`;
    try {
      const unpacked = await unpackLayer(createReadStream(this.blobPath(digest)), join(tmp, 'fs'));
      if (unpacked.diffId !== diffId) {
        throw new DigestMismatchError(`layer ${digest} unpacks to content ${unpacked.diffId}, but the image config says ${diffId}`);
      }
      const record: LayerRecord = { ...unpacked, digest };
      writeFileSync(join(tmp, 'layer.json'), JSON.stringify(record));
      rmSync(final, { recursive: true, force: true });
      renameSync(tmp, final);
      return record;
    } catch (err) {
      rmSync(tmp, { recursive: true, force: true });
      if (err instanceof LayerEntryError) throw new LayerEntryError(err.entry, err.reason, digest);
      throw err;
    }
  }

  /** Removes blobs and layers that no image keeps and no pull in progress has pinned. */
  collectGarbage(keepBlobs: Set<string>, keepLayers: Set<string>): void {
    for (const [kind, keep] of [
      ['blobs', keepBlobs],
      ['layers', keepLayers],
    ] as const) {
      const dir = join(this.dir, kind, 'sha256');
      for (const name of readdirSync(dir)) {
        const digest = `sha256:${name}`;
        if (name.includes('.tmp-') || keep.has(digest) || this.pinned.has(digest)) continue;
        rmSync(join(dir, name), { recursive: true, force: true });
      }
    }
  }
}

export function sha256(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}
