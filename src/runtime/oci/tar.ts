// A streaming tar reader: ustar, pax extended headers and GNU long names,
// which is what image layers and `docker save` archives use. It only parses;
// what an entry may do to the file system is decided by the unpacker.

export type TarEntryType = 'file' | 'directory' | 'symlink' | 'hardlink' | 'char' | 'block' | 'fifo' | 'other';

export interface TarEntry {
  /** The name as the archive spells it (no normalisation). */
  path: string;
  type: TarEntryType;
  /** Symlink target or hard link source. */
  linkPath: string;
  size: number;
  mode: number;
  uid: number;
  gid: number;
  /** Seconds since the epoch. */
  mtime: number;
}

export class TarFormatError extends Error {
  override readonly name = 'TarFormatError';
}

const BLOCK = 512;

/** Pulls exact byte counts out of a chunked source. */
class ByteReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private done = false;
  constructor(private readonly source: AsyncIterator<Buffer>) {}

  private async fill(n: number): Promise<boolean> {
    while (this.buffered < n && !this.done) {
      const next = await this.source.next();
      if (next.done) this.done = true;
      else if (next.value.length > 0) {
        this.chunks.push(next.value);
        this.buffered += next.value.length;
      }
    }
    return this.buffered >= n;
  }

  /** Exactly n bytes, or undefined at a clean end of input. */
  async take(n: number): Promise<Buffer | undefined> {
    if (!(await this.fill(n))) {
      if (this.buffered === 0) return undefined;
      throw new TarFormatError(`archive ends in the middle of a block (${this.buffered} of ${n} bytes)`);
    }
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    const out = all.subarray(0, n);
    this.chunks = all.length > n ? [all.subarray(n)] : [];
    this.buffered -= n;
    return out;
  }

  /** Up to n bytes as they arrive, without gathering them. */
  async *stream(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.buffered === 0 && !(await this.fill(1))) throw new TarFormatError(`archive ends inside an entry (${left} bytes missing)`);
      const chunk = this.chunks[0];
      const piece = chunk.length > left ? chunk.subarray(0, left) : chunk;
      if (piece === chunk) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(left);
      this.buffered -= piece.length;
      left -= piece.length;
      yield piece;
    }
  }

  /** Reads the rest of the input (so a hash over it is complete). */
  async drain(): Promise<void> {
    this.chunks = [];
    this.buffered = 0;
    while (!this.done) if ((await this.source.next()).done) this.done = true;
  }
}

function text(block: Buffer, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? length : end).toString('utf8');
}

/** Octal ASCII, or GNU base-256 when the high bit of the first byte is set. */
function number(block: Buffer, start: number, length: number): number {
  const field = block.subarray(start, start + length);
  if (field[0] & 0x80) {
    let value = field[0] & 0x7f;
    for (let i = 1; i < field.length; i++) value = value * 256 + field[i];
    return value;
  }
  const digits = text(block, start, length).trim();
  if (digits === '') return 0;
  if (!/^[0-7]+$/.test(digits)) throw new TarFormatError(`bad number field "${digits}"`);
  return parseInt(digits, 8);
}

function checksumOk(block: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : block[i];
  return sum === number(block, 148, 8);
}

const TYPES: Record<string, TarEntryType> = {
  '0': 'file',
  '\0': 'file',
  '7': 'file',
  '1': 'hardlink',
  '2': 'symlink',
  '3': 'char',
  '4': 'block',
  '5': 'directory',
  '6': 'fifo',
};

/** `LEN key=value\n` records; LEN counts the whole record. */
function parsePax(data: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space < 0) break;
    const length = Number(data.subarray(at, space).toString('ascii'));
    if (!Number.isInteger(length) || length <= 0 || at + length > data.length) throw new TarFormatError('bad pax header record');
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    at += length;
  }
  return out;
}

export interface TarItem {
  entry: TarEntry;
  /** The entry's content; read it before asking for the next entry, or it is skipped. */
  body: AsyncIterable<Buffer>;
}

/**
 * The entries of a tar stream, in order. Ends at the end-of-archive block or
 * the end of input, and then reads what is left of the input, so a digest
 * computed over the source covers every byte.
 */
export async function* readTar(source: AsyncIterable<Buffer>): AsyncGenerator<TarItem> {
  const reader = new ByteReader(source[Symbol.asyncIterator]());
  let pax: Record<string, string> = {};
  let global: Record<string, string> = {};
  let longName: string | undefined;
  let longLink: string | undefined;
  for (;;) {
    const block = await reader.take(BLOCK);
    if (!block || block.every((b) => b === 0)) break;
    if (!checksumOk(block)) throw new TarFormatError('bad header checksum: not a tar archive, or a corrupt one');
    const flag = String.fromCharCode(block[156]);
    const size = number(block, 124, 12);
    const padded = Math.ceil(size / BLOCK) * BLOCK;
    if (flag === 'x' || flag === 'g' || flag === 'L' || flag === 'K') {
      const data = size > 0 ? await reader.take(padded) : Buffer.alloc(0);
      if (!data) throw new TarFormatError('archive ends inside an extended header');
      const content = data.subarray(0, size);
      if (flag === 'x') pax = parsePax(content);
      else if (flag === 'g') global = { ...global, ...parsePax(content) };
      else if (flag === 'L') longName = text(content, 0, content.length);
      else longLink = text(content, 0, content.length);
      continue;
    }
    const headers = { ...global, ...pax };
    // POSIX ustar ("ustar\0") splits long names into prefix + name; GNU's "ustar " keeps other fields there.
    const prefix = block.subarray(257, 263).toString('latin1') === 'ustar\0' ? text(block, 345, 155) : '';
    const name = text(block, 0, 100);
    const entry: TarEntry = {
      path: headers.path ?? longName ?? (prefix ? `${prefix}/${name}` : name),
      type: TYPES[flag] ?? 'other',
      linkPath: headers.linkpath ?? longLink ?? text(block, 157, 100),
      size: headers.size !== undefined ? Number(headers.size) : size,
      mode: number(block, 100, 8),
      uid: headers.uid !== undefined ? Number(headers.uid) : number(block, 108, 8),
      gid: headers.gid !== undefined ? Number(headers.gid) : number(block, 116, 8),
      mtime: headers.mtime !== undefined ? Math.floor(Number(headers.mtime)) : number(block, 136, 12),
    };
    pax = {};
    longName = undefined;
    longLink = undefined;
    if (!Number.isSafeInteger(entry.size) || entry.size < 0) throw new TarFormatError(`bad size for "${entry.path}"`);
    // Only regular files carry content; other types' size field is informational.
    const contentSize = entry.type === 'file' || entry.type === 'other' ? entry.size : 0;
    let left = contentSize;
    const body = {
      async *[Symbol.asyncIterator]() {
        for await (const piece of reader.stream(left)) {
          left -= piece.length;
          yield piece;
        }
      },
    };
    yield { entry, body };
    // Whatever the consumer left unread (it may have stopped half-way).
    for await (const piece of reader.stream(left)) left -= piece.length;
    const padding = Math.ceil(contentSize / BLOCK) * BLOCK - contentSize;
    if (padding > 0 && !(await reader.take(padding))) break;
  }
  await reader.drain();
}
