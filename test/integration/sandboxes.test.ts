// Containers of real images in bubblewrap sandboxes on the embedded runtime,
// through the real CRI path (the runtime as its own process, over gRPC),
// with images pulled from the local registry (test/registry/registry.sh).
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import type { CriError } from '../../src/cri/errors.js';
import type { ContainerConfig, PodSandboxConfig } from '../../src/cri/types.js';
import { containerConfig as podContainer, loggedLines, ownSandboxConfig, runPodToEnd, sandboxConfig, waitExited } from '../helpers/cri.js';
import { mirrorConfig, startImageRuntime, type ImageRuntime, type LocalRegistry } from '../helpers/registry.js';
import { cliEntry, eventually, startEmbeddedRuntime } from '../helpers/runtimes.js';

let env: ImageRuntime;
let registry: LocalRegistry;
let client: CriClient;
let root: string;

beforeAll(async () => {
  env = await startImageRuntime('knode-sandbox-', ['busybox:1.36', 'busybox-entrypoint:1.0', 'busybox-user:1.0', 'busybox-layers:1.0']);
  ({ registry, client, root } = env);
}, 180_000);

afterAll(() => env?.stop());

/** A container as the kubelet asks for one: in a PID namespace of its own unless the test says otherwise. */
function containerConfig(name: string, command: string[], extra: Partial<ContainerConfig> = {}): ContainerConfig {
  return podContainer(name, command, { linux: { securityContext: { namespaceOptions: { pid: 'CONTAINER' } } }, ...extra });
}

/** Lines the container wrote to stdout, from its CRI log. */
const output = loggedLines;

/** Runs one container to its end in a new pod, and gives its output. */
const runToEnd = (pod: string, config: ContainerConfig, sandboxExtra: Partial<PodSandboxConfig> = {}) =>
  runPodToEnd(client, pod, config, sandboxExtra);

