// removePodDirectory with a real tmpfs mounted in the pod's directory, as a
// Memory emptyDir leaves it after the knode process that mounted it ended
// (knode delete runs in another process than the apply that made the pod).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { podDir, removePodDirectory } from '../../../../src/engine/volume/volume-manager.js';
import { hostMounts, mountsUnder } from '../../../../src/util/mountinfo.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) {
    for (const mount of mountsUnder(hostMounts(), dir).reverse()) execFileSync('umount', [mount]);
    rmSync(dir, { recursive: true, force: true });
  }
});

function rootDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'knode-pod-dir-'));
  made.push(dir);
  return dir;
}

describe('removePodDirectory', () => {
  it("unmounts a Memory emptyDir's tmpfs under the pod's directory, then removes the directory", async () => {
    const root = rootDir();
    const memory = join(podDir(root, 'uid-1'), 'volumes', 'kubernetes.io~empty-dir', 'cache');
    mkdirSync(memory, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', memory]);
    writeFileSync(join(memory, 'data'), 'x');
    writeFileSync(join(podDir(root, 'uid-1'), 'etc-hosts'), '127.0.0.1 localhost\n');
    expect(mountsUnder(hostMounts(), podDir(root, 'uid-1'))).toEqual([memory]);

    await removePodDirectory(root, 'uid-1');
    expect(mountsUnder(hostMounts(), root)).toEqual([]);
    expect(existsSync(podDir(root, 'uid-1'))).toBe(false);
  });

  it("leaves other pods' directories, and takes a pod without one", async () => {
    const root = rootDir();
    mkdirSync(podDir(root, 'uid-2'), { recursive: true });
    await removePodDirectory(root, 'uid-1');
    expect(existsSync(podDir(root, 'uid-2'))).toBe(true);
  });
});
