import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HOLDER_LOOP, STATIC_HOLDER_LOOP } from '../../../src/runtime/pause.js';
import { whichSystem } from '../../../src/runtime/executables.js';
import { childrenOf } from '../../../src/runtime/proc.js';
import { eventually } from '../../helpers/runtimes.js';

describe("a holder's loop", () => {
  it('ends when its pause program is gone (its runtime directory deleted) rather than start it again and again', () => {
    const res = spawnSync('/bin/sh', ['-c', HOLDER_LOOP, 'holder', '/nonexistent/knode/bin/pause'], { timeout: 10_000 });
    expect(res.error).toBeUndefined();
    expect(res.status).toBe(0);
  });
});

describe("a holder's loop on a static busybox (STATIC_HOLDER_LOOP)", () => {
  // Debian's busybox-static (.ci/run installs it), as the runtime's kit copies it.
  const busybox = whichSystem('busybox');
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('runs busybox by a link named pause as sleep, called pause, and ends once the link is gone', async () => {
    expect(busybox).toBeDefined();
    dir = mkdtempSync(join(tmpdir(), 'knode-pause-'));
    const pause = join(dir, 'pause');
    symlinkSync(busybox!, pause);
    const shell = spawn(busybox!, ['sh', '-c', STATIC_HOLDER_LOOP, 'holder', pause], { stdio: 'ignore' });
    const ended = new Promise<number | null>((resolve) => shell.once('exit', (code) => resolve(code)));
    try {
      const idler = await eventually(
        () => childrenOf(shell.pid!).find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8') === 'sleep\x002147483647\x00'),
        () => `the holder's shell (${shell.pid}) to start its pause program: children ${childrenOf(shell.pid!).join(', ')}`,
        3_000,
      );
      expect(readFileSync(`/proc/${idler}/comm`, 'utf8').trim()).toBe('pause');
      // Gone with its link: the loop does not start it again.
      rmSync(pause);
      process.kill(idler, 'SIGKILL');
      expect(await ended).toBe(0);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      shell.kill('SIGKILL');
    }
  });
});
