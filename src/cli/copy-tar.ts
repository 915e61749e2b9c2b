import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, lstat, mkdir, readdir, readlink } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { extract, pack, type Header, type Pack } from 'tar-stream';

type Headers = Partial<Header> & Pick<Header, 'name'>;
import { KubectlError } from '../util/user-error.js';
import { placeEntry } from './copy-paths.js';

/**
 * The archive `knode cp LOCAL POD:PATH` sends to `tar -xmf -` in the
 * container: `source` and everything below it, its entries named from
 * `entryName` (the destination's base name), as kubectl's makeTar writes it.
 * Directories get entries of their own, so their modes travel too.
 */
export function packTree(source: string, entryName: string): Readable {
  const archive = pack();
  addEntry(archive, source, entryName).then(
    () => archive.finalize(),
    (err: Error) => archive.destroy(err),
  );
  return Readable.from(archive);
}

async function addEntry(archive: Pack, path: string, name: string): Promise<void> {
  const stat = await lstat(path);
  const header: Headers = { name, mode: stat.mode & 0o7777, uid: stat.uid, gid: stat.gid, mtime: stat.mtime };
  if (stat.isDirectory()) {
    await write(archive, { ...header, type: 'directory' });
    for (const child of (await readdir(path)).sort()) await addEntry(archive, join(path, child), posix.join(name, child));
  } else if (stat.isSymbolicLink()) {
    await write(archive, { ...header, type: 'symlink', linkname: await readlink(path) });
  } else if (stat.isFile()) {
    let written!: (err?: Error | null) => void;
    const done = new Promise<void>((resolve, reject) => (written = (err) => (err ? reject(err) : resolve())));
    const entry = archive.entry({ ...header, type: 'file', size: stat.size }, written);
    for await (const chunk of createReadStream(path)) if (!entry.write(chunk as Buffer)) await once(entry as never, 'drain');
    entry.end(undefined);
    await done;
  } else if (stat.isFIFO()) {
    await write(archive, { ...header, type: 'fifo' });
  } else {
    throw new KubectlError(`error: archive/tar: ${path}: sockets and devices not supported`);
  }
}

function write(archive: Pack, header: Headers): Promise<void> {
  return new Promise((resolve, reject) => archive.entry(header, (err) => (err ? reject(err) : resolve())));
}

export interface UntarOptions {
  /** The archive's entries all start with it (see archivePrefix). */
  prefix: string;
  destination: string;
  /** Keep the entries' permission bits; else files get the umask's. */
  preserve: boolean;
  warn: (message: string) => void;
  /** The command kubectl suggests for the first symlink skipped. */
  symlinkHint: string;
}

/**
 * Writes the pod's archive under the destination as kubectl's untarAll does:
 * an entry without the prefix fails the copy (`tar contents corrupted`), an
 * entry that would land outside the destination and every symlink are skipped
 * with kubectl's warnings, anything else becomes a directory or a regular
 * file. Directories' modes are set last, so a read-only one still gets its files.
 */
export async function untarAll(archive: AsyncIterable<Buffer> | Readable, options: UntarOptions): Promise<void> {
  try {
    await unpack(archive, options);
  } catch (err) {
    // An archive cut short: Go's tar reader says it so, and kubectl cp passes it on.
    if (err instanceof Error && err.message === 'Unexpected end of data') throw new KubectlError('error: unexpected EOF');
    throw err;
  }
}

async function unpack(archive: AsyncIterable<Buffer> | Readable, options: UntarOptions): Promise<void> {
  const entries = extract();
  const feeding = feed(archive, entries);
  const directoryModes: [string, number][] = [];
  let hinted = false;
  for await (const entry of entries) {
    const header = entry.header;
    const place = placeEntry(header.name, options.prefix, options.destination);
    if (place.kind === 'corrupted') throw new KubectlError('error: tar contents corrupted');
    if (place.kind === 'outside') {
      options.warn(`warning: file ${quote(place.path)} is outside target destination, skipping`);
      entry.resume();
      continue;
    }
    const path = place.path;
    await mkdir(dirname(path), { recursive: true, mode: 0o755 });
    if (header.type === 'directory') {
      await mkdir(path, { recursive: true, mode: 0o755 });
      if (options.preserve && header.mode !== undefined) directoryModes.push([path, header.mode & 0o777]);
      entry.resume();
      continue;
    }
    if (header.type === 'symlink') {
      const link = `${quote(path)} -> ${quote(header.linkname ?? '')}`;
      options.warn(
        hinted ? `warning: skipping symlink: ${link}` : `warning: skipping symlink: ${link} (consider using "${options.symlinkHint}")`,
      );
      hinted = true;
      entry.resume();
      continue;
    }
    const mode = options.preserve && header.mode !== undefined ? header.mode & 0o777 : 0o666;
    await pipeline(Readable.from(entry), createWriteStream(path, { mode }));
    if (options.preserve) await chmod(path, mode);
  }
  await feeding;
  for (const [path, mode] of directoryModes.reverse()) await chmod(path, mode);
}

/** Writes the archive's bytes into the extractor, minding its back-pressure; a failure of either side ends the extractor with it. */
async function feed(archive: AsyncIterable<Buffer>, entries: ReturnType<typeof extract>): Promise<void> {
  try {
    for await (const chunk of archive) if (!entries.write(chunk)) await once(entries as never, 'drain');
    entries.end(undefined);
  } catch (err) {
    entries.destroy(err as Error);
  }
}

/** A string as Go's %q writes it, for the common case of printable text. */
export function quote(text: string): string {
  return JSON.stringify(text);
}

/** The destination's base name, for the archive's entries (`/` copies into the root). */
export function entryBaseName(remote: string): string {
  return posix.basename(posix.normalize(remote)) || '/';
}
