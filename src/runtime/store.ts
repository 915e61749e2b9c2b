import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic-file.js';

/**
 * One JSON file per record in a directory, written atomically (temp file +
 * rename) so a crash never leaves half a record behind.
 */
export class RecordDir<T extends { id: string }> {
  constructor(private readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  /** Throws, naming the file, when the record cannot be written (a full disk); the old record is then intact. */
  save(record: T): void {
    writeFileAtomic(join(this.dir, `${record.id}.json`), JSON.stringify(record));
  }

  delete(id: string): void {
    rmSync(join(this.dir, `${id}.json`), { force: true });
  }

  /** Every readable record; unreadable files are reported through `onBad` and skipped. */
  loadAll(onBad: (file: string, err: unknown) => void): T[] {
    const out: T[] = [];
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith('.json')) continue;
      const file = join(this.dir, name);
      try {
        out.push(JSON.parse(readFileSync(file, 'utf8')) as T);
      } catch (err) {
        onBad(file, err);
      }
    }
    return out;
  }
}