describe('bubblewrap sandboxes for real images (embedded runtime)', () => {
  it("answers RunPodSandbox while the pod's holder starts, and ends a holder whose pod is removed before it has started", async () => {
    // A holder's unshare and shell: their last arguments are `holder`, then its pause program in the runtime's directory.
    const mark = `\0holder\0${join(root, 'runtime')}/`;
    const holders = () =>
      readdirSync('/proc').filter((entry) => {
        try {
          return /^\d+$/.test(entry) && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(mark) && readProcStatus(entry) !== 'Z';
        } catch {
          return false;
        }
      }).length;
    const before = holders();
    // Removed as soon as RunPodSandbox answers: the holders of most are still starting.
    for (let i = 0; i < 10; i++) await client.removePodSandbox(await client.runPodSandbox(ownSandboxConfig(`quick-${i}`)));
    await eventually(
      () => holders() === before,
      () => `the holders of the removed pods to end (${holders() - before} left)`,
    );
    // One that stays gets its holder, which its containers run in.
    const sandbox = ownSandboxConfig('holder-after');
    const sandboxId = await client.runPodSandbox(sandbox);
    const id = await client.createContainer(sandboxId, containerConfig('up', ['hostname']), sandbox);
    await client.startContainer(id);
    await waitExited(client, id);
    expect(output(sandbox, containerConfig('up', []))).toEqual([sandbox.hostname]);
    // Its holder is seen as the removed ones were looked for: their ends above were not for want of a match.
    expect(holders()).toBeGreaterThan(before);
    await client.removePodSandbox(sandboxId);
  });

  it('says in its status that containers of real images run in sandboxes', async () => {
    const info = JSON.parse((await client.status(true)).info.config) as { isolation: string };
    expect(info.isolation).toMatch(
      /^containers of real images: bubblewrap sandboxes \(bubblewrap [\d.]+; non-root users set by setpriv\); without seccomp, a container without no_new_privs or with a Bidirectional mount set up by util-linux as runc sets one up \(its \/dev made in [^)]+\); root file systems: (a util-linux set-up mounts its container's overlay in the container's own mount namespace; on the host for the others: a kernel overlay per container over its image|a copy of its image per container)/,
    );
    // Debian's busybox-static is installed (.ci/run): its applets make the set-up's mounts.
    // Its overlays' directory is shared (this machine's / is private: bound onto itself), so the set-up starts while the overlay is mounted.
    expect(info.isolation).toContain(
      "; root file systems: a util-linux set-up mounts its container's overlay in the container's own mount namespace; on the host for the others: a kernel overlay per container over its image (mounted while its set-up starts); mounts, unmounts, pivot_root, nsenter, unshare and the set-up's shell by a static busybox's applets;",
    );
    // The set-up's /dev, new root and table on a tmpfs: this machine's /dev/shm.
    expect(info.isolation).toMatch(
      /set up by util-linux as runc sets one up \(its \/dev made in \/dev\/shm\/knode-[0-9a-f]{16}, a tmpfs\)/,
    );
    const condition = (await client.status()).status!.conditions.find((c) => c.type === 'ContainerSandboxReady');
    expect(condition).toMatchObject({ status: true, message: expect.stringMatching(/^bubblewrap sandboxes/) });
  });

  it("runs the image's own Entrypoint and Cmd when the container gives no command", async () => {
    const config = containerConfig('entry', [], { image: { image: 'busybox-entrypoint:1.0' } });
    const res = await runToEnd('entry', config);
    expect(res).toEqual({ lines: ['entrypoint hello'], exitCode: 0 });
    // args replace Cmd and keep the Entrypoint.
    const withArgs = containerConfig('entry-args', [], { image: { image: 'busybox-entrypoint:1.0' }, args: ['from', 'args'] });
    expect((await runToEnd('entry-args', withArgs)).lines).toEqual(['entrypoint from args']);
  });

  it("sees its image's files and not the host's; its hostname is the pod's; ps shows only its own processes", async () => {
    const script =
      'ls /; test -e /work && echo host-work; test -e /usr/bin/node && echo host-node; hostname; cat /etc/hostname; ps -o pid,comm > /tmp/ps.txt; tail -n +2 /tmp/ps.txt';
    const config = containerConfig('iso', ['sh', '-c', script]);
    const res = await runToEnd('isolated-pod', config);
    expect(res.exitCode).toBe(0);
    expect(res.lines).not.toContain('host-work');
    expect(res.lines).not.toContain('host-node');
    expect(res.lines).toContain('bin');
    expect(res.lines.filter((l) => l === 'isolated-pod')).toHaveLength(2);
    expect(hostname()).not.toBe('isolated-pod');
    const processes = res.lines.filter((l) => /^\s*\d+ /.test(l)).map((l) => l.trim().split(/\s+/));
    // The shell is PID 1 of its own namespace; ps is its child; nothing of the host is visible.
    expect(processes[0]).toEqual(['1', 'sh']);
    expect(processes.map((p) => p[1]).sort()).toEqual(['ps', 'sh']);
  });

  it("runs as the image's USER in its WORKDIR, and a runAsUser overrides it (a missing workingDir is made, as runc does)", async () => {
    const config = containerConfig('user', ['sh', '-c', 'id -u; id -g; pwd'], { image: { image: 'busybox-user:1.0' } });
    expect((await runToEnd('user-pod', config)).lines).toEqual(['1000', '1000', '/home/app']);
    const asked = containerConfig('user2', ['sh', '-c', 'id -u; pwd'], {
      image: { image: 'busybox-user:1.0' },
      workingDir: '/made/here',
      linux: { securityContext: { runAsUser: { value: 2000 }, namespaceOptions: { pid: 'CONTAINER' } } },
    });
    expect((await runToEnd('user-pod2', asked)).lines).toEqual(['2000', '/made/here']);
  });

  it('gives the supplementary groups asked for to the program and to an exec, and refuses a group without a user', async () => {
    const security = (extra: object) => ({ linux: { securityContext: { namespaceOptions: { pid: 'CONTAINER' as const }, ...extra } } });
    const root = containerConfig('groups', ['sh', '-c', 'id -G'], security({ supplementalGroups: [1234, 5678] }));
    expect((await runToEnd('groups-pod', root)).lines).toEqual(['0 1234 5678']);
    const user = containerConfig('groups2', ['sh', '-c', 'id -u; id -G'], {
      image: { image: 'busybox-user:1.0' },
      ...security({ runAsUser: { value: 2000 }, runAsGroup: { value: 3000 }, supplementalGroups: [4000] }),
    });
    expect((await runToEnd('groups-pod2', user)).lines).toEqual(['2000', '3000 4000']);
    const sandbox = ownSandboxConfig('groups-exec');
    const sandboxId = await client.runPodSandbox(sandbox);
    const id = await client.createContainer(
      sandboxId,
      containerConfig('sleeper', ['sleep', '60'], security({ supplementalGroups: [4321] })),
      sandbox,
    );
    await client.startContainer(id);
    expect((await client.execSync(id, ['id', '-G'], 10)).stdout.toString()).toBe('0 4321\n');
    await client.stopContainer(id, 0);
    const groupOnly = containerConfig('group-only', ['true'], security({ runAsGroup: { value: 3000 } }));
    const err = (await client.createContainer(sandboxId, groupOnly, sandbox).catch((e: CriError) => e)) as CriError;
    expect(err.code).toBe(3); // INVALID_ARGUMENT
    expect(err.details).toContain('runAsGroup is set without runAsUser');
  });

  it("starts an exec in the container's working directory, as runc does, not where its program went since", async () => {
    const sandbox = ownSandboxConfig('wd-exec');
    const sandboxId = await client.runPodSandbox(sandbox);
    const moved = ['sh', '-c', 'cd /etc && exec sleep 60'];
    const asked = await client.createContainer(sandboxId, containerConfig('asked', moved, { workingDir: '/tmp' }), sandbox);
    const plain = await client.createContainer(sandboxId, containerConfig('plain', moved), sandbox);
    await client.startContainer(asked);
    await client.startContainer(plain);
    expect((await client.execSync(asked, ['pwd'], 10)).stdout.toString()).toBe('/tmp\n');
    expect((await client.execSync(plain, ['pwd'], 10)).stdout.toString()).toBe('/\n');
    // The program itself did move.
    expect((await client.execSync(plain, ['readlink', '/proc/1/cwd'], 10)).stdout.toString()).toBe('/etc\n');
    await client.stopPodSandbox(sandboxId);
  });

  it("keeps containerd's default capabilities, what is added and not what is dropped, for the program and an exec; privileged keeps them all", async () => {
    const security = (extra: object) => ({ linux: { securityContext: { namespaceOptions: { pid: 'CONTAINER' as const }, ...extra } } });
    const show = ['sh', '-c', "grep -E '^Cap(Eff|Bnd):' /proc/self/status | cut -f2"]; // effective, then bounding
    // Docker's and containerd's default set: CHOWN, DAC_OVERRIDE, FSETID, FOWNER, MKNOD, NET_RAW, SETGID, SETUID, SETFCAP, SETPCAP, NET_BIND_SERVICE, SYS_CHROOT, KILL, AUDIT_WRITE.
    expect((await runToEnd('caps-default', containerConfig('caps', show, security({})))).lines).toEqual([
      '00000000a80425fb',
      '00000000a80425fb',
    ]);
    const netAdminOnly = security({ capabilities: { addCapabilities: ['NET_ADMIN'], dropCapabilities: ['ALL'] } });
    expect((await runToEnd('caps-net-admin', containerConfig('caps', show, netAdminOnly))).lines).toEqual([
      '0000000000001000',
      '0000000000001000',
    ]);
    const minusNetRaw = security({ capabilities: { addCapabilities: ['CAP_SYS_ADMIN'], dropCapabilities: ['NET_RAW', 'CAP_KILL'] } });
    expect((await runToEnd('caps-changed', containerConfig('caps', show, minusNetRaw))).lines).toEqual([
      '00000000a82405db',
      '00000000a82405db',
    ]);
    // Another user keeps the bounding set and has no effective capabilities, as with runc.
    const user = { image: { image: 'busybox-user:1.0' }, ...security({ runAsUser: { value: 2000 } }) };
    expect((await runToEnd('caps-user', containerConfig('caps', show, user))).lines).toEqual(['0000000000000000', '00000000a80425fb']);
    const privileged = (
      await runToEnd(
        'caps-privileged',
        containerConfig('caps', show, security({ privileged: true, capabilities: { dropCapabilities: ['ALL'] } })),
      )
    ).lines;
    for (const line of privileged) expect(BigInt(`0x${line}`) & (1n << 21n)).toBe(1n << 21n); // SYS_ADMIN: all the runtime has

    const sandbox = ownSandboxConfig('caps-exec');
    const sandboxId = await client.runPodSandbox(sandbox);
    const chownOnly = security({ capabilities: { addCapabilities: ['CHOWN'], dropCapabilities: ['ALL'] } });
    const id = await client.createContainer(sandboxId, containerConfig('sleeper', ['sleep', '60'], chownOnly), sandbox);
    await client.startContainer(id);
    expect((await client.execSync(id, show, 10)).stdout.toString()).toBe('0000000000000001\n0000000000000001\n');
    await client.stopContainer(id, 0);
    const unknownCap = containerConfig('bad-cap', ['true'], security({ capabilities: { addCapabilities: ['FLY'] } }));
    const err = (await client.createContainer(sandboxId, unknownCap, sandbox).catch((e: CriError) => e)) as CriError;
    expect(err.code).toBe(3); // INVALID_ARGUMENT
    expect(err.details).toContain('unknown capability "FLY"');
  });

  it('masks and makes read-only the paths asked for, for the program and an exec; a privileged container keeps them', async () => {
    const security = (extra: object) => ({
      linux: {
        securityContext: {
          namespaceOptions: { pid: 'CONTAINER' as const },
          maskedPaths: ['/etc/hostname', '/proc/keys', '/sys/firmware', '/no/such/path'],
          readonlyPaths: ['/tmp', '/proc/sys'],
          ...extra,
        },
      },
    });
    // /etc/hostname is the pod's file, bound in (busybox's applets are links to it here: masking one would mask them all).
    // touch's error goes to stdout, so the log has the lines in the order the command wrote them.
    const show = [
      'sh',
      '-c',
      "wc -c < /etc/hostname; wc -c < /proc/keys; ls /sys/firmware | wc -l; touch /tmp/x 2>&1; grep ' /proc/sys ' /proc/self/mountinfo | cut -d' ' -f6 | cut -d, -f1",
    ];
    const masked = await runToEnd('masked', containerConfig('masked', show, security({})));
    expect(masked.lines).toEqual(['0', '0', '0', 'touch: /tmp/x: Read-only file system', 'ro']);
    const privileged = (await runToEnd('masked-privileged', containerConfig('masked', show, security({ privileged: true })))).lines;
    expect(Number(privileged[0])).toBeGreaterThan(0);
    expect(Number(privileged[2])).toBeGreaterThan(0);
    // touch said nothing, and /proc/sys is no mount of its own.
    expect(privileged).toHaveLength(3);

    const sandbox = ownSandboxConfig('masked-exec');
    const sandboxId = await client.runPodSandbox(sandbox);
    const id = await client.createContainer(sandboxId, containerConfig('sleeper', ['sleep', '60'], security({})), sandbox);
    await client.startContainer(id);
    const exec = await client.execSync(id, ['sh', '-c', 'wc -c < /etc/hostname; touch /tmp/y'], 10);
    expect(exec.exitCode).not.toBe(0);
    expect(exec.stdout.toString()).toBe('0\n');
    expect(exec.stderr.toString()).toBe('touch: /tmp/y: Read-only file system\n');
    await client.stopContainer(id, 0);
    const relative = containerConfig('relative', ['true'], security({ readonlyPaths: ['tmp'] }));
    const err = (await client.createContainer(sandboxId, relative, sandbox).catch((e: CriError) => e)) as CriError;
    expect(err.code).toBe(3); // INVALID_ARGUMENT
    expect(err.details).toContain('readonlyPaths: "tmp" is not an absolute path');
  });

  it("sets the pod's IPC and UTS sysctls in its own namespaces, for its programs and an exec, and refuses the host's", async () => {
    const hostShm = readFileSync('/proc/sys/kernel/shm_rmid_forced', 'utf8');
    const hostMsgMax = readFileSync('/proc/sys/fs/mqueue/msg_max', 'utf8');
    const sysctls = {
      'kernel.shm_rmid_forced': hostShm.trim() === '1' ? '0' : '1',
      'fs/mqueue/msg_max': '77',
      'kernel.domainname': 'pods.example',
    };
    const show = ['sh', '-c', 'cat /proc/sys/kernel/shm_rmid_forced /proc/sys/fs/mqueue/msg_max /proc/sys/kernel/domainname'];
    const want = [sysctls['kernel.shm_rmid_forced'], '77', 'pods.example'];
    const linux = (extra: object = {}) => ({
      linux: { sysctls, securityContext: { namespaceOptions: { network: 'POD' as const, ...extra } } },
    });
    expect((await runToEnd('sysctls', containerConfig('sysctls', show), linux())).lines).toEqual(want);
    // The host's stay as they were.
    expect(readFileSync('/proc/sys/kernel/shm_rmid_forced', 'utf8')).toBe(hostShm);
    expect(readFileSync('/proc/sys/fs/mqueue/msg_max', 'utf8')).toBe(hostMsgMax);

    const sandbox = { ...ownSandboxConfig('sysctls-exec'), ...linux() };
    const sandboxId = await client.runPodSandbox(sandbox);
    const id = await client.createContainer(sandboxId, containerConfig('sleeper', ['sleep', '60']), sandbox);
    await client.startContainer(id);
    expect((await client.execSync(id, show, 10)).stdout.toString().trim().split('\n')).toEqual(want);
    await client.stopContainer(id, 0);

    const refused = async (name: string, extra: object) =>
      (await client.runPodSandbox({ ...sandboxConfig(name), ...extra }).catch((e: CriError) => e)) as CriError;
    const hostWide = await refused('sysctl-host', { linux: { sysctls: { 'kernel.pid_max': '4096' } } });
    expect([hostWide.code, hostWide.details]).toEqual([3, 'sysctl "kernel.pid_max" is not in a separate kernel namespace']);
    const hostIpc = await refused('sysctl-host-ipc', {
      linux: { sysctls: { 'kernel.shmmni': '100' }, securityContext: { namespaceOptions: { network: 'NODE', ipc: 'NODE' } } },
    });
    expect([hostIpc.code, hostIpc.details]).toEqual([3, 'sysctl "kernel.shmmni" is not allowed in the host\'s IPC namespace']);
    // A host-network pod is in the host's UTS namespace (as runc refuses them there).
    const hostUts = await refused('sysctl-host-uts', {
      linux: { sysctls: { 'kernel.domainname': 'pods.example' }, securityContext: { namespaceOptions: { network: 'NODE' } } },
    });
    expect([hostUts.code, hostUts.details]).toEqual([3, 'sysctl "kernel.domainname" is not allowed in the host\'s UTS namespace']);
    // A value the kernel refuses fails RunPodSandbox with what the write said, and leaves nothing behind.
    const before = (await client.listPodSandbox()).length;
    const badValue = await refused('sysctl-bad', { linux: { sysctls: { 'kernel.shm_rmid_forced': 'yes' } } });
    expect(badValue.code).toBe(2); // UNKNOWN
    expect(badValue.details).toBe(
      "failed to create pod sandbox knode-test/sysctl-bad: failed to set the pod's sysctls (kernel.shm_rmid_forced=yes): tee: /proc/sys/kernel/shm_rmid_forced: Invalid argument",
    );
    expect((await client.listPodSandbox()).length).toBe(before);
  });

  it("shows what the host mounts later in a HostToContainer volume, and reports each mount's propagation", async () => {
    // A shared mount on the host, as critest makes one (its mounts reach the bind in the sandbox).
    const source = mkdtempSync(join(tmpdir(), 'knode-propagation-'));
    const other = mkdtempSync(join(tmpdir(), 'knode-propagation-other-'));
    mkdirSync(join(source, 'sub'));
    writeFileSync(join(other, 'flag'), '');
    execFileSync('mount', ['--bind', source, source]);
    execFileSync('mount', ['--make-rshared', source]);
    try {
      const sandbox = ownSandboxConfig('propagation');
      const sandboxId = await client.runPodSandbox(sandbox);
      const mounts = [
        { containerPath: '/from-host', hostPath: source, propagation: 'PROPAGATION_HOST_TO_CONTAINER' as const },
        { containerPath: '/plain', hostPath: other },
      ];
      const id = await client.createContainer(sandboxId, containerConfig('sleeper', ['sleep', '60'], { mounts }), sandbox);
      await client.startContainer(id);
      const status = (await client.containerStatus(id)).status!;
      expect(status.mounts.map((m) => [m.containerPath, m.propagation])).toEqual([
        ['/from-host', 'PROPAGATION_HOST_TO_CONTAINER'],
        ['/plain', 'PROPAGATION_PRIVATE'],
      ]);
      expect((await client.execSync(id, ['ls', '/from-host/sub'], 10)).stdout.toString()).toBe('');
      execFileSync('mount', ['--bind', other, join(source, 'sub')]);
      expect((await client.execSync(id, ['ls', '/from-host/sub'], 10)).stdout.toString()).toBe('flag\n');
      await client.stopContainer(id, 0);
    } finally {
      spawnSyncQuiet('umount', [join(source, 'sub')]);
      spawnSyncQuiet('umount', [source]);
    }
  });

  it('makes a read-only mount read-only itself, and with recursiveReadOnly what is mounted under it too', async () => {
    expect((await client.status()).runtimeHandlers).toEqual([
      { name: '', features: { recursiveReadOnlyMounts: true, userNamespaces: false } },
    ]);
    const source = mkdtempSync(join(tmpdir(), 'knode-rro-'));
    mkdirSync(join(source, 'tmpfs'));
    execFileSync('mount', ['-t', 'tmpfs', 'tmpfs', join(source, 'tmpfs')]);
    try {
      const show = [
        'sh',
        '-c',
        'touch /mnt/top 2>/dev/null && echo top-writable || echo top-read-only; touch /mnt/tmpfs/under 2>/dev/null && echo under-writable || echo under-read-only',
      ];
      const plain = containerConfig('ro', show, { mounts: [{ containerPath: '/mnt', hostPath: source, readonly: true }] });
      expect((await runToEnd('ro-plain', plain)).lines).toEqual(['top-read-only', 'under-writable']);
      const recursive = containerConfig('rro', show, {
        mounts: [{ containerPath: '/mnt', hostPath: source, readonly: true, recursiveReadOnly: true }],
      });
      expect((await runToEnd('ro-recursive', recursive)).lines).toEqual(['top-read-only', 'under-read-only']);

      const sandbox = ownSandboxConfig('rro-refused');
      const sandboxId = await client.runPodSandbox(sandbox);
      const refused = async (mount: object) =>
        (await client
          .createContainer(
            sandboxId,
            containerConfig('bad', ['true'], { mounts: [{ containerPath: '/mnt', hostPath: source, ...mount }] }),
            sandbox,
          )
          .catch((e: CriError) => e)) as CriError;
      expect(await refused({ readonly: false, recursiveReadOnly: true })).toMatchObject({
        code: 3,
        details: 'container "bad": mount /mnt: a recursive read-only mount must be read-only',
      });
      expect(await refused({ readonly: true, recursiveReadOnly: true, propagation: 'PROPAGATION_HOST_TO_CONTAINER' })).toMatchObject({
        code: 3,
        details:
          'container "bad": mount /mnt: a recursive read-only mount must have private propagation, not PROPAGATION_HOST_TO_CONTAINER',
      });
      // Neither a host path nor an image (image volumes: image-volumes.test.ts).
      expect(await refused({ hostPath: '', readonly: true })).toMatchObject({
        code: 3,
        details: 'container "bad": mount /mnt: the mount has no host path and no image',
      });
    } finally {
      spawnSyncQuiet('umount', [join(source, 'tmpfs')]);
    }
  });

  it("joins the host's IPC namespace for hostIPC, and keeps the pod's own otherwise", async () => {
    const segment = execFileSync('ipcmk', ['-M', '4096'], { encoding: 'utf8' })
      .trim()
      .replace(/^Shared memory id: /, '');
    try {
      // The second column of /proc/sysvipc/shm is each segment's id, in the reader's IPC namespace.
      const show = ['sh', '-c', "awk 'NR > 1 { print $2 }' /proc/sysvipc/shm"];
      const withIpc = (ipc: 'NODE' | 'POD') => ({
        linux: { securityContext: { namespaceOptions: { network: 'NODE' as const, pid: 'CONTAINER' as const, ipc } } },
      });
      expect((await runToEnd('host-ipc', containerConfig('ipc', show), withIpc('NODE'))).lines).toContain(segment);
      expect((await runToEnd('pod-ipc', containerConfig('ipc', show), withIpc('POD'))).lines).not.toContain(segment);
    } finally {
      spawnSyncQuiet('ipcrm', ['-m', segment]);
    }
  });

  it("keeps a host-network pod in the host's UTS namespace, with the node's hostname, for its programs and an exec; a pod of its own has its own", async () => {
    const show = ['sh', '-c', 'readlink /proc/self/ns/uts; hostname'];
    const hostUts = readlinkSync('/proc/self/ns/uts');
    const onHost = sandboxConfig('uts-host'); // on the host's network, naming no hostname (as the kubelet sends it)
    const sandboxId = await client.runPodSandbox(onHost);
    const id = await client.createContainer(sandboxId, containerConfig('uts', ['sh', '-c', `${show[2]}; sleep 60`]), onHost);
    await client.startContainer(id);
    await eventually(() => output(onHost, containerConfig('uts', [])).length === 2, 'the host-network container to write');
    expect(output(onHost, containerConfig('uts', []))).toEqual([hostUts, hostname()]);
    expect((await client.execSync(id, show, 10)).stdout.toString().trim().split('\n')).toEqual([hostUts, hostname()]);
    await client.stopContainer(id, 0);
    const own = await runToEnd('uts-own', containerConfig('uts', show));
    expect(own.lines[0]).not.toBe(hostUts);
    expect(own.lines[1]).toBe('uts-own');
  });

  it("leaves no holder of a pod's namespaces behind when the pod is stopped right after it was made", async () => {
    const names = Array.from({ length: 5 }, (_, i) => `quick-stop-${i}-${process.pid}`);
    for (const name of names) {
      const id = await client.runPodSandbox(ownSandboxConfig(name));
      await client.stopPodSandbox(id);
      await client.removePodSandbox(id);
    }
    const holders = () =>
      execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
        .split('\n')
        .filter((line) => names.some((n) => line.endsWith(` ${n}`)));
    await eventually(
      () => holders().length === 0,
      () => `the holders to end: ${holders().join('; ')}`,
    );
  });

  it('kills a timed-out exec inside the container without leaving a zombie under its PID 1', async () => {
    const sandbox = ownSandboxConfig('exec-timeout');
    const sandboxId = await client.runPodSandbox(sandbox);
    // sleep as PID 1 reaps nothing: a process left to it would stay a zombie.
    const security = { linux: { securityContext: { namespaceOptions: { pid: 'CONTAINER' as const } } } };
    const id = await client.createContainer(sandboxId, containerConfig('sleeper', ['sleep', '600'], security), sandbox);
    await client.startContainer(id);
    const err = (await client.execSync(id, ['sleep', '4321'], 1).catch((e: CriError) => e)) as CriError;
    expect(err.code).toBe(4); // DEADLINE_EXCEEDED
    // What the timed-out exec left, a moment later: only PID 1 sleeps.
    await new Promise((r) => setTimeout(r, 300));
    const sleeps = (await client.execSync(id, ['sh', '-c', 'grep -h "(sleep)" /proc/[0-9]*/stat 2>/dev/null | cut -d" " -f1,3'], 10)).stdout
      .toString()
      .trim();
    expect(sleeps).toBe('1 S');
    await client.stopContainer(id, 0);
  });

  it("binds the host's /sys read-only with every mount under it, writable for a privileged container", async () => {
    const security = (extra: object) => ({ linux: { securityContext: { namespaceOptions: { pid: 'CONTAINER' as const }, ...extra } } });
    // Whether lo is there, the mount's options (the sixth field of mountinfo), then those of the mounts under it.
    const show = [
      'sh',
      '-c',
      "ls /sys/class/net | grep -x lo; grep ' /sys ' /proc/self/mountinfo | cut -d' ' -f6 | cut -d, -f1; awk '$5 ~ \"^/sys/\" { print $6 }' /proc/self/mountinfo | cut -d, -f1 | sort | uniq -c | sed 's/^ *//'",
    ];
    const under = `${
      readFileSync('/proc/self/mountinfo', 'utf8')
        .split('\n')
        .filter((l) => l.split(' ')[4]?.startsWith('/sys/')).length
    }`;
    expect((await runToEnd('sys-plain', containerConfig('sys', show, security({})))).lines).toEqual(['lo', 'ro', `${under} ro`]);
    const privileged = (await runToEnd('sys-privileged', containerConfig('sys', show, security({ privileged: true })))).lines;
    expect(privileged.slice(0, 2)).toEqual(['lo', 'rw']);
    expect(privileged.slice(2).some((line) => line.endsWith(' rw'))).toBe(true);
  });

  it('mounts the root file system read-only when asked (readonlyRootfs), its volumes keeping their own mode', async () => {
    const volume = mkdtempSync(join(tmpdir(), 'knode-volume-'));
    const config = containerConfig('ro', ['sh', '-c', '(touch /x) 2>&1; echo vol > /data/f && cat /data/f'], {
      mounts: [{ containerPath: '/data', hostPath: volume }],
      linux: { securityContext: { namespaceOptions: { pid: 'CONTAINER' }, readonlyRootfs: true } },
    });
    expect((await runToEnd('ro-pod', config)).lines).toEqual(['touch: /x: Read-only file system', 'vol']);
    rmSync(volume, { recursive: true, force: true });
  });

  it("is the same user on the host: what a non-root user writes to a volume is its own there, and the image's root files stay root's", async () => {
    const volume = mkdtempSync(join(tmpdir(), 'knode-owner-'));
    chmodSync(volume, 0o777);
    try {
      const config = containerConfig(
        'owner',
        ['sh', '-c', 'echo mine > /data/file; stat -c %u:%g /bin/busybox; (echo x > /bin/extra) 2>/dev/null || echo refused'],
        {
          image: { image: 'busybox-user:1.0' },
          mounts: [{ containerPath: '/data', hostPath: volume }],
        },
      );
      expect((await runToEnd('owner-pod', config)).lines).toEqual(['0:0', 'refused']);
      const stat = statSync(join(volume, 'file'));
      expect([stat.uid, stat.gid]).toEqual([1000, 1000]);
    } finally {
      rmSync(volume, { recursive: true, force: true });
    }
  });

  it("stacks the image's layers: whiteouts remove files, opaque directories hide what was below", async () => {
    const config = containerConfig('layers', ['sh', '-c', 'ls /data | sort; ls /data/opaque'], { image: { image: 'busybox-layers:1.0' } });
    expect((await runToEnd('layers-pod', config)).lines).toEqual(['added', 'kept', 'opaque', 'new']);
  });

  it('keeps what a container writes to itself: the image and the next container are untouched', async () => {
    const first = containerConfig('writer', ['sh', '-c', 'echo mine > /bin/extra && rm /bin/cat && ls /bin/extra']);
    expect((await runToEnd('writer-pod', first)).lines).toEqual(['/bin/extra']);
    const second = containerConfig('reader', ['sh', '-c', 'test -e /bin/extra || echo no-extra; test -e /bin/cat && echo has-cat']);
    expect((await runToEnd('reader-pod', second)).lines).toEqual(['no-extra', 'has-cat']);
  });

  it('shares a volume between two containers of a pod, and a readOnly mount refuses writes', async () => {
    const volume = mkdtempSync(join(tmpdir(), 'knode-volume-'));
    const sandbox = ownSandboxConfig('volumes');
    const sandboxId = await client.runPodSandbox(sandbox);
    const writer = containerConfig('writer', ['sh', '-c', 'echo shared-line > /data/file'], {
      mounts: [{ containerPath: '/data', hostPath: volume }],
    });
    const writerId = await client.createContainer(sandboxId, writer, sandbox);
    await client.startContainer(writerId);
    expect((await waitExited(client, writerId)).exitCode).toBe(0);
    const reader = containerConfig('reader', ['sh', '-c', 'cat /data/file; (echo again > /data/other) 2>&1 || echo refused'], {
      mounts: [{ containerPath: '/data', hostPath: volume, readonly: true }],
    });
    const readerId = await client.createContainer(sandboxId, reader, sandbox);
    await client.startContainer(readerId);
    await waitExited(client, readerId);
    expect(output(sandbox, reader)).toEqual(['shared-line', expect.stringMatching(/Read-only file system/), 'refused']);
    expect(readFileSync(join(volume, 'file'), 'utf8')).toBe('shared-line\n');
    rmSync(volume, { recursive: true, force: true });
  });

  it('execs inside the running sandbox: its root, its user, its PID namespace', async () => {
    const sandbox = ownSandboxConfig('exec', 'exec-pod');
    const sandboxId = await client.runPodSandbox(sandbox);
    const config = containerConfig('app', ['sleep', '3600'], { image: { image: 'busybox-user:1.0' } });
    const id = await client.createContainer(sandboxId, config, sandbox);
    await client.startContainer(id);
    const res = await client.execSync(id, ['sh', '-c', 'id -u; hostname; test -e /work || echo no-host; ps -o pid,comm | tail -n +2'], 10);
    expect(res.exitCode).toBe(0);
    const lines = res.stdout.toString().trim().split('\n');
    expect(lines.slice(0, 3)).toEqual(['1000', 'exec-pod', 'no-host']);
    expect(lines[3].trim().split(/\s+/)).toEqual(['1', 'sleep']);
    // A program the image does not have is an exec error, as with runc.
    const missing = await client.execSync(id, ['no-such-program'], 10).catch((e: CriError) => e);
    expect((missing as CriError).details).toMatch(/exec: "no-such-program": executable file not found in \$PATH/);
    // sleep is PID 1 of its namespace with no handler for SIGTERM: it ignores it, and the grace period's end kills it.
    await client.stopContainer(id, 1);
    expect((await client.containerStatus(id)).status).toMatchObject({ state: 'CONTAINER_EXITED', exitCode: 137 });
  });

  it("shares the pod's PID namespace when asked (shareProcessNamespace)", async () => {
    const sandbox = ownSandboxConfig('shared-pid');
    const sandboxId = await client.runPodSandbox(sandbox);
    const pod = { linux: { securityContext: { namespaceOptions: { pid: 'POD' as const } } } };
    const sleeper = containerConfig('sleeper', ['sleep', '3600'], pod);
    const sleeperId = await client.createContainer(sandboxId, sleeper, sandbox);
    await client.startContainer(sleeperId);
    const looker = containerConfig('looker', ['sh', '-c', "ps -o args | grep -x 'sleep 3600'"], pod);
    const lookerId = await client.createContainer(sandboxId, looker, sandbox);
    await client.startContainer(lookerId);
    expect((await waitExited(client, lookerId)).exitCode).toBe(0);
    expect(output(sandbox, looker)).toEqual(['sleep 3600']);
    // A non-root user joins it too (setpriv sets the user inside the sandbox: no user namespace to keep it out).
    const user = containerConfig('user', ['sh', '-c', "id -u; ps -o args | grep -x 'sleep 3600'"], {
      image: { image: 'busybox-user:1.0' },
      ...pod,
    });
    const userId = await client.createContainer(sandboxId, user, sandbox);
    await client.startContainer(userId);
    expect((await waitExited(client, userId)).exitCode).toBe(0);
    expect(output(sandbox, user)).toEqual(['1000', 'sleep 3600']);
    await client.stopPodSandbox(sandboxId);
    await client.removePodSandbox(sandboxId);
  });

  it('fails the start of a program the image does not have, as runc does, and removes the root file system with the container', async () => {
    const sandbox = ownSandboxConfig('missing');
    const sandboxId = await client.runPodSandbox(sandbox);
    const id = await client.createContainer(sandboxId, containerConfig('missing', ['node', '--version']), sandbox);
    const err = await client.startContainer(id).catch((e: CriError) => e);
    expect((err as CriError).details).toMatch(/exec: "node": executable file not found in \$PATH/);
    const status = (await client.containerStatus(id)).status!;
    expect(status.reason).toBe('StartError');
    // Unmounted once it is not running; its own directories stay until it is removed.
    const containerDir = join(root, 'runtime', 'rootfs', 'containers', id);
    expect(existsSync(join(containerDir, 'upper'))).toBe(true);
    await eventually(() => !readFileSync('/proc/self/mountinfo', 'utf8').includes(containerDir), 'the root file system to be unmounted');
    await client.removeContainer(id);
    expect(existsSync(containerDir)).toBe(false);
  });

  it("writes the pod's DNS settings to its resolv.conf, kept with its hostname on the scratch tmpfs until the pod goes", async () => {
    const dnsConfig = { servers: ['10.96.0.10'], searches: ['team.svc.cluster.local', 'svc.cluster.local'], options: ['ndots:5'] };
    const config = containerConfig('dns', ['cat', '/etc/resolv.conf']);
    const sandbox = { ...ownSandboxConfig('dns-pod'), dnsConfig };
    const sandboxId = await client.runPodSandbox(sandbox);
    const id = await client.createContainer(sandboxId, config, sandbox);
    await client.startContainer(id);
    await waitExited(client, id);
    const lines = ['search team.svc.cluster.local svc.cluster.local', 'nameserver 10.96.0.10', 'options ndots:5'];
    expect(output(sandbox, config)).toEqual(lines);
    // This machine's /dev/shm holds the runtime's scratch space (the status test above).
    const info = JSON.parse((await client.status(true)).info.config) as { isolation: string };
    const scratch = /its \/dev made in (\/dev\/shm\/knode-[0-9a-f]{16}), a tmpfs/.exec(info.isolation)![1];
    const files = join(scratch, 'pods', sandboxId);
    expect(readFileSync(join(files, 'resolv.conf'), 'utf8')).toBe(`${lines.join('\n')}\n`);
    expect(readFileSync(join(files, 'hostname'), 'utf8')).toBe(`${sandbox.hostname}\n`);
    await client.removePodSandbox(sandboxId);
    await eventually(() => !existsSync(files), "the pod's files to be deleted");
  });

  it("deletes an image's stacked layers when the image is removed and no container stands on them (last: it removes images)", async () => {
    const stackOf = async (image: string) =>
      join(root, 'runtime', 'rootfs', 'images', (await client.imageStatus({ image }))!.id.replace(/^sha256:/, ''));
    const layers = await stackOf('busybox-layers:1.0');
    const user = await stackOf('busybox-user:1.0');
    // Earlier tests made containers of both images, so both were stacked; their pods go now.
    expect([existsSync(layers), existsSync(user)]).toEqual([true, true]);
    for (const pod of await client.listPodSandbox()) await client.removePodSandbox(pod.id);
    expect([existsSync(layers), existsSync(user)]).toEqual([true, true]);

    const sandbox = ownSandboxConfig('prune');
    const sandboxId = await client.runPodSandbox(sandbox);
    const id = await client.createContainer(
      sandboxId,
      containerConfig('on-layers', ['true'], { image: { image: 'busybox-layers:1.0' } }),
      sandbox,
    );
    await client.removeImage({ image: 'busybox-layers:1.0' });
    await client.removeImage({ image: 'busybox-user:1.0' });
    // A container of the removed image still stands on its layers; the other image had none left.
    expect([existsSync(layers), existsSync(user)]).toEqual([true, false]);
    await client.startContainer(id);
    expect((await waitExited(client, id)).exitCode).toBe(0);
    await client.removePodSandbox(sandboxId);
    expect(existsSync(layers)).toBe(false);
    expect(existsSync(await stackOf('busybox:1.36'))).toBe(true);
  });
});

