// A pod's port mappings on the embedded runtime, through the real CRI path:
// a hostPort that is not its containerPort is relayed by the runtime, TCP
// and UDP, until the sandbox stops, and again after a restart of the runtime.
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import type { CriError } from '../../src/cri/errors.js';
import type { PodSandboxConfig } from '../../src/cri/types.js';
import { containerConfig, sandboxConfig } from '../helpers/cri.js';
import { freePort } from '../helpers/controlplane.js';
import { eventually, startEmbeddedRuntime, type EmbeddedRuntimeProcess } from '../helpers/runtimes.js';
import { roundTrip } from '../helpers/tcp.js';

const UDP_ECHO =
  "require('dgram').createSocket('udp4').on('message', function (m, r) { this.send(m, r.port, r.address); }).bind(Number(process.env.PORT))";

function udpRoundTrip(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createSocket('udp4');
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no UDP answer from ${port}`));
    }, 1_000);
    socket.on('message', (msg) => {
      clearTimeout(timer);
      socket.close();
      resolve(msg.toString());
    });
    socket.send(text, port, '127.0.0.1');
  });
}

let root: string;
let runtime: EmbeddedRuntimeProcess;
let client: CriClient;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'knode-rt-ports-'));
  runtime = await startEmbeddedRuntime(root);
  client = new CriClient(runtime.endpoint);
  await client.pullImage({ image: 'busybox:1.36' });
});

afterAll(async () => {
  client?.close();
  await runtime?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

async function startEchoes(sandboxId: string, sandbox: PodSandboxConfig, tcpPort: number, udpPort: number, attempt = 0): Promise<string[]> {
  const ids: string[] = [];
  for (const [name, command, port] of [
    ['tcp-echo', ['busybox', 'nc', '-ll', '-p', String(tcpPort), '-e', 'cat'], tcpPort],
    ['udp-echo', [process.execPath, '-e', UDP_ECHO], udpPort],
  ] as const) {
    const id = await client.createContainer(
      sandboxId,
      containerConfig(name, [...command], { metadata: { name, attempt }, envs: [{ key: 'PORT', value: String(port) }] }),
      sandbox,
    );
    await client.startContainer(id);
    ids.push(id);
  }
  return ids;
}

describe('port mappings on the embedded runtime', () => {
  it('relays a hostPort to its containerPort over TCP and UDP while the sandbox is ready, and again after a restart', async () => {
    const [tcpHost, tcpPod, udpHost, udpPod] = [await freePort(), await freePort(), await freePort(), await freePort()];
    const sandbox: PodSandboxConfig = {
      ...sandboxConfig('ports'),
      portMappings: [
        { protocol: 'TCP', hostPort: tcpHost, containerPort: tcpPod, hostIp: '' },
        { protocol: 'UDP', hostPort: udpHost, containerPort: udpPod, hostIp: '127.0.0.1' },
      ],
    };
    const sandboxId = await client.runPodSandbox(sandbox);
    await startEchoes(sandboxId, sandbox, tcpPod, udpPod);
    await eventually(async () => (await roundTrip(tcpPod, 'up?')) === 'up?', 'the TCP echo server');
    expect(await roundTrip(tcpHost, 'through the host port')).toBe('through the host port');
    expect(await eventually(() => udpRoundTrip(udpHost, 'a datagram').catch(() => undefined), 'the UDP echo through the host port')).toBe(
      'a datagram',
    );

    // A restart stops the containers; the sandbox stays ready, and its ports are relayed again for the new ones.
    await runtime.kill();
    runtime = await startEmbeddedRuntime(root);
    client.close();
    client = new CriClient(runtime.endpoint);
    await startEchoes(sandboxId, sandbox, tcpPod, udpPod, 1);
    await eventually(async () => (await roundTrip(tcpHost, 'again').catch(() => '')) === 'again', 'the TCP relay after the restart');
    expect(await eventually(() => udpRoundTrip(udpHost, 'again').catch(() => undefined), 'the UDP relay after the restart')).toBe('again');

    await client.stopPodSandbox(sandboxId);
    await expect(roundTrip(tcpHost, 'anyone?')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('refuses what it cannot relay: SCTP, and a host port already taken, leaving nothing behind', async () => {
    const sctp = await client
      .runPodSandbox({ ...sandboxConfig('sctp'), portMappings: [{ protocol: 'SCTP', hostPort: 9, containerPort: 10, hostIp: '' }] })
      .catch((e: CriError) => e);
    expect(sctp).toMatchObject({ code: 3, details: expect.stringContaining('protocol SCTP is not supported by the embedded runtime') });
    const [free, taken] = [await freePort(), await freePort()];
    const holder = await client.runPodSandbox({
      ...sandboxConfig('holder'),
      portMappings: [{ protocol: 'TCP', hostPort: taken, containerPort: 1, hostIp: '' }],
    });
    const before = (await client.listPodSandbox()).length;
    const clash = await client
      .runPodSandbox({
        ...sandboxConfig('clash'),
        portMappings: [
          { protocol: 'TCP', hostPort: free, containerPort: 1, hostIp: '' },
          { protocol: 'TCP', hostPort: taken, containerPort: 2, hostIp: '' },
        ],
      })
      .catch((e: CriError) => e);
    expect(clash).toMatchObject({
      code: 2,
      details: expect.stringContaining(`cannot listen on host port 0.0.0.0:${taken}/TCP for container port 2`),
    });
    expect((await client.listPodSandbox()).length).toBe(before);
    // The first mapping of the refused sandbox was closed again.
    await expect(roundTrip(free, 'x')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await client.stopPodSandbox(holder);
  });
});
