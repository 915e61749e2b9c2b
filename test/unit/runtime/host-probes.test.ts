// The runtime's host probes, one component, through real shells and the
// host's own programs (unshare, bwrap, mount): what the shell's lines say,
// and what the probes find and leave. The runtime's use of them is in
// test/integration/embedded-runtime.test.ts and the sandbox suites.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  parseProbeAnswers,
  probeScript,
  runProbes,
  startHostProbes,
  startHostProbesEarly,
  takeHostProbes,
  type ProbeCommand,
} from '../../../src/runtime/host-probes.js';
import { whichSystem } from '../../../src/runtime/executables.js';
import { hostMounts, mountOf, mountsUnder } from '../../../src/util/mountinfo.js';
import { eventually } from '../../helpers/runtimes.js';

const root = process.getuid?.() === 0;
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'knode-probes-'));
  dirs.push(dir);
  return dir;
};

afterAll(async () => {
  for (const dir of dirs) {
    for (const mounted of mountsUnder(hostMounts(), dir)) await new Promise((resolve) => execFile('umount', ['-l', mounted], resolve));
    rmSync(dir, { recursive: true, force: true });
  }
});

function runScript(commands: ProbeCommand[]) {
  return new Promise<ReturnType<typeof parseProbeAnswers>>((resolve, reject) =>
    execFile('/bin/sh', ['-c', probeScript(commands)], (err, stdout) => (err ? reject(err) : resolve(parseProbeAnswers(stdout)))),
  );
}

describe('the probes shell', () => {
  it("gives each command's status with its errors, or its output, on one line, its words not globbed", async () => {
    const answers = await runScript([
      { name: 'ok', argv: ['true'] },
      { name: 'fails', argv: ['sh', '-c', `echo "it * broke" >&2; printf '%s\\n' 'at \\n line 2' >&2; echo out; exit 3`] },
      { name: 'version', argv: ['sh', '-c', 'echo "tool 1.2"; echo noise >&2'], stdout: true },
      { name: 'quoted', argv: ['sh', '-c', 'echo "it\'s here" >&2; exit 1'] },
      { name: 'missing', argv: ['/nonexistent/knode-probe'] },
    ]);
    expect(answers.get('ok')).toEqual({ status: 0, text: '' });
    expect(answers.get('fails')).toEqual({ status: 3, text: 'it * broke at \\n line 2' });
    expect(answers.get('version')).toEqual({ status: 0, text: 'tool 1.2' });
    expect(answers.get('quoted')).toEqual({ status: 1, text: "it's here" });
    expect(answers.get('missing')?.status).toBe(127);
    expect(answers.get('missing')?.text).toContain('not found');
  });

  it.skipIf(!root)('unmounts and deletes the overlay it mounted after answering', async () => {
    const overlayDir = join(tempDir(), 'probe-1');
    const [lower, upper, work, merged] = ['lower', 'upper', 'work', 'merged'].map((sub) => join(overlayDir, sub));
    const argv = ['mount', '-t', 'overlay', 'overlay', '-o', `lowerdir=${lower},upperdir=${upper},workdir=${work}`, merged];
    const then = [
      ['umount', merged],
      ['rm', '-rf', overlayDir],
    ];
    const answers = await runScript([{ name: 'overlay', argv, dirs: [lower, upper, work, merged], then }]);
    expect(answers.get('overlay')).toEqual({ status: 0, text: '' });
    await eventually(() => !existsSync(overlayDir), "the probe overlay's directory deleted");
    expect(mountOf(hostMounts(), merged)?.mountPoint).not.toBe(merged);
  });
});

describe('runProbes', () => {
  it('kills a shell that has not ended in time with every program it started, and keeps the answers it had', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'sleep.pid');
    const t0 = Date.now();
    const answers = await runProbes(
      spawn,
      [
        { name: 'quick', argv: ['true'] },
        { name: 'hangs', argv: ['sh', '-c', `echo $$ > ${pidFile}; exec sleep 30`] },
      ],
      500,
    );
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(answers.get('quick')).toEqual({ status: 0, text: '' });
    expect(answers.has('hangs')).toBe(false);
    const sleeper = Number(readFileSync(pidFile, 'utf8'));
    await eventually(
      () => !existsSync(`/proc/${sleeper}`) || readFileSync(`/proc/${sleeper}/stat`, 'utf8').split(' ')[2] === 'Z',
      'the hung probe killed',
    );
  });
});

describe('startHostProbes', () => {
  it('asks only about PID namespaces when sandboxes are not wanted, and touches no directory', async () => {
    const dir = tempDir();
    const probes = startHostProbes(spawn, join(dir, 'runtime'), false);
    expect(probes.bubblewrap).toBeUndefined();
    expect(probes.rootfs).toBeUndefined();
    const pid = await probes.pidNamespaces;
    expect(pid.available).toBe(root);
    if (root) expect(pid.reason).toBe('unshare and nsenter');
    else expect(pid.reason).toMatch(/^unshare --pid fails: /);
    expect(readdirSync(dir)).toEqual([]);
  });

  it.skipIf(!root || !whichSystem('bwrap'))(
    'finds bubblewrap, mounts an overlay and shares the containers directory once, then finds it shared',
    async () => {
      const runtimeDir = join(tempDir(), 'runtime');
      const containers = join(runtimeDir, 'rootfs', 'containers');
      const first = startHostProbes(spawn, runtimeDir, true);
      const bwrap = await first.bubblewrap!;
      expect(bwrap).toMatchObject({ available: true, bwrap: whichSystem('bwrap'), nsenter: whichSystem('nsenter') });
      expect(bwrap.reason).toMatch(/^bubblewrap \d/);
      expect(await first.rootfs).toEqual({ overlay: { ok: true, reason: '' }, shared: { bound: true } });
      expect(mountOf(hostMounts(), containers)).toMatchObject({ mountPoint: containers, shared: expect.any(Number) });
      // A runtime that died left it bound and shared: the next start binds nothing more, and unbinds it at close.
      const again = startHostProbes(spawn, runtimeDir, true);
      expect(await again.rootfs).toEqual({ overlay: { ok: true, reason: '' }, shared: { bound: true } });
      expect(hostMounts().filter((m) => m.mountPoint === containers)).toHaveLength(1);
      await eventually(() => readdirSync(join(runtimeDir, 'rootfs')).join() === 'containers', 'both probe overlays deleted');
    },
  );

  it('hands the probes started early to the first runtime of their directory, once', async () => {
    const runtimeDir = join(tempDir(), 'runtime');
    startHostProbesEarly(spawn, runtimeDir, false);
    const taken = takeHostProbes(runtimeDir);
    expect(taken).toBeDefined();
    expect(takeHostProbes(runtimeDir)).toBeUndefined();
    expect((await taken!.pidNamespaces).available).toBe(root);
  });
});
