// The containers of the embedded runtime that util-linux sets up rather than
// bwrap (src/runtime/sandbox/mount-sandbox.ts), through the real CRI path:
// no_new_privs only when asked, so a setuid program gains its owner's rights
// as under runc; and a Bidirectional mount shared with the host both ways.
// Root only, as that setup is.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CriClient } from '../../src/cri/client.js';
import type { CriError } from '../../src/cri/errors.js';
import type { ContainerConfig, Mount } from '../../src/cri/types.js';
import { containerConfig, loggedLines, ownSandboxConfig, runPodToEnd, waitExited } from '../helpers/cri.js';
import { mirrorConfig, startImageRuntime, type ImageRuntime } from '../helpers/registry.js';
import { mountPointsOf, readProcState, setUpShellOf, sparesOf } from '../helpers/proc.js';
import { eventually, startEmbeddedRuntime } from '../helpers/runtimes.js';
import { childrenOf } from '../../src/runtime/proc.js';

const root = process.getuid?.() === 0;
let env: ImageRuntime;
let client: CriClient;

beforeAll(async () => {
  if (!root) return;
  env = await startImageRuntime('knode-mount-sandbox-', ['busybox:1.36', 'busybox-user:1.0']);
  client = env.client;
}, 180_000);

afterAll(() => env?.stop());

type Security = NonNullable<NonNullable<ContainerConfig['linux']>['securityContext']>;

function config(
  name: string,
  command: string[],
  security: Omit<Security, 'namespaceOptions'> = {},
  extra: Partial<ContainerConfig> = {},
): ContainerConfig {
  return containerConfig(name, command, { linux: { securityContext: { namespaceOptions: { pid: 'CONTAINER' }, ...security } }, ...extra });
}

const isMountPoint = (path: string) => spawnSync('mountpoint', ['-q', path]).status === 0;

/** The spare shells waiting in the spawner of the runtime whose pid is RUNTIME. */
function spareShellsOf(runtime: number): number[] {
  const spawner = childrenOf(runtime).find((pid) => readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('spawner'));
  return spawner === undefined ? [] : sparesOf(spawner);
}

