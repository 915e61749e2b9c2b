import { constants } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { MAX_MANIFEST_BYTES } from './manifest.js';

/** Reads past the first go in pieces of this size, so a file that grows costs a bounded buffer. */
const CHUNK_BYTES = 64 * 1024;

/**
 * What reading one manifest file gave: its text; a skip (not a regular file,
 * as the kubelet skips it, and so never read); or a refusal (too large, or a
 * read that failed).
 */
export type BoundedRead = { text: string; info: Stats } | { skipped: string } | { refused: string };

/**
 * Reads a manifest file without ever holding more than LIMIT + 1 bytes. Only a
 * regular file is opened; it is opened non-blocking (a FIFO's open then returns at once), its type
 * and size come from fstat on the opened descriptor (a stat of the path could
 * name another file by then), and the read stops one byte past the limit (a
 * file that grows after the fstat is still cut off). The first read asks for
 * one byte more than the fstat's size, so a file that did not grow is read in
 * one go, into a buffer of its size.
 * KNOWN is a stat of the path the caller made just before (a directory
 * scan's), which the check before the open uses instead of its own.
 */
export async function readManifestFile(file: string, limit = MAX_MANIFEST_BYTES, known?: Stats): Promise<BoundedRead> {
  let handle;
  try {
    // A device is not even opened (opening some has effects); the fstat below still decides.
    const before = known ?? (await stat(file));
    if (!before.isFile()) return { skipped: `skipped: ${kindOf(before)}, not a regular file` };
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENXIO') return { skipped: 'skipped: a socket, not a regular file' };
    return { refused: `cannot read: ${(err as Error).message}` };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { skipped: `skipped: ${kindOf(info)}, not a regular file` };
    if (info.size > limit) return { refused: `manifest is larger than ${limit} bytes (${info.size} bytes); not read` };
    const chunks: Buffer[] = [];
    let length = 0;
    for (let size = info.size + 1; ; size = CHUNK_BYTES) {
      const chunk = Buffer.allocUnsafe(Math.min(size, limit + 1 - length));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      chunks.push(chunk.subarray(0, bytesRead));
      length += bytesRead;
      if (length > limit) return { refused: `manifest is larger than ${limit} bytes (it grew while read); not read` };
      // The end: nothing more, or a short read that stopped at the size fstat gave (files
      // of /proc and /sys give 0 for their size, and a page a read).
      if (bytesRead === 0 || (bytesRead < chunk.length && length === info.size)) break;
    }
    return { text: Buffer.concat(chunks, length).toString('utf8'), info };
  } catch (err) {
    return { refused: `cannot read: ${(err as Error).message}` };
  } finally {
    await handle.close();
  }
}

/** A file type in words, for the message that names a skipped file. */
export function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a directory (not read recursively, as in the kubelet)';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  return 'not a file';
}

/**
 * Reads a stream (stdin, an HTTP body) up to LIMIT bytes; past it, stops
 * reading and throws, so an endless stream costs no more than the limit.
 */
export async function readCapped(stream: AsyncIterable<Uint8Array>, limit = MAX_MANIFEST_BYTES, what = 'manifest'): Promise<string> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of stream) {
    length += chunk.length;
    if (length > limit) throw new Error(`${what} is larger than ${limit} bytes; not read`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, length).toString('utf8');
}
