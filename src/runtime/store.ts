import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic-file.js';

/**
 * The largest record rewritten in place: a write of one page at offset 0 is
 * made whole or not at all when the process is killed (the kernel checks for
 * a fatal signal between pages, not within one).
 */
const IN_PLACE_MAX = 4096;

/** The room a record is given after its JSON when its file is made, so that the changes to come fit where it is. */
const SLACK = 512;

/**
 * One JSON file per record in a directory. A record's file is made whole or
 * not at all (temp file + rename), with blanks after the JSON; a change that
 * fits in the file is then written over it in one write of at most a page,
 * which keeps the file whole too, and costs far less: on ext4, a rename or a
 * truncation over a file that has data starts that data's writeback, where
 * a write in place does not (bench/notes/churn.md). A change that does
 * not fit takes the temp file and the rename again.
 */
export class RecordDir<T extends { id: string }> {
  /** The size of each record's file, as made or read here. */
  private readonly sizes = new Map<string, number>();

  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  /** Throws, naming the file, when the record cannot be written (a full disk); the old record is then intact. */
  save(record: T): void {
    const file = join(this.dir, `${record.id}.json`);
    const json = Buffer.from(JSON.stringify(record));
    const size = this.sizes.get(record.id);
    if (size !== undefined && json.length <= size && size <= IN_PLACE_MAX && overwrite(file, padded(json, size))) return;
    const data = padded(json, Math.max(json.length, Math.min(IN_PLACE_MAX, json.length + SLACK)));
    writeFileAtomic(file, data);
    this.sizes.set(record.id, data.length);
  }

  /**
   * Deletes the record's file, off this thread: an ext4 unlink of a file
   * just written is slow (bench/notes/sandboxes.md). Rejects, naming the
   * file, when it cannot be deleted.
   */
  async delete(id: string): Promise<void> {
    this.sizes.delete(id);
    try {
      await unlink(join(this.dir, `${id}.json`));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }

  /** Every readable record; unreadable files are reported through `onBad` and skipped. */
  loadAll(onBad: (file: string, err: unknown) => void): T[] {
    const out: T[] = [];
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith('.json')) continue;
      const file = join(this.dir, name);
      try {
        const data = readFileSync(file);
        const record = JSON.parse(data.toString('utf8')) as T;
        this.sizes.set(record.id, data.length);
        out.push(record);
      } catch (err) {
        onBad(file, err);
      }
    }
    return out;
  }
}

/** `json` followed by blanks up to `size` bytes (JSON allows them). */
function padded(json: Buffer, size: number): Buffer {
  if (json.length === size) return json;
  const out = Buffer.alloc(size, 0x20);
  json.copy(out);
  return out;
}

/** Writes `data` over the start of an existing file in one write; false when it could not (the caller writes it anew). */
function overwrite(file: string, data: Buffer): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'r+');
  } catch {
    return false;
  }
  try {
    return writeSync(fd, data, 0, data.length, 0) === data.length;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}