describe.skipIf(!root)('containers set up by util-linux (embedded runtime, root)', () => {
  it('sets no_new_privs only when asked, for the program and for an exec, and leaves it to bwrap under a seccomp filter', async () => {
    const show = ['sh', '-c', 'grep NoNewPrivs: /proc/self/status | cut -f2'];
    expect((await runPodToEnd(client, 'nnp-off', config('nnp', show))).lines).toEqual(['0']);
    expect((await runPodToEnd(client, 'nnp-on', config('nnp', show, { noNewPrivs: true }))).lines).toEqual(['1']);
    // bwrap loads the filter and sets no_new_privs with it, whatever was asked (a difference from runc).
    expect((await runPodToEnd(client, 'nnp-seccomp', config('nnp', show, { seccomp: { profileType: 'RuntimeDefault' } }))).lines).toEqual([
      '1',
    ]);
    for (const noNewPrivs of [false, true]) {
      const sandbox = ownSandboxConfig(`nnp-exec-${noNewPrivs}`);
      const sandboxId = await client.runPodSandbox(sandbox);
      const id = await client.createContainer(sandboxId, config('sleeper', ['sleep', '60'], { noNewPrivs }), sandbox);
      await client.startContainer(id);
      // The whole answer: a pipeline's status is cut's, so what failed says so only on stderr.
      const answer = await client.execSync(id, show, 10);
      expect({ stdout: answer.stdout.toString(), stderr: answer.stderr.toString(), exitCode: answer.exitCode }).toEqual({
        stdout: noNewPrivs ? '1\n' : '0\n',
        stderr: '',
        exitCode: 0,
      });
      await client.stopContainer(id, 0);
    }
  });

  it("lets a setuid program gain its owner's rights unless no_new_privs is set", async () => {
    // Kubernetes' nonewprivs program (test/peers/build.sh nonewprivs, as critest's image has it), setuid root in a volume.
    const tools = mkdtempSync(join(tmpdir(), 'knode-setuid-'));
    chmodSync(tools, 0o755);
    const built = execFileSync('bash', [join(import.meta.dirname, '../peers/build.sh'), 'path', 'nonewprivs'], { encoding: 'utf8' }).trim();
    copyFileSync(join(built, 'nonewprivs'), join(tools, 'nnp'));
    chmodSync(join(tools, 'nnp'), 0o4755);
    const mounts: Mount[] = [{ containerPath: '/tools', hostPath: tools, readonly: true }];
    const run = (pod: string, noNewPrivs: boolean) =>
      runPodToEnd(client, pod, config('setuid', ['/tools/nnp'], { runAsUser: { value: 1000 }, noNewPrivs }, { mounts }));
    expect((await run('setuid-allowed', false)).lines).toEqual(['Effective uid: 0']);
    expect((await run('setuid-refused', true)).lines).toEqual(['Effective uid: 1000']);
  });

  it("runs a non-root image user in its WORKDIR, with the pod's shared PID namespace and its volumes", async () => {
    const data = mkdtempSync(join(tmpdir(), 'knode-mount-data-'));
    chmodSync(data, 0o777);
    const sandbox = { ...ownSandboxConfig('shared-pid'), linux: { securityContext: { namespaceOptions: { pid: 'POD' as const } } } };
    const sandboxId = await client.runPodSandbox(sandbox);
    const script = 'id -u; pwd; echo written > /data/file; ps -o comm | grep -x pause';
    const looker = containerConfig('looker', ['sh', '-c', script], {
      image: { image: 'busybox-user:1.0' },
      mounts: [{ containerPath: '/data', hostPath: data }],
      linux: { securityContext: { namespaceOptions: { pid: 'POD' } } },
    });
    const id = await client.createContainer(sandboxId, looker, sandbox);
    await client.startContainer(id);
    expect((await waitExited(client, id)).exitCode).toBe(0);
    // The pod's holder (pause) is in the namespace beside the shell.
    expect(loggedLines(sandbox, looker)).toEqual(['1000', '/home/app', 'pause']);
    expect(readFileSync(join(data, 'file'), 'utf8')).toBe('written\n');
    await client.removePodSandbox(sandboxId);
  });

  it('mounts a file inside /dev (the termination log) and volumes inside another, through its symlinks', async () => {
    const outer = mkdtempSync(join(tmpdir(), 'knode-outer-'));
    symlinkSync('in', join(outer, 'link'));
    const inner = mkdtempSync(join(tmpdir(), 'knode-inner-'));
    const log = join(mkdtempSync(join(tmpdir(), 'knode-termination-')), 'log');
    writeFileSync(join(inner, 'inner-file'), 'inner\n');
    writeFileSync(log, '');
    const mounts: Mount[] = [
      { containerPath: '/dev/termination-log', hostPath: log },
      { containerPath: '/outer', hostPath: outer },
      { containerPath: '/outer/in/inner', hostPath: inner },
      // Through the volume's link → in: it lands on /outer/in/again.
      { containerPath: '/outer/link/again', hostPath: inner, readonly: true },
    ];
    const script = 'echo done > /dev/termination-log; cat /outer/in/inner/inner-file /outer/in/again/inner-file; ls /dev | tr "\\n" " "';
    const res = await runPodToEnd(client, 'nested-mounts', config('nested', ['sh', '-c', script], {}, { mounts }));
    expect(res).toEqual({
      lines: ['inner', 'inner', 'core fd full null ptmx pts random shm stderr stdin stdout termination-log tty urandom zero '],
      exitCode: 0,
    });
    expect(readFileSync(log, 'utf8')).toBe('done\n');
  });

  it("shares a Bidirectional mount with the host both ways, keeps a private one private, and adds nothing to the host's mount table", async () => {
    const source = mkdtempSync(join(tmpdir(), 'knode-bidirectional-'));
    const plain = mkdtempSync(join(tmpdir(), 'knode-private-'));
    const other = mkdtempSync(join(tmpdir(), 'knode-bidirectional-other-'));
    for (const dir of [join(source, 'from-host'), join(source, 'from-container'), join(plain, 'from-host')]) mkdirSync(dir);
    writeFileSync(join(other, 'flag'), '');
    for (const dir of [source, plain]) {
      execFileSync('mount', ['--bind', dir, dir]);
      execFileSync('mount', ['--make-rshared', dir]);
    }
    const before = mountPointsOf('self');
    try {
      const sandbox = ownSandboxConfig('bidirectional');
      const sandboxId = await client.runPodSandbox(sandbox);
      const mounts: Mount[] = [
        { containerPath: '/shared', hostPath: source, propagation: 'PROPAGATION_BIDIRECTIONAL' },
        { containerPath: '/private', hostPath: plain },
      ];
      const id = await client.createContainer(sandboxId, config('mounter', ['sleep', '60'], { privileged: true }, { mounts }), sandbox);
      await client.startContainer(id);
      // The runtime's mount of the container's root file system, and nothing the setup made inside.
      expect(mountPointsOf('self').filter((p) => !before.includes(p))).toEqual([
        expect.stringMatching(new RegExp(`^${env.root}/.*/${id}/rootfs$`)),
      ]);
      execFileSync('mount', ['--bind', other, join(source, 'from-host')]);
      execFileSync('mount', ['--bind', other, join(plain, 'from-host')]);
      expect((await client.execSync(id, ['ls', '/shared/from-host', '/private/from-host'], 10)).stdout.toString()).toBe(
        '/private/from-host:\n\n/shared/from-host:\nflag\n',
      );
      const made = await client.execSync(id, ['mount', '-t', 'tmpfs', 'tmpfs', '/shared/from-container'], 10);
      expect(made.exitCode, made.stderr.toString()).toBe(0);
      await eventually(() => isMountPoint(join(source, 'from-container')), 'the mount made in the container to reach the host');
      await client.stopContainer(id, 0);
      await client.removePodSandbox(sandboxId);
    } finally {
      for (const path of [join(source, 'from-container'), join(source, 'from-host'), join(plain, 'from-host'), source, plain])
        spawnSync('umount', [path]);
    }
    expect(mountPointsOf('self').filter((p) => !before.includes(p))).toEqual([]);
  });

  it("sets a container up with its create, as runc's create does: its start lets the set-up exec the program; a removal before its start ends it", async () => {
    const sandbox = ownSandboxConfig('made-by-create');
    const sandboxId = await client.runPodSandbox(sandbox);
    const id = await client.createContainer(sandboxId, config('held', ['sleep', '60']), sandbox);
    // Created: its set-up shell waits, in a mount namespace whose root is the container's overlay, with its /proc.
    const held = await eventually(() => setUpShellOf(id), 'the set-up shell of the created container');
    const pivoted = () =>
      readFileSync(`/proc/${held}/mountinfo`, 'utf8')
        .split('\n')
        .some((line) => line.split(' ')[4] === '/' && / - overlay /.test(line));
    await eventually(() => pivoted() && readProcState(held) === 'S', 'the set-up to pivot into the container and wait');
    expect(readFileSync(`/proc/${held}/comm`, 'utf8').trim()).toBe('busybox-kinit');
    expect(mountPointsOf(held)).toContain('/etc/hostname');
    await client.startContainer(id);
    // The same process became the program.
    await eventually(() => readFileSync(`/proc/${held}/comm`, 'utf8').trim() === 'sleep', 'the program to run in the set-up process');
    expect((await client.containerStatus(id)).status?.state).toBe('CONTAINER_RUNNING');
    // One removed before its start: its set-up ends with it.
    const other = await client.createContainer(sandboxId, config('removed', ['sleep', '60']), sandbox);
    const waiting = await eventually(() => setUpShellOf(other), 'the set-up shell of the second container');
    await client.removeContainer(other);
    // Killed with its group (a zombie until its new parent reaps it).
    const gone = (pid: number) => ['Z', undefined].includes(readProcState(pid));
    await eventually(() => gone(waiting), 'the set-up of the removed container to end');
    // One stopped before its start: its set-up ends, it stays created, and its start makes it again.
    const stopped = await client.createContainer(sandboxId, config('stopped', ['sh', '-c', 'echo second try; sleep 60']), sandbox);
    const first = await eventually(() => setUpShellOf(stopped), 'the set-up shell of the third container');
    await client.stopContainer(stopped, 0);
    await eventually(() => gone(first), 'the set-up of the stopped container to end');
    expect((await client.containerStatus(stopped)).status?.state).toBe('CONTAINER_CREATED');
    await client.startContainer(stopped);
    await eventually(
      () => loggedLines(sandbox, config('stopped', [])).includes('second try'),
      'the output of the container started after its stop',
    );
    await client.removePodSandbox(sandboxId);
  });

  it('runs a program once when it ends before the runtime has its set-up report (the start released it before)', async () => {
    const sandbox = ownSandboxConfig('ends-before-report');
    const sandboxId = await client.runPodSandbox(sandbox);
    // The pod's holder up first (its first container waits for it), and spare shells waiting in the spawner.
    expect((await runPodToEnd(client, 'ends-before-report-warm', config('warm', ['true']))).exitCode).toBe(0);
    const runtime = env.runtime.child.pid!;
    const waiting = await eventually(() => (spareShellsOf(runtime).length > 0 ? spareShellsOf(runtime) : undefined), 'spare shells');
    // Every spare stopped: the set-up the create hands to one cannot begin, so it cannot report before the start.
    for (const pid of waiting) process.kill(pid, 'SIGSTOP');
    const quick = config('quick', ['echo', 'ran once']);
    let started: Promise<void> | undefined;
    try {
      const id = await client.createContainer(sandboxId, quick, sandbox);
      started = client.startContainer(id);
      // The start takes the set-up and releases it; the runtime is then stopped, and the set-up goes on without it:
      // it reports to a runtime that does not read, and execs the program, which ends before the runtime has the report.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(setUpShellOf(id), 'no set-up began while the spares were stopped').toBeUndefined();
      process.kill(runtime, 'SIGSTOP');
      try {
        for (const pid of waiting) process.kill(pid, 'SIGCONT');
        await eventually(() => loggedLines(sandbox, quick).length > 0, 'the program to run while the runtime is stopped');
        // The spare that took the set-up is its wrapper (nsenter, then unshare), which ends with the program.
        await eventually(
          () => waiting.some((pid) => ['Z', undefined].includes(readProcState(pid))),
          'the program to end while the runtime is stopped',
        );
      } finally {
        process.kill(runtime, 'SIGCONT');
      }
      await started;
      expect((await waitExited(client, id)).exitCode).toBe(0);
      // The runtime did not take the ended process for one that never started: nothing ran it a second time.
      expect(loggedLines(sandbox, quick)).toEqual(['ran once']);
    } finally {
      for (const pid of waiting) if (readProcState(pid) !== undefined) process.kill(pid, 'SIGCONT');
      await started?.catch(() => {});
      await client.removePodSandbox(sandboxId);
    }
  });

  it("answers a start once the set-up has exec'd the program, as runc's start answers once its init has", async () => {
    // Between its release and the program, the set-up shell closes fd 3 and execs the kit's setpriv, which execs
    // the program: an exec or a signal right after StartContainer must find the program, not its set-up.
    const sandbox = ownSandboxConfig('start-returns-after-exec');
    const sandboxId = await client.runPodSandbox(sandbox);
    const comms: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = await client.createContainer(sandboxId, config(`program-${i}`, ['sleep', '60']), sandbox);
      const held = await eventually(() => setUpShellOf(id), 'the set-up shell of the created container');
      await eventually(
        () => readProcState(held) === 'S' && readFileSync(`/proc/${held}/mountinfo`, 'utf8').includes(' - overlay '),
        'the set-up to wait for its start',
      );
      await client.startContainer(id);
      comms.push(readFileSync(`/proc/${held}/comm`, 'utf8').trim());
    }
    expect(comms).toEqual(Array(5).fill('sleep'));
    await client.removePodSandbox(sandboxId);
  });

  it('runs a container with limits (put in its cgroup before its set-up) and one with stdin, which the runtime starts itself, without fd 3', async () => {
    const own = { namespaceOptions: { pid: 'CONTAINER' as const } };
    const limited = containerConfig('limited', ['sh', '-c', 'echo limited'], {
      linux: { resources: { memoryLimitInBytes: 64 * 1024 * 1024 }, securityContext: own },
    });
    expect(await runPodToEnd(client, 'limited', limited)).toEqual({ lines: ['limited'], exitCode: 0 });
    const withStdin = containerConfig('stdin', ['sh', '-c', 'echo with stdin'], { stdin: true, linux: { securityContext: own } });
    expect(await runPodToEnd(client, 'with-stdin', withStdin)).toEqual({ lines: ['with stdin'], exitCode: 0 });
  });

  it('fails a start whose root file system cannot be mounted, saying why, and removes what it made; the next start goes on', async () => {
    const sandbox = ownSandboxConfig('unmountable');
    const sandboxId = await client.runPodSandbox(sandbox);
    // The image's stacked layers (made by the containers before) are a file for this create: its root cannot be mounted.
    const images = join(env.root, 'runtime', 'rootfs', 'images');
    const stacks = readdirSync(images);
    expect(stacks.length).toBeGreaterThan(0);
    for (const stack of stacks) renameSync(join(images, stack), join(images, `${stack}.aside`));
    for (const stack of stacks) writeFileSync(join(images, stack), '');
    let id: string;
    let err: CriError;
    try {
      id = await client.createContainer(sandboxId, config('broken', ['sleep', '60']), sandbox);
      err = (await client.startContainer(id).catch((e: CriError) => e)) as CriError;
    } finally {
      for (const stack of stacks) {
        rmSync(join(images, stack));
        renameSync(join(images, `${stack}.aside`), join(images, stack));
      }
    }
    const base = join(env.root, 'runtime', 'rootfs', 'containers', id);
    expect(err.details).toMatch(/cannot mount the container's root file system: \S.*/);
    expect((await client.containerStatus(id)).status).toMatchObject({ state: 'CONTAINER_EXITED', reason: 'StartError' });
    expect(isMountPoint(join(base, 'rootfs'))).toBe(false);
    await client.removeContainer(id);
    expect(existsSync(base)).toBe(false);
    const next = await client.createContainer(sandboxId, config('next', ['sh', '-c', 'echo up; sleep 60']), sandbox);
    await client.startContainer(next);
    await eventually(() => loggedLines(sandbox, config('next', [])).includes('up'), 'the next container to run');
    // Its root is mounted in its own namespace only: nothing on the host.
    expect(isMountPoint(join(env.root, 'runtime', 'rootfs', 'containers', next, 'rootfs'))).toBe(false);
    await client.removePodSandbox(sandboxId);
    // Removed with its pod: deleted once it exited.
    await eventually(() => !existsSync(join(env.root, 'runtime', 'rootfs', 'containers', next)), 'the next container to be removed');
  });

  it('fails a start whose set-up cannot make its mounts, with what mount said, and starts the next one', async () => {
    const sandbox = ownSandboxConfig('refused');
    const sandboxId = await client.runPodSandbox(sandbox);
    // The image's stacked layers seen through two overlays: the container's own would be a third, which the kernel
    // refuses (overlayfs stacks two deep at most) in its set-up's mount -a. Its program is found in them.
    const images = join(env.root, 'runtime', 'rootfs', 'images');
    const stacks = readdirSync(images).filter((name) => !name.includes('.'));
    const scratch = mkdtempSync(join(tmpdir(), 'knode-stacked-'));
    const overlay = (lower: string, at: string, name: string) => {
      for (const dir of ['upper', 'work']) mkdirSync(join(scratch, name, dir), { recursive: true });
      execFileSync('mount', [
        '-t',
        'overlay',
        'overlay',
        '-o',
        `lowerdir=${lower},upperdir=${join(scratch, name, 'upper')},workdir=${join(scratch, name, 'work')}`,
        at,
      ]);
    };
    for (const stack of stacks) {
      const at = join(images, stack);
      mkdirSync(join(scratch, stack, 'middle'), { recursive: true });
      overlay(at, join(scratch, stack, 'middle'), `${stack}-1`);
      overlay(join(scratch, stack, 'middle'), at, `${stack}-2`);
    }
    let id: string;
    let err: CriError;
    try {
      id = await client.createContainer(sandboxId, config('refused', ['sleep', '60']), sandbox);
      err = (await client.startContainer(id).catch((e: CriError) => e)) as CriError;
    } finally {
      for (const stack of stacks) {
        execFileSync('umount', [join(images, stack)]);
        execFileSync('umount', [join(scratch, stack, 'middle')]);
      }
      rmSync(scratch, { recursive: true, force: true });
    }
    expect(err.details).toMatch(/^failed to start container "\w+": mount: \S.*/);
    expect((await client.containerStatus(id)).status).toMatchObject({ state: 'CONTAINER_EXITED', reason: 'StartError' });
    await client.removeContainer(id);
    const next = await client.createContainer(sandboxId, config('after', ['sh', '-c', 'echo up; sleep 60']), sandbox);
    await client.startContainer(next);
    await eventually(() => loggedLines(sandbox, config('after', [])).includes('up'), 'the next container to run');
    await client.removePodSandbox(sandboxId);
  });

  // The mount that holds each runtime's root below is a bind of its own, private or shared as the case needs:
  // what other tests or the host make shared meanwhile cannot change the answer.
  const shares = (dir: string) =>
    / shared:\d+ /.test(
      readFileSync('/proc/self/mountinfo', 'utf8')
        .split('\n')
        .find((line) => line.split(' ')[4] === dir) ?? '',
    );
  const runtimeOnMount = async (propagation: '--make-private' | '--make-shared', check: (containers: string) => void) => {
    const other = mkdtempSync(join(tmpdir(), 'knode-unbound-'));
    execFileSync('mount', ['--bind', other, other]);
    execFileSync('mount', [propagation, other]);
    try {
      writeFileSync(join(other, 'registries.yaml'), mirrorConfig(env.registry.host));
      const rt = await startEmbeddedRuntime(other);
      const containers = join(other, 'runtime', 'rootfs', 'containers');
      try {
        check(containers);
      } finally {
        await rt.stop();
      }
      expect(isMountPoint(containers)).toBe(false);
    } finally {
      // The runtime's helpers may hold the bind a moment after it has exited.
      await eventually(() => spawnSync('umount', [other]).status === 0, 'the bind of the runtime root to be unmounted');
      rmSync(other, { recursive: true, force: true });
    }
  };

  it('mounts root file systems in a directory it shares, bound onto itself where the mount holding it is private, and unbinds it when it stops', async () => {
    expect(shares(join(env.root, 'runtime', 'rootfs', 'containers'))).toBe(true);
    await runtimeOnMount('--make-private', (containers) => expect(isMountPoint(containers) && shares(containers)).toBe(true));
  });

  it('binds nothing where the mount holding its root file systems is shared already', async () => {
    await runtimeOnMount('--make-shared', (containers) => {
      expect(isMountPoint(containers)).toBe(false);
      expect(shares(join(containers, '..', '..', '..'))).toBe(true);
    });
  });

  it('refuses a Bidirectional mount whose source the host does not share, as containerd does', async () => {
    const source = mkdtempSync(join(tmpdir(), 'knode-unshared-'));
    const sandbox = ownSandboxConfig('unshared');
    const sandboxId = await client.runPodSandbox(sandbox);
    const mounts: Mount[] = [{ containerPath: '/shared', hostPath: source, propagation: 'PROPAGATION_BIDIRECTIONAL' }];
    const id = await client.createContainer(sandboxId, config('mounter', ['sleep', '60'], { privileged: true }, { mounts }), sandbox);
    const err = (await client.startContainer(id).catch((e: CriError) => e)) as CriError;
    expect(err.details).toMatch(new RegExp(`path "${source}" is mounted on "[^"]+" but it is not a shared mount`));
    await client.removePodSandbox(sandboxId);
  });
});

