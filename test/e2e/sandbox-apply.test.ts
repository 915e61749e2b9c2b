// `knode apply` of pods whose images come from the local registry
// (test/registry/registry.sh) as a user runs it: bin/run.js as a child
// process, the embedded runtime it starts by itself, the images pulled for
// real and run in bubblewrap sandboxes with their own entrypoints.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knode } from '../helpers/cli.js';
import { mirrorConfig, startRegistry, type LocalRegistry } from '../helpers/registry.js';

let registry: LocalRegistry;
let root: string;

beforeAll(() => {
  registry = startRegistry();
  root = mkdtempSync(join(tmpdir(), 'knode-e2e-sandbox-'));
  writeFileSync(join(root, 'registries.yaml'), mirrorConfig(registry.host));
}, 180_000);

afterAll(async () => {
  if (root) await knode(['runtime', 'stop', '--root-dir', root]);
  registry?.stop();
});

const pod = `apiVersion: v1
kind: Pod
metadata:
  name: entry
spec:
  restartPolicy: Never
  containers:
    - name: own-entrypoint
      image: busybox-entrypoint:1.0
    - name: looks-around
      image: docker.io/library/busybox-user:1.0
      command: ["sh", "-c", "echo uid=$(id -u) cwd=$(pwd) host=$(hostname); test -e /work || echo no-host-files"]
`;

/** A pod of one container, "show", that runs SCRIPT once (SPEC: more of the pod's spec, one line). */
const showPod = (name: string, script: string, spec = '') => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  restartPolicy: Never
${spec ? `  ${spec}\n` : ''}  containers:
    - name: show
      image: busybox:1.36
      command: ["sh", "-c", ${JSON.stringify(script)}]
`;

describe('knode apply on the embedded runtime with real images', () => {
  it("pulls from the registry and runs each image's own entrypoint in its sandbox", async () => {
    const manifest = join(root, 'entry.yaml');
    writeFileSync(manifest, pod);
    const res = await knode(['apply', '-f', manifest, '--root-dir', root, '--node-name', 'sbx', '-o', 'json'], { timeoutMs: 120_000 });
    expect(res.code, res.stderr).toBe(0);
    const list = JSON.parse(res.stdout) as {
      items: { status: { phase: string; containerStatuses: { name: string; state: { terminated?: { exitCode: number } } }[] } }[];
    };
    expect(list.items[0].status.phase).toBe('Succeeded');
    // No CNI configuration: the pod (not hostNetwork) is on the host's network, and apply says so.
    expect(res.stderr).toContain("no pod network: on the host's network");
    const logs = await knode(['logs', 'entry-sbx', '-c', 'own-entrypoint', '--root-dir', root]);
    expect(logs.stdout).toBe('entrypoint hello\n');
    const looks = await knode(['logs', 'entry-sbx', '-c', 'looks-around', '--root-dir', root]);
    expect(looks.stdout).toBe('uid=1000 cwd=/home/app host=entry-sbx\nno-host-files\n');
    const status = await knode(['runtime', 'status', '--root-dir', root]);
    expect(status.stdout).toMatch(/containers of real images: bubblewrap sandboxes/);
    expect(readFileSync(join(root, 'registries.yaml'), 'utf8')).toContain(registry.host);
  });

  it("runs a container as its pod's securityContext says: user, group, supplementary groups with fsGroup, a read-only root, no_new_privs for allowPrivilegeEscalation: false only", async () => {
    const manifest = join(root, 'secure.yaml');
    writeFileSync(
      manifest,
      `apiVersion: v1
kind: Pod
metadata:
  name: secure
spec:
  restartPolicy: Never
  securityContext: { runAsUser: 1234, runAsGroup: 2345, supplementalGroups: [3456], fsGroup: 4567 }
  containers:
    - name: who
      image: busybox:1.36
      command: ["sh", "-c", "echo uid=$(id -u) gid=$(id -g) groups=$(id -G); touch /x 2>/dev/null && echo writable || echo read-only"]
      securityContext: { readOnlyRootFilesystem: true }
    - name: nnp
      image: busybox:1.36
      command: ["sh", "-c", "grep NoNewPrivs: /proc/self/status | cut -f2"]
      securityContext: { allowPrivilegeEscalation: false }
    - name: escalates
      image: busybox:1.36
      command: ["sh", "-c", "grep NoNewPrivs: /proc/self/status | cut -f2"]
