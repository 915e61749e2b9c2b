// A pod network on the embedded runtime, through the real CRI path: a CNI
// configuration in <root-dir>/cni/net.d and Debian's CNI plugins (bridge,
// host-local, loopback, portmap), as containerd is configured in these tests.
// Each pod off the host's network gets a namespace of its own and an IP.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import { hostIp } from '../../src/util/host-ip.js';
import type { CriError } from '../../src/cri/errors.js';
import type { ContainerConfig, PodSandboxConfig } from '../../src/cri/types.js';
import { freePort } from '../helpers/controlplane.js';
import { containerConfig, loggedLines, ownSandboxConfig, sandboxConfig } from '../helpers/cri.js';
import { mirrorConfig, startRegistry, type LocalRegistry } from '../helpers/registry.js';
import { eventually, startEmbeddedRuntime, type EmbeddedRuntimeProcess } from '../helpers/runtimes.js';
import { roundTrip } from '../helpers/tcp.js';

const crictlPath = inject('crictlPath');
const BRIDGE = 'knode-pn0';
const SUBNET = '10.89.0';

let registry: LocalRegistry;
let runtime: EmbeddedRuntimeProcess;
let client: CriClient;
let root: string;
const sandboxes: string[] = [];

/** The network, with portmap's capability when MAP_PORTS. */
const conflist = (mapPorts: boolean) =>
  JSON.stringify({
    cniVersion: '1.0.0',
    name: 'knode-pods',
    plugins: [
      {
        type: 'bridge',
        bridge: BRIDGE,
        isGateway: true,
        ipMasq: false,
        ipam: { type: 'host-local', ranges: [[{ subnet: `${SUBNET}.0/24` }]], routes: [{ dst: '0.0.0.0/0' }], dataDir: join(root, 'ipam') },
      },
      ...(mapPorts ? [{ type: 'portmap', capabilities: { portMappings: true } }] : []),
    ],
  });

beforeAll(async () => {
  registry = startRegistry();
  root = mkdtempSync(join(tmpdir(), 'knode-podnet-'));
  writeFileSync(join(root, 'registries.yaml'), mirrorConfig(registry.host));
  mkdirSync(join(root, 'cni', 'net.d'), { recursive: true });
  writeFileSync(join(root, 'cni', 'net.d', '10-pods.conflist'), conflist(false));
  runtime = await startEmbeddedRuntime(root);
  client = new CriClient(runtime.endpoint);
  await client.pullImage({ image: 'busybox:1.36' });
}, 180_000);

afterAll(async () => {
  // A pod's network namespace outlives the runtime (as containerd's): each is stopped, so none is left.
  for (const id of sandboxes) await client?.stopPodSandbox(id).catch(() => {});
  client?.close();
  await runtime?.stop();
  registry?.stop();
  spawnSync('ip', ['link', 'delete', BRIDGE], { stdio: 'ignore' });
  if (root) rmSync(root, { recursive: true, force: true });
});

/** A pod on the pod network (the kubelet's default), running CONFIG; its sandbox id, container id and configs. */
async function startPod(
  name: string,
  command: string[],
  extra: { sandbox?: Partial<PodSandboxConfig>; container?: Partial<ContainerConfig> } = {},
) {
  const sandbox = { ...ownSandboxConfig(name), ...extra.sandbox };
  const sandboxId = await client.runPodSandbox(sandbox);
  sandboxes.push(sandboxId);
  const config = containerConfig('main', command, {
    linux: { securityContext: { namespaceOptions: { pid: 'CONTAINER' } } },
    ...extra.container,
  });
  const id = await client.createContainer(sandboxId, config, sandbox);
  await client.startContainer(id);
  const ip = (await client.podSandboxStatus(sandboxId)).status?.network?.ip ?? '';
  return { sandbox, sandboxId, config, id, ip };
}

