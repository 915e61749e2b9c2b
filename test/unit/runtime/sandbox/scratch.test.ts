import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostMounts, mountsUnder } from '../../../../src/util/mountinfo.js';
import { makeReadonlySys } from '../../../../src/runtime/sandbox/readonly-sys.js';
import { ScratchSpace } from '../../../../src/runtime/sandbox/scratch.js';

const TMPFS_MAGIC = 0x01021994;
const shmIsTmpfs = (() => {
  try {
    return statfsSync('/dev/shm').type === TMPFS_MAGIC;
  } catch {
    return false;
  }
})();

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function rootDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'knode-scratch-root-'));
  made.push(dir);
  return dir;
}

describe('ScratchSpace', () => {
  it.skipIf(!shmIsTmpfs)("is a private directory of the runtime's own on a tmpfs, emptied of what a runtime before left there", () => {
    const root = rootDir();
    const first = ScratchSpace.open(root, ['/dev/shm']);
    made.push(first.dir);
    expect(first.onTmpfs).toBe(true);
    expect(first.dir.startsWith('/dev/shm/knode-')).toBe(true);
    mkdirSync(join(first.of('c1'), 'dev'), { recursive: true });
    writeFileSync(join(first.dir, 'stray'), '');
    const again = ScratchSpace.open(root, ['/dev/shm']);
    expect(again.dir).toBe(first.dir);
    expect(readdirSync(again.dir)).toEqual([]);
    // Another runtime directory has its own.
    const other = ScratchSpace.open(rootDir(), ['/dev/shm']);
    made.push(other.dir);
    expect(other.dir).not.toBe(first.dir);
  });

  it.skipIf(!shmIsTmpfs)('does not use a directory of that name that others may enter, and stays under the runtime directory then', () => {
    const root = rootDir();
    const taken = ScratchSpace.open(root, ['/dev/shm']).dir;
    made.push(taken);
    chmodSync(taken, 0o777);
    const space = ScratchSpace.open(root, ['/dev/shm']);
    expect(space).toMatchObject({ dir: join(root, 'scratch'), onTmpfs: false });
  });

  it('stays under the runtime directory where no candidate is a tmpfs; releases a container and closes', () => {
    const root = rootDir();
    const space = ScratchSpace.open(root, [root, '/no/such/dir']);
    expect(space).toMatchObject({ dir: join(root, 'scratch'), onTmpfs: false });
    mkdirSync(join(space.of('c1'), 'dev'), { recursive: true });
    mkdirSync(space.of('c2'));
    space.release('c1');
    expect(readdirSync(space.dir)).toEqual(['c2']);
    space.close();
    expect(existsSync(space.dir)).toBe(false);
  });

  it.skipIf(process.getuid?.() !== 0)(
    "holds the read-only copy of the host's /sys, read-only all the way down, detached when opened again and when closed",
    async () => {
      const root = rootDir();
      const space = ScratchSpace.open(root, [root]);
      const submounts = mountsUnder(hostMounts(), '/sys');
      expect(await makeReadonlySys(join(space.dir, 'sys'), submounts)).toEqual({ dir: join(space.dir, 'sys') });
      const options = (mountPoint: string) =>
        readFileSync('/proc/self/mountinfo', 'utf8')
          .split('\n')
          .map((l) => l.split(' '))
          .find((f) => f[4] === mountPoint)?.[5];
      for (const at of ['/sys', ...submounts]) expect(options(join(space.dir, at)), at).toMatch(/^ro,/);
      expect(readdirSync(join(space.dir, 'sys'))).toEqual(readdirSync('/sys'));
      // A runtime killed before its close left it mounted: the next one detaches it before emptying the space.
      const again = ScratchSpace.open(root, [root]);
      expect(mountsUnder(hostMounts(), again.dir)).toEqual([]);
      expect(readdirSync(again.dir)).toEqual([]);
      await makeReadonlySys(join(again.dir, 'sys'), submounts);
      expect(mountsUnder(hostMounts(), again.dir).length).toBe(1 + submounts.length);
      again.close();
      expect(mountsUnder(hostMounts(), again.dir)).toEqual([]);
      expect(existsSync(again.dir)).toBe(false);
    },
  );
});
