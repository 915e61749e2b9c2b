// Seccomp in the embedded runtime's sandboxes, through the real CRI path: a
// container's SecurityProfile becomes a BPF filter that bwrap loads before
// the program, and the kernel then says so in /proc/self/status (2: a
// filter) and by refusing what the profile refuses.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import type { CriError } from '../../src/cri/errors.js';
import type { ContainerConfig, PodSandboxConfig, SecurityProfile } from '../../src/cri/types.js';
import { containerConfig, loggedLines, logPathOf, ownSandboxConfig, runPodToEnd } from '../helpers/cri.js';
import { mirrorConfig, startImageRuntime, type ImageRuntime } from '../helpers/registry.js';
import { eventually, startEmbeddedRuntime } from '../helpers/runtimes.js';

let env: ImageRuntime;
let client: CriClient;
let root: string;
let blockChmod: string;

beforeAll(async () => {
  env = await startImageRuntime('knode-seccomp-', ['busybox:1.36'], (dir) => {
    // critest's profile: everything but chmod.
    blockChmod = join(dir, 'block-chmod.json');
    writeFileSync(
      blockChmod,
      JSON.stringify({
        defaultAction: 'SCMP_ACT_ALLOW',
        syscalls: [{ names: ['chmod', 'fchmodat', 'fchmodat2'], action: 'SCMP_ACT_ERRNO' }],
      }),
    );
  });
  ({ client, root } = env);
}, 180_000);

afterAll(() => env?.stop());

const SHOW = ['sh', '-c', 'grep "^Seccomp:" /proc/self/status; touch /tmp/f; chmod 600 /tmp/f && echo chmod ok'];

function config(
  name: string,
  seccomp: SecurityProfile | undefined,
  extra: { privileged?: boolean; pid?: 'CONTAINER' | 'POD' } = {},
): ContainerConfig {
  return containerConfig(name, SHOW, {
    image: { image: 'busybox:1.36' },
    linux: {
      securityContext: {
        namespaceOptions: { pid: extra.pid ?? 'CONTAINER' },
        privileged: extra.privileged ?? false,
        ...(seccomp ? { seccomp } : {}),
      },
    },
  });
}

/** Runs the container to its end in a new pod; its output lines. */
const run = async (pod: string, c: ContainerConfig, sandboxExtra: Partial<PodSandboxConfig> = {}) =>
  (await runPodToEnd(client, pod, c, sandboxExtra)).lines;

