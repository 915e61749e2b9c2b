import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { CriClient } from '../../src/cri/client.js';
import type { Pod, PodSpec } from '../../src/engine/api/v1.js';
import type { ClusterClient } from '../../src/engine/cluster/client.js';
import { defaultKubeletConfiguration, type KubeletConfiguration } from '../../src/engine/config/kubelet-config.js';
import type { LifecycleEvent } from '../../src/engine/events.js';
import { Kubelet } from '../../src/engine/kubelet.js';
import type { Clock } from '../../src/util/clock.js';
import { beforeAll, afterEach, afterAll } from 'vitest';
import { ensureImage } from './cri.js';
import { eventually, type RuntimeUnderTest } from './runtimes.js';

let nodes = 0;

export interface TestNode {
  kubelet: Kubelet;
  client: CriClient;
  /** The runtime's endpoint, for calls beside CRI (image import). */
  endpoint: string;
  /** The node's root dir; a node started with `reuse` of this one has the same. */
  root: string;
  podsDir: string;
  nodeName: string;
  events: LifecycleEvent[];
  /** The pod's lifecycle events, one short line each (failures with their message), for a failing test to print. */
  eventsOf(name: string): string;
  /** The pod as the API shows it now, by its manifest name (without the node suffix). */
  pod(name: string): Pod | undefined;
  /** Polls until the pod's status passes `check`. */
  waitForPod(name: string, what: string, check: (pod: Pod) => boolean, timeoutMs?: number): Promise<Pod>;
  writePod(name: string, spec: PodSpec, extra?: Partial<Pod['metadata']>): string;
  removePod(name: string): void;
  stop(): Promise<void>;
}

/**
 * A kubelet in this process, on a runtime over real gRPC, with its own
 * static pod dir and a node name of its own (so nodes sharing a runtime
 * leave each other's pods alone).
 */
export async function startNode(
  endpoint: string,
  options: { clock?: Clock; config?: Partial<KubeletConfiguration>; cluster?: ClusterClient; reuse?: TestNode } = {},
): Promise<TestNode> {
  // A node started with `reuse` is the same node after a restart: its root dir, pod dir and name.
  const root = options.reuse?.root ?? mkdtempSync(join(tmpdir(), 'knode-node-'));
  const podsDir = join(root, 'pods');
  const nodeName = options.reuse?.nodeName ?? `node-${process.pid}-${++nodes}`;
  const config = defaultKubeletConfiguration(root, { nodeName, staticPodPath: podsDir, fileCheckFrequency: 1_000, ...options.config });
  const client = new CriClient(endpoint);
  const kubelet = new Kubelet(config, {
    runtime: client,
    clock: options.clock,
    random: () => 0,
    cluster: options.cluster,
    version: '0.0.0-test',
  });
  const events: LifecycleEvent[] = [];
  kubelet.events.subscribe((e) => events.push(e));
  const fullName = (name: string) => `${name}-${nodeName}`;
  const pod = (name: string) => kubelet.podsWithStatus().find((p) => p.metadata.name === fullName(name));
  const eventsOf = (name: string) =>
    events
      .filter((e) => e.pod.endsWith(`/${fullName(name)}`))
      .map((e) => {
        const failed = e.type.endsWith('Failed') || e.type === 'ContainerWaiting';
        const why = failed && e.message ? ` "${e.message.slice(0, 160)}"` : '';
        return `${e.at} ${e.type}${e.container ? ` ${e.container}` : ''}${e.reason ? ` ${e.reason}` : ''}${why}`;
      })
      .join(', ');
  const node: TestNode = {
    kubelet,
    client,
    endpoint,
    root,
    podsDir,
    nodeName,
    events,
    eventsOf,
    pod,
    waitForPod: (name, what, check, timeoutMs = 20_000) =>
      eventually(
        () => {
          const p = pod(name);
          return p && check(p) ? p : undefined;
        },
        () => `pod ${name} to be ${what} (last status: ${JSON.stringify(pod(name)?.status ?? null)}; its events: ${eventsOf(name)})`,
        timeoutMs,
      ),
    writePod: (name, spec, extra = {}) => {
      const file = join(podsDir, `${name}.yaml`);
      writeFileSync(file, stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name, ...extra }, spec }));
      return file;
    },
    removePod: (name) => rmSync(join(podsDir, `${name}.yaml`)),
    stop: async () => {
      await kubelet.stop();
      client.close();
    },
  };
  mkdirSync(podsDir, { recursive: true });
  await kubelet.start();
  return node;
}

/**
 * A container command that sleeps, and ends at once on SIGTERM. A container's
 * program is PID 1 of its PID namespace, where a SIGTERM it has no handler
 * for is ignored (sleep has none): stopping a bare sleep takes the whole
 * grace period and ends in SIGKILL, as with the kubelet.
 */
export function sleepUntilTerm(seconds = 300): string[] {
  return ['sh', '-c', `trap "exit 143" TERM; sleep ${seconds} & wait`];
}

/** The container of a pod's status, by name. */
export function containerOf(pod: Pod, name: string) {
  return [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].find((c) => c.name === name);
}

/** A runtime for a describe block, and nodes on it that each test starts and that stop after it. */
export function nodesOn(runtime: RuntimeUnderTest) {
  let endpoint = '';
  let cleanup: () => Promise<void> = async () => {};
  let current: TestNode | undefined;
  beforeAll(async () => {
    ({ endpoint, cleanup } = await runtime.start());
    const client = new CriClient(endpoint);
    await ensureImage(client);
    client.close();
  });
  afterEach(async () => {
    await current?.stop();
    current = undefined;
  });
  afterAll(async () => cleanup());
  return {
    start: async (options: Parameters<typeof startNode>[1] = {}) => (current = await startNode(endpoint, options)),
    /** Starts NODE again, as a restarted knode (it must have been stopped). */
    restart: async (node: TestNode) => (current = await startNode(endpoint, { reuse: node })),
  };
}