`,
    );
    const res = await knode(['apply', '-f', manifest, '--root-dir', root, '--node-name', 'sbx'], { timeoutMs: 120_000 });
    expect(res.code, res.stderr).toBe(0);
    const logs = await knode(['logs', 'secure-sbx', '-c', 'who', '--root-dir', root]);
    expect(logs.stdout).toBe('uid=1234 gid=2345 groups=2345 3456 4567\nread-only\n');
    expect((await knode(['logs', 'secure-sbx', '-c', 'nnp', '--root-dir', root])).stdout).toBe('1\n');
    expect((await knode(['logs', 'secure-sbx', '-c', 'escalates', '--root-dir', root])).stdout).toBe('0\n');
  });

  it("sets the pod's sysctls, the safe ones and those --allowed-unsafe-sysctls lets in; another unsafe one is SysctlForbidden", async () => {
    const sysctlPod = (name: string, sysctls: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  restartPolicy: Never
  securityContext:
    sysctls: ${sysctls}
  containers:
    - name: show
      image: busybox:1.36
      command: ["sh", "-c", "cat /proc/sys/kernel/shm_rmid_forced /proc/sys/fs/mqueue/msg_max"]
`;
    const manifest = join(root, 'sysctls.yaml');
    writeFileSync(
      manifest,
      sysctlPod('sysctls', '[{ name: kernel.shm_rmid_forced, value: "1" }, { name: fs.mqueue.msg_max, value: "64" }]'),
    );
    const res = await knode(
      ['apply', '-f', manifest, '--root-dir', root, '--node-name', 'sbx', '--allowed-unsafe-sysctls', 'fs.mqueue.*'],
      { timeoutMs: 120_000 },
    );
    expect(res.code, res.stderr).toBe(0);
    expect((await knode(['logs', 'sysctls-sbx', '-c', 'show', '--root-dir', root])).stdout).toBe('1\n64\n');

    const unsafe = join(root, 'unsafe.yaml');
    writeFileSync(unsafe, sysctlPod('unsafe', '[{ name: kernel.msgmax, value: "9000" }]'));
    const refused = await knode(
      ['apply', '-f', unsafe, '--root-dir', root, '--node-name', 'sbx', '--allowed-unsafe-sysctls', 'fs.mqueue.*', '-o', 'json'],
      { timeoutMs: 120_000 },
    );
    expect(refused.code).not.toBe(0);
    const status = (JSON.parse(refused.stdout) as { items: { status: { phase: string; reason: string; message: string } }[] }).items[0]
      .status;
    expect(status).toMatchObject({
      phase: 'Failed',
      reason: 'SysctlForbidden',
      message: 'Pod was rejected: forbidden sysctl: "kernel.msgmax" not allowlisted',
    });

    const badFlag = await knode(['apply', '-f', unsafe, '--root-dir', root, '--allowed-unsafe-sysctls', 'kernel.pid_max']);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain('--allowed-unsafe-sysctls: the sysctls "kernel.pid_max" are not known to be namespaced');
  });

  it("gives each container the seccomp profile its securityContext names, the pod's by default, Localhost ones from the kubelet's seccomp directory", async () => {
    const profiles = join(root, 'kubelet', 'seccomp', 'profiles');
    mkdirSync(profiles, { recursive: true });
    writeFileSync(
      join(profiles, 'no-chmod.json'),
      JSON.stringify({
        defaultAction: 'SCMP_ACT_ALLOW',
        syscalls: [{ names: ['chmod', 'fchmodat', 'fchmodat2'], action: 'SCMP_ACT_ERRNO' }],
      }),
    );
    const show = (name: string, seccomp: string) => `
    - name: ${name}
      image: busybox:1.36
      command: ["sh", "-c", "grep '^Seccomp:' /proc/self/status; touch /tmp/f; chmod 600 /tmp/f 2>&1 || true"]${
        seccomp
          ? `
      securityContext: { seccompProfile: ${seccomp} }`
          : ''
      }`;
    const manifest = join(root, 'seccomp.yaml');
    writeFileSync(
      manifest,
      `apiVersion: v1
kind: Pod
metadata:
  name: seccomp
spec:
  restartPolicy: Never
  securityContext:
    seccompProfile: { type: RuntimeDefault }
  containers:${show('pods', '')}${show('open', '{ type: Unconfined }')}${show('local', '{ type: Localhost, localhostProfile: profiles/no-chmod.json }')}
`,
    );
    const res = await knode(['apply', '-f', manifest, '--root-dir', root, '--node-name', 'sbx'], { timeoutMs: 120_000 });
    expect(res.code, res.stderr).toBe(0);
    const logs = async (c: string) => (await knode(['logs', 'seccomp-sbx', '-c', c, '--root-dir', root])).stdout;
    expect(await logs('pods')).toBe('Seccomp:\t2\n');
    expect(await logs('open')).toBe('Seccomp:\t0\n');
    expect(await logs('local')).toBe('Seccomp:\t2\nchmod: /tmp/f: Operation not permitted\n');
  });

  it("gives a host-network pod the node's hostname, as the kubelet and containerd do", async () => {
    const manifest = join(root, 'host-net.yaml');
    writeFileSync(manifest, showPod('host-net', 'hostname; cat /etc/hostname; echo $HOSTNAME', 'hostNetwork: true'));
    const res = await knode(['apply', '-f', manifest, '--root-dir', root, '--node-name', 'sbx'], { timeoutMs: 120_000 });
    expect(res.code, res.stderr).toBe(0);
    expect((await knode(['logs', 'host-net-sbx', '-c', 'show', '--root-dir', root])).stdout).toBe(`${hostname()}\n`.repeat(3));
  });

  it('makes a readOnly volume read-only itself, and with recursiveReadOnly what is mounted under it too', async () => {
    const source = mkdtempSync(join(tmpdir(), 'knode-e2e-rro-'));
    mkdirSync(join(source, 'tmpfs'));
    execFileSync('mount', ['-t', 'tmpfs', 'tmpfs', join(source, 'tmpfs')]);
    try {
      const manifest = join(root, 'rro.yaml');
      writeFileSync(
        manifest,
        `apiVersion: v1
kind: Pod
metadata:
  name: rro
spec:
  restartPolicy: Never
  volumes:
    - name: data
      hostPath: { path: ${source}, type: Directory }
  containers:
    - name: plain
      image: busybox:1.36
      command: ["sh", "-c", "touch /data/tmpfs/a && echo under-writable"]
      volumeMounts: [{ name: data, mountPath: /data, readOnly: true }]
    - name: recursive
      image: busybox:1.36
      command: ["sh", "-c", "touch /data/tmpfs/b 2>/dev/null || echo under-read-only"]
      volumeMounts: [{ name: data, mountPath: /data, readOnly: true, recursiveReadOnly: Enabled }]
`,
      );
      const res = await knode(['apply', '-f', manifest, '--root-dir', root, '--node-name', 'sbx'], { timeoutMs: 120_000 });
      expect(res.code, res.stderr).toBe(0);
      expect((await knode(['logs', 'rro-sbx', '-c', 'plain', '--root-dir', root])).stdout).toBe('under-writable\n');
      expect((await knode(['logs', 'rro-sbx', '-c', 'recursive', '--root-dir', root])).stdout).toBe('under-read-only\n');
    } finally {
      try {
        execFileSync('umount', [join(source, 'tmpfs')]);
      } catch {
        // already gone
      }
    }
  });

  it('refuses runAsNonRoot for an image that runs as root, with the reason and message the kubelet gives', async () => {
    const manifest = join(root, 'nonroot.yaml');
    writeFileSync(
      manifest,
      `apiVersion: v1
kind: Pod
metadata:
  name: nonroot
spec:
  restartPolicy: Never
  securityContext: { runAsNonRoot: true }
  containers:
    - name: root-image
      image: busybox:1.36
      command: ["true"]
`,
    );
    const res = await knode(['apply', '-f', manifest, '--root-dir', root, '--node-name', 'sbx', '--timeout', '60s', '-o', 'json'], {
      timeoutMs: 120_000,
    });
    expect(res.code).not.toBe(0);
    const list = JSON.parse(res.stdout) as {
      items: { metadata: { uid: string }; status: { containerStatuses: { state: { waiting?: { reason: string; message: string } } }[] } }[];
    };
    const waiting = list.items[0].status.containerStatuses[0].state.waiting;
    expect(waiting).toEqual({
      reason: 'CreateContainerConfigError',
      message: `container has runAsNonRoot and image will run as root (pod: "nonroot-sbx_default(${list.items[0].metadata.uid})", container: root-image)`,
    });
  });
});