describe('seccomp profiles in sandboxes (embedded runtime)', () => {
  it('runs RuntimeDefault under a filter, and no profile or Unconfined under none', async () => {
    expect(await run('sc-default', config('c', { profileType: 'RuntimeDefault' }))).toEqual(['Seccomp:\t2', 'chmod ok']);
    expect(await run('sc-unconfined', config('c', { profileType: 'Unconfined' }))).toEqual(['Seccomp:\t0', 'chmod ok']);
    expect(await run('sc-none', config('c', undefined))).toEqual(['Seccomp:\t0', 'chmod ok']);
  });

  it('refuses what a Localhost profile refuses, also in a PID namespace shared with the pod', async () => {
    const localhost: SecurityProfile = { profileType: 'Localhost', localhostRef: blockChmod };
    expect(await run('sc-localhost', config('c', localhost))).toEqual(['Seccomp:\t2', 'chmod: /tmp/f: Operation not permitted']);
    // The filter goes to bwrap at the fd after the PID namespace's there.
    expect(
      await run('sc-shared', config('c', localhost, { pid: 'POD' }), {
        linux: { securityContext: { namespaceOptions: { network: 'NODE', pid: 'POD' } } },
      }),
    ).toEqual(['Seccomp:\t2', 'chmod: /tmp/f: Operation not permitted']);
  });

  it("runs an exec under the container's filter too, with its capabilities and as its user", async () => {
    const sandbox = ownSandboxConfig('sc-exec');
    const sandboxId = await client.runPodSandbox(sandbox);
    const start = async (name: string, seccomp: SecurityProfile, user?: number, command = ['sleep', '60']) => {
      const c = containerConfig(name, command, {
        image: { image: 'busybox:1.36' },
        linux: {
          securityContext: {
            namespaceOptions: { pid: 'CONTAINER' },
            seccomp,
            ...(user !== undefined ? { runAsUser: { value: user } } : {}),
          },
        },
      });
      const id = await client.createContainer(sandboxId, c, sandbox);
      await client.startContainer(id);
      return id;
    };
    const filtered = await start('local', { profileType: 'Localhost', localhostRef: blockChmod });
    const exec = await client.execSync(
      filtered,
      ['sh', '-c', 'grep "^Seccomp:" /proc/self/status; id -u; grep ^CapBnd /proc/self/status; touch /tmp/g; chmod 600 /tmp/g'],
      10,
    );
    expect(exec.stdout.toString()).toBe('Seccomp:\t2\n0\nCapBnd:\t00000000a80425fb\n');
    expect(exec.stderr.toString()).toBe('chmod: /tmp/g: Operation not permitted\n');
    expect(exec.exitCode).toBe(1);
    const user = await start('user', { profileType: 'RuntimeDefault' }, 1000);
    expect((await client.execSync(user, ['sh', '-c', 'grep "^Seccomp:" /proc/self/status; id -u'], 10)).stdout.toString()).toBe(
      'Seccomp:\t2\n1000\n',
    );
    // The exec's bwrap makes its scratch root on the container's /tmp: one the container removed is made again.
    const noTmp = await start('no-tmp', { profileType: 'RuntimeDefault' }, undefined, [
      'sh',
      '-c',
      'rm -rf /tmp && echo removed && sleep 60',
    ]);
    await eventually(
      () =>
        existsSync(logPathOf(sandbox, containerConfig('no-tmp', []))) &&
        loggedLines(sandbox, containerConfig('no-tmp', [])).includes('removed'),
      'the container to remove its /tmp',
    );
    expect((await client.execSync(noTmp, ['sh', '-c', 'grep "^Seccomp:" /proc/self/status; stat -c %a /tmp'], 10)).stdout.toString()).toBe(
      'Seccomp:\t2\n1777\n',
    );
    const open = await start('open', { profileType: 'Unconfined' });
    expect((await client.execSync(open, ['grep', '^Seccomp:', '/proc/self/status'], 10)).stdout.toString()).toBe('Seccomp:\t0\n');
    await client.stopPodSandbox(sandboxId);
    await client.removePodSandbox(sandboxId);
  });

  it('leaves a privileged container unconfined, whatever its profile says', async () => {
    expect(await run('sc-privileged', config('c', { profileType: 'Localhost', localhostRef: blockChmod }, { privileged: true }))).toEqual([
      'Seccomp:\t0',
      'chmod ok',
    ]);
  });

  it('refuses to create a container whose Localhost profile is missing or broken, naming the file', async () => {
    const sandbox = ownSandboxConfig('sc-bad');
    const sandboxId = await client.runPodSandbox(sandbox);
    const broken = join(root, 'broken.json');
    writeFileSync(
      broken,
      JSON.stringify({
        defaultAction: 'SCMP_ACT_ALLOW',
        syscalls: [{ names: ['chmod'], action: 'SCMP_ACT_ERRNO', args: [{ index: 9, value: 1, op: 'SCMP_CMP_EQ' }] }],
      }),
    );
    const refused = async (ref: string) =>
      (await client
        .createContainer(sandboxId, config('c', { profileType: 'Localhost', localhostRef: ref }), sandbox)
        .catch((e: CriError) => e)) as CriError;
    const missing = await refused(join(root, 'no-such.json'));
    expect(missing.code).toBe(3); // INVALID_ARGUMENT
    expect(missing.details).toContain(`cannot load seccomp profile "${join(root, 'no-such.json')}"`);
    expect((await refused(broken)).details).toContain('syscalls[0].args[0].index: must be 0 to 5, got 9');
    expect((await refused('relative.json')).details).toContain('localhost profile path must be absolute');
    await client.removePodSandbox(sandboxId);
  });
});

describe('seccomp profiles without sandboxes (--sandbox off)', () => {
  it('refuses a profile it cannot load, as containerd on a host without seccomp, and runs Unconfined or privileged', async () => {
    const offRoot = mkdtempSync(join(tmpdir(), 'knode-seccomp-off-'));
    writeFileSync(join(offRoot, 'registries.yaml'), mirrorConfig(env.registry.host));
    const off = await startEmbeddedRuntime(offRoot, ['--sandbox', 'off']);
    const offClient = new CriClient(off.endpoint);
    try {
      await offClient.pullImage({ image: 'busybox:1.36' });
      const sandbox = ownSandboxConfig('sc-off');
      const sandboxId = await offClient.runPodSandbox(sandbox);
      const create = (profile: SecurityProfile, privileged = false) =>
        offClient.createContainer(sandboxId, config('c', profile, { privileged }), sandbox);
      for (const profile of [{ profileType: 'RuntimeDefault' }, { profileType: 'Localhost', localhostRef: blockChmod }] as const) {
        const refused = (await create(profile).catch((e: CriError) => e)) as CriError;
        expect(refused.code).toBe(3); // INVALID_ARGUMENT
        expect(refused.details).toBe(
          `container "c": failed to generate seccomp spec opts: seccomp is not supported: it runs as a host process (host processes: sandboxes are turned off (--sandbox off)), and only a sandbox loads a ${profile.profileType} profile`,
        );
      }
      expect(await offClient.listContainers()).toEqual([]);
      await offClient.removeContainer(await create({ profileType: 'Unconfined' }));
      await offClient.removeContainer(await create({ profileType: 'RuntimeDefault' }, true));
      await offClient.removePodSandbox(sandboxId);
    } finally {
      offClient.close();
      await off.stop();
      rmSync(offRoot, { recursive: true, force: true });
    }
  });
});
