// What sandboxes cost per container on the embedded runtime (issue: real
// images in sandboxes): the same real image, pulled from a local
// docker-registry, run by four runtimes at once: two with sandboxes (root
// file system per container, the pod's namespaces) on the host's network,
// their containers set up by util-linux (no no_new_privs, the default) and
// by bwrap (no_new_privs); one with sandboxes on a CNI pod network (Debian's
// bridge and host-local plugins: a network namespace and an IP per pod); and
// one with `--sandbox off` (host processes). Pods one at a time, in turn
// across the runtimes, each RunPodSandbox + CreateContainer + StartContainer
// timed over CRI.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CriClient } from '../src/cri/client.js';
import type { ContainerConfig, PodSandboxConfig } from '../src/cri/types.js';
import { mirrorConfig, startRegistry } from '../test/helpers/registry.js';
import { startEmbedded } from './runtimes.js';
import { median, ms, percentile, table, timed } from './stats.js';

const IMAGE = 'busybox:1.36';

export interface SandboxFigures {
  mode: 'sandboxes' | 'sandboxes, no_new_privs' | 'pod network' | 'host processes';
  /** The first container of the image (its layers stacked once), then the rest. */
  first: number;
  sandbox: number[];
  create: number[];
  start: number[];
  total: number[];
}

const BRIDGE = 'knode-bench0';

/** The pod network of the 'pod network' runtime. */
const conflist = (ipam: string) =>
  JSON.stringify({
    cniVersion: '1.0.0',
    name: 'bench',
    plugins: [
      {
        type: 'bridge',
        bridge: BRIDGE,
        isGateway: true,
        ipam: { type: 'host-local', ranges: [[{ subnet: '10.92.0.0/16' }]], routes: [{ dst: '0.0.0.0/0' }], dataDir: ipam },
      },
    ],
  });

/** One runtime of the comparison: its pods are measured in turn with the others' (measure). */
interface Side {
  figures: SandboxFigures;
  /** Measures pod `i` (the first, 0, apart). */
  pod(i: number): Promise<void>;
  close(): Promise<void>;
}

async function side(mode: SandboxFigures['mode'], registries: string): Promise<Side> {
  const ipam = mkdtempSync(join(tmpdir(), 'knode-bench-ipam-'));
  const rt = await startEmbedded({
    registries,
    sandbox: mode === 'host processes' ? 'off' : 'auto',
    cni: mode === 'pod network' ? conflist(ipam) : undefined,
    name: mode,
  });
  const client = new CriClient(rt.endpoint);
  const logs = mkdtempSync(join(tmpdir(), 'knode-bench-sandbox-logs-'));
  const figures: SandboxFigures = { mode, first: 0, sandbox: [], create: [], start: [], total: [] };
  const sandboxes: string[] = [];
  await client.pullImage({ image: IMAGE });
  return {
    figures,
    pod: async (i) => {
      const config: PodSandboxConfig = {
        metadata: { name: `sbx-${i}`, uid: randomUUID(), namespace: 'bench', attempt: 0 },
        hostname: `sbx-${i}`,
        logDirectory: join(logs, String(i)),
        linux: { securityContext: { namespaceOptions: { network: mode === 'pod network' ? 'POD' : 'NODE', pid: 'CONTAINER' } } },
      };
      const container: ContainerConfig = {
        metadata: { name: 'app', attempt: 0 },
        image: { image: IMAGE },
        command: ['sleep', '3600'],
        logPath: 'app/0.log',
        // With no_new_privs bwrap runs it; without, util-linux sets it up as runc does (mount-sandbox.ts).
        linux: { securityContext: { namespaceOptions: { pid: 'CONTAINER' }, noNewPrivs: mode === 'sandboxes, no_new_privs' } },
      };
      const t0 = performance.now();
      const sb = await client.runPodSandbox(config);
      const sandboxMs = performance.now() - t0;
      sandboxes.push(sb);
      const create: number[] = [];
      const id = await timed(create, () => client.createContainer(sb, container, config));
      const start: number[] = [];
      await timed(start, () => client.startContainer(id));
      const total = performance.now() - t0;
      if (i === 0) {
        figures.first = total;
        return;
      }
      figures.sandbox.push(sandboxMs);
      figures.create.push(create[0]);
      figures.start.push(start[0]);
      figures.total.push(total);
    },
    close: async () => {
      for (const sb of sandboxes) await client.removePodSandbox(sb).catch(() => {});
      client.close();
      await rt.stop();
      rmSync(logs, { recursive: true, force: true });
      rmSync(ipam, { recursive: true, force: true });
      if (mode === 'pod network') spawnSync('ip', ['link', 'delete', BRIDGE], { stdio: 'ignore' });
    },
  };
}

