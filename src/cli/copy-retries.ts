/** A tar block: headers, data and the end-of-archive marker come in them. */
const BLOCK = 512;

/**
 * kubectl cp's command for a copy from the pod that can be resumed (--retries):
 * the archive from byte `offset` on, the path quoted for the shell as kubectl quotes it.
 */
export function resumableTar(path: string, offset: number): string[] {
  const escaped = path.replaceAll("'", `'\\''`);
  return ['sh', '-c', `tar cf - '${escaped}' | tail -c+${offset}`];
}

/**
 * Follows a tar stream block by block to tell whether it has reached its
 * end-of-archive marker (two zero blocks where a header is due): a stream
 * that stops before it was cut short, as Go's tar reader sees an
 * unexpected EOF, and kubectl cp --retries asks for the rest.
 */
export class ArchiveEnd {
  private pending: Buffer = Buffer.alloc(0);
  /** Blocks of data still to skip before the next header. */
  private skip = 0;
  private zeros = 0;
  private done = false;

  get reached(): boolean {
    return this.done;
  }

  push(chunk: Buffer): void {
    if (this.done) return;
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    let at = 0;
    for (; at + BLOCK <= this.pending.length && !this.done; at += BLOCK) this.block(this.pending.subarray(at, at + BLOCK));
    this.pending = this.pending.subarray(at);
  }

  private block(block: Buffer): void {
    if (this.skip > 0) {
      this.skip--;
      return;
    }
    if (block.every((b) => b === 0)) {
      if (++this.zeros === 2) this.done = true;
      return;
    }
    this.zeros = 0;
    this.skip = Math.ceil(entrySize(block) / BLOCK);
  }
}

/** The size field of a header: octal text, or base-256 when its first byte has the high bit set. */
function entrySize(header: Buffer): number {
  const field = header.subarray(124, 136);
  if (field[0] & 0x80) {
    let size = field[0] & 0x7f;
    for (const byte of field.subarray(1)) size = size * 256 + byte;
    return size;
  }
  const text = field.toString('latin1').replace(/\0.*$/s, '').trim();
  return text ? parseInt(text, 8) : 0;
}