// A host whose mounts are all shared, as systemd makes them (this machine's are private): the runtime in a
// mount namespace of its own where everything is shared. Nothing a container's set-up mounts or unmounts
// may reach that namespace, but what a Bidirectional mount shares.
describe.skipIf(!root)('containers set up by util-linux on a host whose mounts are shared', () => {
  let shared: ImageRuntime;
  let runtimePid: number;

  beforeAll(async () => {
    shared = await startImageRuntime('knode-shared-host-', ['busybox:1.36'], undefined, [
      'unshare',
      '--mount',
      '--propagation',
      'shared',
      '--',
    ]);
    runtimePid = shared.runtime.child.pid!;
    expect(readFileSync(`/proc/${runtimePid}/mountinfo`, 'utf8').split('\n')[0]).toMatch(/ shared:\d+ /);
  }, 180_000);

  afterAll(() => shared?.stop());

  it('adds no mount of a set-up to the host, takes none away, and shares only the Bidirectional volume', async () => {
    const cri = shared.client;
    const inRuntime = (...command: string[]) => execFileSync('nsenter', [`--target=${runtimePid}`, '--mount', '--', ...command]);
    const source = mkdtempSync(join(tmpdir(), 'knode-shared-source-'));
    const other = mkdtempSync(join(tmpdir(), 'knode-shared-other-'));
    for (const dir of ['from-host', 'from-container']) mkdirSync(join(source, dir));
    writeFileSync(join(other, 'flag'), '');
    // The source a mount of its own with a peer group of its own, as the kubelet's and critest's are: a
    // Bidirectional volume on the mount that holds the runtime's root dir is a slave, as with runc, which
    // makes that mount private in the container.
    inRuntime('mount', '--bind', source, source);
    inRuntime('mount', '--make-private', source);
    inRuntime('mount', '--make-shared', source);
    const before = mountPointsOf(runtimePid);
    const sandbox = ownSandboxConfig('shared-host');
    const sandboxId = await cri.runPodSandbox(sandbox);
    const plain = await cri.createContainer(sandboxId, config('plain', ['sleep', '60']), sandbox);
    const mounts: Mount[] = [{ containerPath: '/shared', hostPath: source, propagation: 'PROPAGATION_BIDIRECTIONAL' }];
    // In the pod's PID namespace: no PID namespace of its own to make (critest's pods are so).
    const mounter = await cri.createContainer(
      sandboxId,
      containerConfig('mounter', ['sleep', '60'], {
        mounts,
        linux: { securityContext: { privileged: true, namespaceOptions: { pid: 'POD' } } },
      }),
      sandbox,
    );
    await cri.startContainer(plain);
    await cri.startContainer(mounter);
    // The runtime's own mount of the root file system of the container with a Bidirectional volume (the plain one's
    // is mounted in its own namespace only), and nothing of their set-ups.
    expect(mountPointsOf(runtimePid).filter((p) => !before.includes(p))).toEqual([expect.stringMatching(new RegExp(`${mounter}/rootfs$`))]);
    inRuntime('mount', '--bind', other, join(source, 'from-host'));
    expect((await cri.execSync(mounter, ['ls', '/shared/from-host'], 10)).stdout.toString()).toBe('flag\n');
    expect((await cri.execSync(plain, ['sh', '-c', 'grep -c " /shared/" /proc/self/mountinfo || true'], 10)).stdout.toString()).toBe('0\n');
    const made = await cri.execSync(mounter, ['mount', '-t', 'tmpfs', 'tmpfs', '/shared/from-container'], 10);
    expect(made.exitCode, made.stderr.toString()).toBe(0);
    await eventually(
      () => mountPointsOf(runtimePid).includes(join(source, 'from-container')),
      'the mount made in the container to reach the host',
    );
    await cri.removePodSandbox(sandboxId);
    // Every mount the host had is still there: no unmount of a set-up reached it.
    expect(before.filter((p) => !mountPointsOf(runtimePid).includes(p))).toEqual([]);
  });
});
