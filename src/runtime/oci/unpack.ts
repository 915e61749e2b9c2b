// Unpacks one layer tar into a directory of its own. Layers are unpacked
// once each and stacked later (overlay lowerdirs, or a copy), so a layer's
// whiteouts are not applied here: they are recorded beside its files, for
// whoever stacks the layers. Nothing in a layer may write outside its
// directory: names with `..` or a leading `/`, writes through symlinks that
// lead out, and hard links to outside are refused, naming the entry.
import { createHash, type Hash } from 'node:crypto';
import { lstatSync, linkSync, lchownSync, lutimesSync, mkdirSync, readlinkSync, rmSync, symlinkSync, chmodSync, utimesSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { readTar, type TarEntry } from './tar.js';

export interface UnpackedLayer {
  /** sha256 of the uncompressed tar: the layer's diff_id. */
  diffId: string;
  /** Bytes of regular files, and entries written (an inode count). */
  bytes: number;
  inodes: number;
  /** Paths (relative, `/`-separated) this layer deletes from the layers below. */
  whiteouts: string[];
  /** Directories whose contents in the layers below are hidden. */
  opaque: string[];
  /** Entries not reproduced: device nodes and fifos (Node has no mknod) and unknown types. */
  skipped: string[];
}

/** A layer entry the runtime refuses; the pull fails with its name. */
export class LayerEntryError extends Error {
  override readonly name = 'LayerEntryError';
  constructor(
    readonly entry: string,
    readonly reason: string,
    /** The layer's blob digest, once known. */
    readonly layer?: string,
  ) {
    super(`${layer ? `layer ${layer}: ` : 'layer '}entry "${entry}" ${reason}`);
  }
}

const MAX_SYMLINK_HOPS = 40;

/** The entry's path relative to the layer root (`/`-separated, no `.`), or '' for the root itself. */
export function entryPath(name: string, original = name): string {
  if (name.startsWith('/')) throw new LayerEntryError(original, 'is an absolute path');
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) throw new LayerEntryError(original, 'escapes the layer root (..)');
  return parts.join('/');
}

/**
 * The directory `parts` names under root, created where missing. Symlinks on
 * the way are followed only while they stay inside root (as a chroot would
 * see them, but an absolute target counts as leading out: it would on the host).
 */
export function resolveInside(root: string, parts: string[], entry: string, create = true): string {
  let current = root;
  const pending = [...parts];
  let hops = 0;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (current === root) throw new LayerEntryError(entry, 'goes through a symlink that leads out of the layer');
      current = current.slice(0, current.lastIndexOf(sep));
      continue;
    }
    const next = join(current, part);
    let stat;
    try {
      stat = lstatSync(next);
    } catch {
      if (!create) throw new LayerEntryError(entry, `names "${relative(root, next)}", which the layer does not have`);
      mkdirSync(next, { mode: 0o755 });
      current = next;
      continue;
    }
    if (stat.isSymbolicLink()) {
      if (++hops > MAX_SYMLINK_HOPS) throw new LayerEntryError(entry, 'goes through too many symlinks');
      const target = readlinkSync(next);
      if (isAbsolute(target))
        throw new LayerEntryError(entry, `goes through symlink "${relative(root, next)}" -> "${target}", which leads out of the layer`);
      pending.unshift(...target.split('/'));
      continue;
    }
    if (!stat.isDirectory()) throw new LayerEntryError(entry, `needs "${relative(root, next)}" to be a directory`);
    current = next;
  }
  return current;
}

async function* hashing(source: AsyncIterable<Buffer>, hash: Hash): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    hash.update(chunk);
    yield chunk;
  }
}

/** The tar inside a layer blob: gzip is recognised by its magic bytes, so a mislabelled layer still unpacks. */
async function* decompressed(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  const rest = (async function* () {
    yield first.value;
    for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
  })();
  const head: Buffer = first.value;
  if (head[0] === 0x28 && head[1] === 0xb5 && head[2] === 0x2f && head[3] === 0xfd) {
    throw new Error('layer is zstd-compressed, which this runtime cannot decompress (Node 20 has no zstd)');
  }
  if (head[0] !== 0x1f || head[1] !== 0x8b) {
    yield* rest;
    return;
  }
  const input = Readable.from(rest);
  const gunzip = createGunzip();
  input.on('error', (err) => gunzip.destroy(err));
  input.pipe(gunzip);
  yield* gunzip as AsyncIterable<Buffer>;
}

