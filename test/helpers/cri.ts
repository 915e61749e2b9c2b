import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CriClient } from '../../src/cri/client.js';
import type { ContainerConfig, ContainerStatus, PodSandboxConfig } from '../../src/cri/types.js';
import { eventually } from './runtimes.js';

/** The image both runtimes have: containerd imports it in setup, the embedded runtime records it on pull. */
export const TEST_IMAGE = 'busybox:1.36';

export async function ensureImage(client: CriClient, image = TEST_IMAGE): Promise<void> {
  if (!(await client.imageStatus({ image }))) await client.pullImage({ image });
}

export function sandboxConfig(name: string, labels: Record<string, string> = {}): PodSandboxConfig {
  return {
    metadata: { name, uid: randomUUID(), namespace: 'knode-test', attempt: 0 },
    logDirectory: mkdtempSync(join(tmpdir(), 'knode-logs-')),
    labels: { 'knode.test/suite': 'cri', ...labels },
    linux: { securityContext: { namespaceOptions: { network: 'NODE' } } },
  };
}

/**
 * A sandbox as the kubelet makes one for a pod off the host's network: its
 * own namespaces, named HOSTNAME (a host-network pod's stays in the node's
 * UTS namespace, with the node's hostname).
 */
export function ownSandboxConfig(name: string, hostname = name): PodSandboxConfig {
  return { ...sandboxConfig(name), hostname, linux: { securityContext: { namespaceOptions: { network: 'POD' } } } };
}

export function containerConfig(name: string, command: string[], extra: Partial<ContainerConfig> = {}): ContainerConfig {
  return {
    metadata: { name, attempt: 0 },
    image: { image: TEST_IMAGE },
    command,
    logPath: `${name}/0.log`,
    ...extra,
  };
}

export async function runContainer(
  client: CriClient,
  sandboxId: string,
  sandbox: PodSandboxConfig,
  config: ContainerConfig,
): Promise<string> {
  const id = await client.createContainer(sandboxId, config, sandbox);
  await client.startContainer(id);
  return id;
}

export async function waitExited(client: CriClient, id: string, timeoutMs = 10_000): Promise<ContainerStatus> {
  return eventually(
    async () => {
      const status = (await client.containerStatus(id)).status;
      return status?.state === 'CONTAINER_EXITED' ? status : undefined;
    },
    `container ${id} to exit`,
    timeoutMs,
  );
}

export function logPathOf(sandbox: PodSandboxConfig, container: ContainerConfig): string {
  return join(sandbox.logDirectory!, container.logPath!);
}

/** Lines a container wrote, from its CRI log (each line's time, stream and tag cut off). */
export function loggedLines(sandbox: PodSandboxConfig, container: ContainerConfig): string[] {
  return readFileSync(logPathOf(sandbox, container), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' ').slice(3).join(' '));
}

/** Runs one container to its end in a new pod named POD (its hostname too); what it wrote, and its exit code. */
export async function runPodToEnd(
  client: CriClient,
  pod: string,
  config: ContainerConfig,
  sandboxExtra: Partial<PodSandboxConfig> = {},
): Promise<{ lines: string[]; exitCode: number }> {
  const sandbox = { ...ownSandboxConfig(pod), ...sandboxExtra };
  const sandboxId = await client.runPodSandbox(sandbox);
  const id = await client.createContainer(sandboxId, config, sandbox);
  await client.startContainer(id);
  const status = await waitExited(client, id);
  return { lines: loggedLines(sandbox, config), exitCode: status.exitCode };
}
