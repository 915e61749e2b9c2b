// Where the runtime keeps what a container set up by util-linux needs only
// while it runs: the directory that becomes its /dev, the empty directory
// its new root is bound at, and its table of mounts. A tmpfs holds them
// where the host has one (/run, else /dev/shm), as runc and containerd keep
// their state under /run: the fifteen files and links of one /dev cost far
// more on ext4 than on tmpfs (bench/notes/sandboxes.md), and a start makes
// them on its way. Without a tmpfs they stay under the runtime's directory.
// It also holds the read-only copy of the host's /sys (readonly-sys.ts): what
// is mounted in it is unmounted before it is emptied; the sandboxed pods'
// hostname and resolv.conf (pod-files.ts); and the spawner's orders to its
// spare shells.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { hostMounts, mountsUnder } from '../../util/mountinfo.js';

const TMPFS_MAGIC = 0x01021994;
const CANDIDATES = ['/run', '/dev/shm'];

export class ScratchSpace {
  private constructor(
    /** The directory, one per runtime directory. */
    readonly dir: string,
    readonly onTmpfs: boolean,
  ) {}

  /**
   * The scratch space of the runtime whose directory is `rootDir`: on the
   * first tmpfs of CANDIDATES where a directory of its own can be made (a
   * name taken by another owner, or open to others, is not used), emptied
   * of what a runtime before this one left there; under `rootDir` otherwise.
   */
  static open(rootDir: string, candidates: readonly string[] = CANDIDATES): ScratchSpace {
    const name = `knode-${createHash('sha256').update(rootDir).digest('hex').slice(0, 16)}`;
    for (const parent of candidates) {
      if (!isTmpfs(parent)) continue;
      const dir = join(parent, name);
      if (ownPrivateDirectory(dir)) return new ScratchSpace(dir, true).emptied();
    }
    const dir = join(rootDir, 'scratch');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    return new ScratchSpace(dir, false).emptied();
  }

  /** Container `id`'s directory (not made). */
  of(id: string): string {
    return join(this.dir, id);
  }

  /** Deletes container `id`'s directory (its removal). */
  release(id: string): void {
    rmSync(this.of(id), { recursive: true, force: true });
  }

  /** Deletes everything (the runtime's shutdown: its containers have stopped, and a created one's start makes its own again). */
  close(): void {
    unmountUnder(this.dir);
    rmSync(this.dir, { recursive: true, force: true });
  }

  private emptied(): this {
    unmountUnder(this.dir);
    for (const entry of readdirSync(this.dir)) rmSync(join(this.dir, entry), { recursive: true, force: true });
    return this;
  }
}

/** Detaches what is mounted under `dir` (a runtime killed before its close left it). */
function unmountUnder(dir: string): void {
  const under = mountsUnder(hostMounts(), dir);
  for (const top of under.filter((p) => !under.some((q) => p.startsWith(`${q}/`)))) {
    spawnSync('umount', ['-l', top], { stdio: 'ignore', timeout: 10_000 });
  }
}

function isTmpfs(path: string): boolean {
  try {
    return statfsSync(path).type === TMPFS_MAGIC;
  } catch {
    return false;
  }
}

/** Makes `dir` (0700), or finds it made: a directory (not a link) of this user's that nobody else may enter. */
function ownPrivateDirectory(dir: string): boolean {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false;
  }
  const st = lstatSync(dir);
  return st.isDirectory() && st.uid === process.getuid?.() && (st.mode & 0o077) === 0;
}