/**
 * Unpacks a layer blob (gzip or plain tar) into `dir`, which must not exist
 * yet. Returns what the layer holds, with its diff_id computed over every
 * byte of the uncompressed stream.
 */
export async function unpackLayer(source: AsyncIterable<Buffer>, dir: string): Promise<UnpackedLayer> {
  dir = resolve(dir);
  mkdirSync(dir, { recursive: true });
  const hash = createHash('sha256');
  const asRoot = process.getuid?.() === 0;
  const out: UnpackedLayer = { diffId: '', bytes: 0, inodes: 0, whiteouts: [], opaque: [], skipped: [] };
  // Directory modes and times are set last: a read-only directory would refuse its own children.
  const directories: { path: string; entry: TarEntry }[] = [];
  for await (const { entry, body } of readTar(hashing(decompressed(source), hash))) {
    const rel = entryPath(entry.path);
    if (rel === '') continue;
    const parts = rel.split('/');
    const base = parts.pop()!;
    const parent = resolveInside(dir, parts, entry.path);
    const parentRel = relative(dir, parent).split(sep).filter(Boolean).join('/');
    if (base.startsWith('.wh.')) {
      if (base === '.wh..wh..opq') out.opaque.push(parentRel);
      else if (!base.startsWith('.wh..wh.')) out.whiteouts.push(parentRel ? `${parentRel}/${base.slice(4)}` : base.slice(4));
      continue;
    }
    const target = join(parent, base);
    const existing = lstatOrUndefined(target);
    if (existing && !(existing.isDirectory() && entry.type === 'directory')) rmSync(target, { recursive: true, force: true });
    switch (entry.type) {
      case 'directory':
        if (!existing?.isDirectory()) mkdirSync(target, { mode: 0o755 });
        directories.push({ path: target, entry });
        break;
      case 'file': {
        // O_EXCL: never write through a symlink, even one made after the check above.
        const file = await open(target, 'wx', 0o600);
        try {
          for await (const chunk of body) await file.write(chunk);
          // The owner first: a chown clears the setuid and setgid bits.
          if (asRoot) await file.chown(entry.uid, entry.gid);
          await file.chmod(entry.mode & 0o7777);
          await file.utimes(entry.mtime, entry.mtime);
        } finally {
          await file.close();
        }
        out.bytes += entry.size;
        break;
      }
      case 'symlink':
        // A symlink may point anywhere: only following it while unpacking is refused.
        symlinkSync(entry.linkPath, target);
        if (asRoot) lchownSync(target, entry.uid, entry.gid);
        lutimesSync(target, entry.mtime, entry.mtime);
        break;
      case 'hardlink': {
        const linkRel = entryPath(entry.linkPath, entry.path);
        if (linkRel === '') throw new LayerEntryError(entry.path, 'is a hard link to the layer root');
        const linkParts = linkRel.split('/');
        const linkBase = linkParts.pop()!;
        const source = join(resolveInside(dir, linkParts, entry.path, false), linkBase);
        const stat = lstatOrUndefined(source);
        if (!stat) throw new LayerEntryError(entry.path, `is a hard link to "${entry.linkPath}", which the layer does not have`);
        if (stat.isDirectory()) throw new LayerEntryError(entry.path, `is a hard link to directory "${entry.linkPath}"`);
        linkSync(source, target);
        break;
      }
      default:
        out.skipped.push(rel);
        continue;
    }
    out.inodes++;
  }
  for (const { path, entry } of directories.reverse()) {
    if (asRoot) lchownSync(path, entry.uid, entry.gid);
    chmodSync(path, entry.mode & 0o7777);
    utimesSync(path, entry.mtime, entry.mtime);
  }
  out.diffId = `sha256:${hash.digest('hex')}`;
  return out;
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