/**
 * How long the machine is left alone after each pod: what a runtime does
 * once a pod has started is done then, as on a node with one runtime, not in
 * the middle of the next runtime's pod, which it slowed (the host processes'
 * median, when the sandboxed runtimes' spawners began to make spare shells
 * again 30 ms after a start: bench/notes/sandboxes.md). The longest such
 * wait is the host processes' spares, 250 ms after a start.
 */
const PAUSE_MS = Number(process.env.KNODE_BENCH_SANDBOX_PAUSE_MS ?? 300);

/**
 * Every mode's runtime at once, their pods in turn (pod i of each, in an
 * order that rotates with i): what slows the machine for a while slows all
 * of them, so the differences between them hold where one mode after the
 * other swung widely (bench/notes/sandboxes.md).
 */
async function measure(modes: readonly SandboxFigures['mode'][], registries: string, pods: number): Promise<SandboxFigures[]> {
  const sides: Side[] = [];
  try {
    for (const mode of modes) sides.push(await side(mode, registries));
    for (let i = 0; i <= pods; i++) {
      for (let k = 0; k < sides.length; k++) {
        await sides[(i + k) % sides.length].pod(i);
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      }
    }
    return sides.map((s) => s.figures);
  } finally {
    for (const s of sides) await s.close();
  }
}

export async function benchSandboxes(pods = 50): Promise<SandboxFigures[]> {
  const registry = startRegistry();
  try {
    // A pod network needs root (its namespaces and its bridge).
    const network = process.getuid?.() === 0 ? (['pod network'] as const) : [];
    return await measure(['sandboxes', 'sandboxes, no_new_privs', ...network, 'host processes'], mirrorConfig(registry.host), pods);
  } finally {
    registry.stop();
  }
}

export function reportSandboxes(figures: SandboxFigures[]): string {
  const rows = figures.map((f) => [
    f.mode,
    String(f.total.length),
    ms(f.first),
    ms(median(f.sandbox)),
    ms(median(f.create)),
    ms(median(f.start)),
    ms(median(f.total)),
    ms(percentile(f.total, 99)),
  ]);
  const of = (mode: SandboxFigures['mode']) => figures.find((f) => f.mode === mode);
  const sandboxed = of('sandboxes')!;
  const host = of('host processes')!;
  const network = of('pod network');
  const added = median(sandboxed.total) - median(host.total);
  const bwrap = of('sandboxes, no_new_privs')!;
  return [
    table(['containers', 'pods', 'first pod', 'sandbox p50', 'create p50', 'start p50', 'sandbox+create+start p50', 'p99'], rows),
    '',
    `sandboxes add ${ms(added)} per container at the median (goal: <= 10 ms); with no_new_privs (bwrap) ${ms(median(bwrap.total) - median(host.total))}`,
    ...(network
      ? [
          `a pod network adds ${ms(median(network.sandbox) - median(sandboxed.sandbox))} to RunPodSandbox at the median (its namespace, loopback and the bridge plugin's ADD)`,
        ]
      : []),
  ].join('\n');
}