describe('real images without sandboxes (--sandbox off)', () => {
  it('says so in a runtime condition, which knode run reports and keeps as a node condition', async () => {
    const offRoot = mkdtempSync(join(tmpdir(), 'knode-sandbox-off-'));
    mkdirSync(join(offRoot, 'none'));
    writeFileSync(join(offRoot, 'registries.yaml'), mirrorConfig(registry.host));
    const off = await startEmbeddedRuntime(offRoot, ['--sandbox', 'off']);
    const offClient = new CriClient(off.endpoint);
    const node = spawn(
      process.execPath,
      [
        cliEntry,
        'run',
        '--root-dir',
        offRoot,
        '--runtime-endpoint',
        off.endpoint,
        '--static-dir',
        join(offRoot, 'none'),
        '--output',
        'plain',
        '--read-only-port',
        '0',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    node.stdout!.on('data', (d) => (out += d));
    node.stderr!.on('data', (d) => (out += d));
    try {
      const condition = (await offClient.status()).status!.conditions.find((c) => c.type === 'ContainerSandboxReady');
      expect(condition).toEqual({
        type: 'ContainerSandboxReady',
        status: false,
        reason: 'SandboxesTurnedOff',
        message: 'containers of real images run as host processes: sandboxes are turned off (--sandbox off)',
      });
      await eventually(
        () =>
          /RuntimeConditionChanged .*\[SandboxesTurnedOff\] ContainerSandboxReady=false: containers of real images run as host processes/.test(
            out,
          ),
        'knode run to report the condition',
        30_000,
      );
      expect(out.match(/RuntimeConditionChanged/g)).toHaveLength(1);
    } finally {
      node.kill('SIGTERM');
      offClient.close();
      await off.stop();
      rmSync(offRoot, { recursive: true, force: true });
    }
  });
});

describe('a sandboxed runtime killed with kill -9', () => {
  /** Host pids whose command line is exactly ARGS. */
  function running(args: string): number[] {
    return readdirSync('/proc')
      .filter((e) => /^\d+$/.test(e))
      .filter((e) => {
        try {
          return readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ') === args;
        } catch {
          return false;
        }
      })
      .map(Number);
  }

  it("leaves none of its programs running once it is back: in a PID namespace of their own or the pod's, each is stopped and reported exited", async () => {
    const killedRoot = mkdtempSync(join(tmpdir(), 'knode-sandbox-kill-'));
    writeFileSync(join(killedRoot, 'registries.yaml'), mirrorConfig(registry.host));
    let rt = await startEmbeddedRuntime(killedRoot);
    let cri = new CriClient(rt.endpoint);
    try {
      await cri.pullImage({ image: 'busybox:1.36' });
      const sandbox = ownSandboxConfig('killed');
      const sandboxId = await cri.runPodSandbox(sandbox);
      const ids: string[] = [];
      for (const [name, pid, seconds] of [
        ['own', 'CONTAINER', '3601'],
        ['shared', 'POD', '3602'],
      ] as const) {
        const id = await cri.createContainer(
          sandboxId,
          containerConfig(name, ['sleep', seconds], { linux: { securityContext: { namespaceOptions: { pid } } } }),
          sandbox,
        );
        await cri.startContainer(id);
        ids.push(id);
      }
      await eventually(() => running('sleep 3601').length === 1 && running('sleep 3602').length === 1, 'both programs to run');
      cri.close();
      await rt.kill();
      rt = await startEmbeddedRuntime(killedRoot);
      cri = new CriClient(rt.endpoint);
      await eventually(
        () => running('sleep 3601').length === 0 && running('sleep 3602').length === 0,
        () => `both programs to be gone (left: ${[...running('sleep 3601'), ...running('sleep 3602')].join(', ')})`,
      );
      for (const id of ids) expect((await cri.containerStatus(id)).status).toMatchObject({ state: 'CONTAINER_EXITED', reason: 'Unknown' });
      await cri.removePodSandbox(sandboxId);
    } finally {
      cri.close();
      await rt.stop();
      rmSync(killedRoot, { recursive: true, force: true });
    }
  });
});

/** Runs a cleanup command whose failure (nothing mounted there) does not matter. */
function spawnSyncQuiet(file: string, args: string[]): void {
  try {
    execFileSync(file, args, { stdio: 'ignore' });
  } catch {
    // nothing to undo
  }
}

function readProcStatus(pid: string): string | undefined {
  return /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
}