const exec = async (id: string, cmd: string[]) => {
  const res = await client.execSync(id, cmd, 10);
  return { code: res.exitCode, out: res.stdout.toString().trim(), err: res.stderr.toString().trim() };
};

/** Connects to HOST:PORT and gives what the server sent before it closed. */
const fetchTcp = (host: string, port: number) =>
  new Promise<string>((resolve, reject) => {
    let data = '';
    const socket = connect(port, host);
    socket.setTimeout(5_000, () => socket.destroy(new Error(`no answer from ${host}:${port}`)));
    socket.on('data', (d) => (data += d));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });

const hostLinks = () => execFileSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' });

describe('a pod network from CNI (embedded runtime)', () => {
  it('says so in its status: NetworkReady, naming the network and its file', async () => {
    const network = (await client.status()).status?.conditions.find((c) => c.type === 'NetworkReady');
    expect(network).toMatchObject({
      status: true,
      message: `pods get their own network: CNI network "knode-pods" from ${join(root, 'cni', 'net.d', '10-pods.conflist')}`,
    });
  });

  it('gives each pod its own namespace and IP: it sees eth0 and lo, not the host interfaces, and the pods reach each other and the host reaches them', async () => {
    const server = await startPod('net-server', ['sh', '-c', 'while true; do echo "hello from $(hostname)" | nc -l -p 8080; done']);
    expect(server.ip).toMatch(new RegExp(`^${SUBNET.replaceAll('.', '\\.')}\\.\\d+$`));
    const links = await exec(server.id, ['sh', '-c', "ip -o link show | cut -d: -f2 | cut -d@ -f1 | tr -d ' ' | sort"]);
    expect(links.out.split('\n')).toEqual(['eth0', 'lo']);
    expect((await exec(server.id, ['sh', '-c', 'ip -4 -o addr show eth0'])).out).toContain(`inet ${server.ip}/24`);
    // The exec is in the pod's network namespace too, not the runtime's.
    expect((await exec(server.id, ['readlink', '/proc/self/ns/net'])).out).not.toBe(readlinkSync('/proc/self/ns/net'));

    const client2 = await startPod('net-client', ['sleep', '60']);
    expect(client2.ip).not.toBe(server.ip);
    await eventually(
      async () => (await exec(client2.id, ['sh', '-c', `nc ${server.ip} 8080 < /dev/null`])).out === 'hello from net-server',
      'the client pod to reach the server pod',
    );
    await eventually(
      async () => (await fetchTcp(server.ip, 8080).catch(() => '')) === 'hello from net-server\n',
      'the host to reach the server pod',
    );
  });

  it("relays a hostPort to the pod's IP, also when it is the containerPort", async () => {
    const port = 20000 + (process.pid % 20000);
    const pod = await startPod('net-ports', ['sh', '-c', 'while true; do echo mapped | nc -l -p 8080; done'], {
      sandbox: {
        portMappings: [
          { protocol: 'TCP', containerPort: 8080, hostPort: port, hostIp: '' },
          { protocol: 'TCP', containerPort: 8080, hostPort: 8080, hostIp: '' },
        ],
      },
    });
    await eventually(async () => (await fetchTcp('127.0.0.1', port).catch(() => '')) === 'mapped\n', 'the host port to reach the pod');
    await eventually(
      async () => (await fetchTcp('127.0.0.1', 8080).catch(() => '')) === 'mapped\n',
      'the same-numbered host port to reach the pod',
    );
    await client.stopPodSandbox(pod.sandboxId);
    await expect(fetchTcp('127.0.0.1', port)).rejects.toThrow();
  });

  it("hands the port mappings to a network whose plugin maps ports (portmap's capability) instead of relaying them", async () => {
    const file = join(root, 'cni', 'net.d', '10-pods.conflist');
    writeFileSync(file, conflist(true));
    try {
      const port = 20000 + ((process.pid + 7) % 20000);
      const pod = await startPod('net-portmap', ['sh', '-c', 'while true; do echo portmapped | nc -l -p 8080; done'], {
        sandbox: { portMappings: [{ protocol: 'TCP', containerPort: 8080, hostPort: port, hostIp: '' }] },
      });
      // portmap's DNAT answers on the host's own address; no relay of the runtime's listens on loopback.
      await eventually(async () => (await fetchTcp(hostIp(), port).catch(() => '')) === 'portmapped\n', "portmap's rule to reach the pod");
      await expect(fetchTcp('127.0.0.1', port)).rejects.toThrow();
      expect(execFileSync('iptables-save', { encoding: 'utf8' })).toContain(`--dport ${port}`);
      await client.stopPodSandbox(pod.sandboxId);
      expect(execFileSync('iptables-save', { encoding: 'utf8' })).not.toContain(`--dport ${port}`);
    } finally {
      writeFileSync(file, conflist(false));
    }
  });

  it.runIf(crictlPath)("port-forwards (crictl) to the pod's own loopback, dialled inside its namespace", async () => {
    const podPort = await freePort();
    const localPort = await freePort();
    const pod = await startPod('net-forward', ['nc', '-ll', '-p', String(podPort), '-e', 'cat']);
    const forward = spawn(crictlPath, ['-r', runtime.endpoint, 'port-forward', pod.sandboxId, `${localPort}:${podPort}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    forward.stdout.on('data', (d: Buffer) => (out += d.toString()));
    forward.stderr.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await eventually(
        () => out.includes(`Forwarding from 127.0.0.1:${localPort} -> ${podPort}`),
        () => `crictl port-forward to listen (so far: ${out})`,
      );
      await eventually(
        async () => (await roundTrip(localPort, 'through the pod').catch(() => '')) === 'through the pod',
        () => `an echo through the forward (crictl: ${out})`,
      );
      // Nothing listens on the host's loopback at that port: the answer came from the pod's.
      await expect(roundTrip(podPort, 'host?')).rejects.toThrow();
    } finally {
      forward.kill('SIGINT');
    }
  });

  it('keeps what a pod does to its network in its namespace: a bridge it adds, a net.* sysctl', async () => {
    const sysctl = '/proc/sys/net/ipv4/ip_unprivileged_port_start';
    const hostValue = readFileSync(sysctl, 'utf8').trim();
    const pod = await startPod('net-admin', ['sh', '-c', `ip link add foonet type bridge && cat ${sysctl} && sleep 60`], {
      sandbox: { linux: { sysctls: { 'net.ipv4.ip_unprivileged_port_start': '80' } } },
      container: {
        linux: {
          securityContext: {
            namespaceOptions: { pid: 'CONTAINER' },
            capabilities: { addCapabilities: ['NET_ADMIN'], dropCapabilities: [], addAmbientCapabilities: [] },
          },
        },
      },
    });
    await eventually(
      () => existsSync(join(pod.sandbox.logDirectory!, 'main/0.log')) && loggedLines(pod.sandbox, pod.config).length > 0,
      'the pod to write',
    );
    expect(loggedLines(pod.sandbox, pod.config)).toEqual(['80']);
    expect((await exec(pod.id, ['ip', '-o', 'link', 'show', 'foonet'])).code).toBe(0);
    expect(hostLinks()).not.toContain('foonet');
    expect(readFileSync(sysctl, 'utf8').trim()).toBe(hostValue);
  });

  it('leaves nothing when the pod stops: its namespace and its address go (CNI DEL)', async () => {
    const pod = await startPod('net-gone', ['sleep', '60']);
    const netnsDir = join(root, 'runtime', 'netns');
    expect(readdirSync(netnsDir)).toContain(pod.sandboxId);
    const leases = () => readdirSync(join(root, 'ipam', 'knode-pods'));
    expect(leases()).toContain(pod.ip);
    await client.stopPodSandbox(pod.sandboxId);
    expect(readdirSync(netnsDir)).not.toContain(pod.sandboxId);
    expect(leases()).not.toContain(pod.ip);
    // Stopping again, and removing, are fine.
    await client.stopPodSandbox(pod.sandboxId);
    await client.removePodSandbox(pod.sandboxId);
  });

  it("leaves a host-network pod on the host's network", async () => {
    const sandbox = sandboxConfig('net-host');
    const sandboxId = await client.runPodSandbox(sandbox);
    sandboxes.push(sandboxId);
    const config = containerConfig('main', ['sleep', '60'], { linux: { securityContext: { namespaceOptions: { pid: 'CONTAINER' } } } });
    const id = await client.createContainer(sandboxId, config, sandbox);
    await client.startContainer(id);
    expect((await client.podSandboxStatus(sandboxId)).status?.network?.ip).toBe('');
    expect((await exec(id, ['readlink', '/proc/self/ns/net'])).out).toBe(readlinkSync('/proc/self/ns/net'));
  });

  it('refuses pods while the configuration is broken, naming the file, and says so in NetworkReady', async () => {
    const broken = join(root, 'cni', 'net.d', '00-broken.conflist');
    writeFileSync(broken, '{"cniVersion": "1.0.0", "plugins": [{"type": "bridge"}]}');
    try {
      const network = (await client.status()).status?.conditions.find((c) => c.type === 'NetworkReady');
      expect(network).toMatchObject({ status: false, reason: 'NetworkPluginNotReady', message: `${broken}: name: required` });
      const err = (await client.runPodSandbox(ownSandboxConfig('net-broken')).catch((e: CriError) => e)) as CriError;
      expect(err.details).toBe(
        `failed to create pod sandbox knode-test/net-broken: the pod network is not ready: ${broken}: name: required`,
      );
    } finally {
      rmSync(broken);
    }
  });

  it('keeps a pod in its network across a kill -9 of the runtime: the same IP, and a container started after it is in the same namespace', async () => {
    const pod = await startPod('net-kept', ['sleep', '3600']);
    client.close();
    await runtime.kill();
    runtime = await startEmbeddedRuntime(root);
    client = new CriClient(runtime.endpoint);
    expect((await client.podSandboxStatus(pod.sandboxId)).status?.network?.ip).toBe(pod.ip);
    const again = containerConfig('again', ['sleep', '60'], { linux: { securityContext: { namespaceOptions: { pid: 'CONTAINER' } } } });
    const id = await client.createContainer(pod.sandboxId, again, pod.sandbox);
    await client.startContainer(id);
    expect((await exec(id, ['sh', '-c', 'ip -4 -o addr show eth0'])).out).toContain(`inet ${pod.ip}/24`);
    await client.stopPodSandbox(pod.sandboxId);
    expect(readdirSync(join(root, 'runtime', 'netns'))).not.toContain(pod.sandboxId);
  });

  it('marks a sandbox whose namespace is gone after a restart (a reboot) not ready, and gives its address back', async () => {
    const pod = await startPod('net-rebooted', ['sleep', '3600']);
    const netns = join(root, 'runtime', 'netns', pod.sandboxId);
    client.close();
    await runtime.kill();
    // What a reboot does to the bind mount (the restarted runtime ends the programs left, as a reboot would have).
    execFileSync('umount', [netns]);
    runtime = await startEmbeddedRuntime(root);
    client = new CriClient(runtime.endpoint);
    expect((await client.podSandboxStatus(pod.sandboxId)).status?.state).toBe('SANDBOX_NOTREADY');
    await eventually(
      () => !existsSync(netns) && !readdirSync(join(root, 'ipam', 'knode-pods')).includes(pod.ip),
      'the namespace file and the address to go',
    );
    expect(readFileSync(join(root, 'runtime.log'), 'utf8')).toContain(
      `pod sandbox ${pod.sandboxId} (knode-test/net-rebooted): its network namespace ${netns} is gone; the sandbox is not ready`,
    );
    await client.removePodSandbox(pod.sandboxId);
  });
});
