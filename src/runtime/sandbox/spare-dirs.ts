// Directories made ahead of the containers that need them, in libuv's pool
// while nothing waits, and renamed into place: a container's own directory
// with its overlay's upper, work and mount directories (CreateContainer), and
// the directory that becomes its /dev (its set-up). On ext4 the mkdirs cost
// the runtime's thread far more than the rename; made in the pool at the
// create instead, they were done only after it had answered, and its mount
// and set-up waited for them (bench/notes/sandboxes.md).
import { renameSync } from 'node:fs';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/** What a spare's name begins with: no container id does (they are hex). */
const PREFIX = '.spare-';

/**
 * How long no spare must be taken before more are made: not at once, in the
 * middle of the create or set-up that took one, where the pool's calls
 * cost the runtime's thread too (they show in its CPU profile), nor in a
 * burst, whose creates make their own once the spares are gone.
 */
const REFILL_DELAY_MS = 30;

export class SpareDirs {
  private readonly ready: string[] = [];
  /** The spares being made, while they are. */
  private filling: Promise<void> | undefined;
  private closed = false;
  private made = 0;
  /** The refill, begun once no spare has been taken for REFILL_DELAY_MS. */
  private refill: NodeJS.Timeout | undefined;

  /**
   * Spares in `parent`, each a directory `fill` has filled, up to `size` at a
   * time; what a runtime before this one left there is deleted first.
   */
  constructor(
    private readonly parent: string,
    private readonly fillSpare: (dir: string) => Promise<void>,
    private readonly size = 4,
  ) {
    void this.clearLeftovers().then(() => this.fill());
  }

  /** How many spares are ready to be taken. */
  get readyCount(): number {
    return this.ready.length;
  }

  /** Renames a spare to `target` (which must not exist); false when none was ready or the rename failed, the spare kept then. */
  take(target: string): boolean {
    const spare = this.ready.shift();
    if (spare === undefined) return false;
    try {
      renameSync(spare, target);
    } catch {
      this.ready.unshift(spare);
      return false;
    }
    clearTimeout(this.refill);
    this.refill = setTimeout(() => void this.fill(), REFILL_DELAY_MS).unref();
    return true;
  }

  /** No more spares are made (the runtime's shutdown); resolves once the one being made is. Those made stay for the next runtime to delete. */
  close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.refill);
    return this.filling ?? Promise.resolve();
  }

  private fill(): Promise<void> {
    this.filling ??= this.makeSpares().finally(() => (this.filling = undefined));
    return this.filling;
  }

  private async makeSpares(): Promise<void> {
    try {
      while (!this.closed && this.ready.length < this.size) {
        const dir = join(this.parent, `${PREFIX}${process.pid}-${this.made++}`);
        await mkdir(dir);
        await this.fillSpare(dir);
        this.ready.push(dir);
      }
    } catch {
      // the creates make their own directories
    }
  }

  /** A filler that makes `subdirs` in a spare. */
  static subdirs(subdirs: readonly string[]): (dir: string) => Promise<void> {
    return async (dir) => {
      for (const sub of subdirs) await mkdir(join(dir, sub));
    };
  }

  private async clearLeftovers(): Promise<void> {
    const names = await readdir(this.parent).catch(() => [] as string[]);
    await Promise.all(
      names.filter((n) => n.startsWith(PREFIX)).map((n) => rm(join(this.parent, n), { recursive: true, force: true }).catch(() => {})),
    );
  }
}