describe('knode apply on a pod network (a CNI configuration under the root dir)', () => {
  const BRIDGE = 'knode-e2e0';
  let netRoot: string;

  beforeAll(() => {
    netRoot = mkdtempSync(join(tmpdir(), 'knode-e2e-podnet-'));
    writeFileSync(join(netRoot, 'registries.yaml'), mirrorConfig(registry.host));
    mkdirSync(join(netRoot, 'cni', 'net.d'), { recursive: true });
    writeFileSync(
      join(netRoot, 'cni', 'net.d', '10-pods.conflist'),
      JSON.stringify({
        cniVersion: '1.0.0',
        name: 'e2e-pods',
        plugins: [
          {
            type: 'bridge',
            bridge: BRIDGE,
            isGateway: true,
            ipam: {
              type: 'host-local',
              ranges: [[{ subnet: '10.91.0.0/24' }]],
              routes: [{ dst: '0.0.0.0/0' }],
              dataDir: join(netRoot, 'ipam'),
            },
          },
        ],
      }),
    );
  });

  afterAll(async () => {
    if (netRoot) await knode(['runtime', 'stop', '--root-dir', netRoot]);
    // A pod's network namespace outlives the runtime, as containerd's do until StopPodSandbox.
    const netns = join(netRoot, 'runtime', 'netns');
    for (const file of existsSync(netns) ? readdirSync(netns) : []) spawnSync('umount', [join(netns, file)]);
    spawnSync('ip', ['link', 'delete', BRIDGE], { stdio: 'ignore' });
    if (netRoot) rmSync(netRoot, { recursive: true, force: true });
  });

  it('gives the pod its own IP from the network, in its status, its /etc/hosts and its eth0', async () => {
    const manifest = join(netRoot, 'net.yaml');
    writeFileSync(manifest, showPod('on-net', "ip -4 -o addr show eth0 | awk '{ print $4 }'; grep on-net /etc/hosts"));
    const res = await knode(['apply', '-f', manifest, '--root-dir', netRoot, '--node-name', 'sbx', '-o', 'json'], { timeoutMs: 120_000 });
    expect(res.code, res.stderr).toBe(0);
    const status = (
      JSON.parse(res.stdout) as { items: { status: { phase: string; podIP: string; podIPs: { ip: string }[]; hostIP: string } }[] }
    ).items[0].status;
    expect(status.phase).toBe('Succeeded');
    expect(res.stderr).not.toContain('no pod network');
    expect(status.podIP).toMatch(/^10\.91\.0\.\d+$/);
    expect(status.podIPs).toEqual([{ ip: status.podIP }]);
    expect(status.hostIP).not.toBe(status.podIP);
    const logs = await knode(['logs', 'on-net-sbx', '-c', 'show', '--root-dir', netRoot]);
    expect(logs.stdout).toBe(`${status.podIP}/24\n${status.podIP}\ton-net-sbx\n`);
    expect((await knode(['runtime', 'status', '--root-dir', netRoot])).stdout).toContain('CNI network "e2e-pods"');
  });
});
