import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CriError, GrpcCode } from '../../cri/errors.js';
import type { ImageService, RuntimeService } from '../../cri/runtime-service.js';
import type { Container, ContainerStats as CriContainerStats, PodSandbox, PodSandboxStats } from '../../cri/types.js';
import { KubeletLabels } from '../../cri/types.js';
import type { Clock } from '../../util/clock.js';
import { NodeNameLabel } from '../kuberuntime/labels.js';
import { diskUsage } from '../../util/disk-usage.js';
import { readBootTime, readFsUsage, readHostCpu, readHostMemory, readRlimit, type FsUsage } from './host.js';
import type { ContainerStats, CPUStats, FsStats, MemoryStats, NodeStats, PodStats, Summary, VolumeStats } from './types.js';
import { compareStrings } from '../../util/compare.js';

export interface SummaryProviderOptions {
  runtime: RuntimeService & ImageService;
  clock: Clock;
  nodeName: string;
  rootDir: string;
  podLogsDir: string;
  /** A pod's volumes directory (`<root>/kubelet/pods/<uid>/volumes`). */
  volumesDir: (uid: string) => string;
  /** When knode started, for the `kubelet` system container. */
  startedAt: number;
  /** Every pod the runtime holds, not only this node's (`knode top` without a running node). */
  allNodes?: boolean;
}

/** How long after a request for usage the provider keeps reading it every refresh period. */
export const WARM_FOR_MS = 5 * 60_000;
/** The longest window a CPU rate is computed over: an older reading says little about now. */
export const RATE_WINDOW_MAX_MS = 30_000;

/** A running container or sandbox as the runtime lists it, with its usage. */
interface Sample {
  sandbox: PodSandbox;
  stats: PodSandboxStats['linux'] | undefined;
  containers: { container: Container; stats: CriContainerStats | undefined }[];
}

/**
 * The kubelet's stats provider for the CRI (cri_stats_provider): pod and
 * container usage from the runtime's ListPodSandboxStats, or, where the runtime
 * lacks it (containerd 1.6), from ListContainerStats summed per sandbox; the
 * node from /proc and statfs; disk usage of logs and volumes by walking them.
 * A runtime that leaves usageNanoCores out gets it computed here, between two
 * readings of the cumulative CPU time, as the kubelet's cpu usage cache does.
 */
export class SummaryProvider {
  private readonly rates = new Map<string, { atNs: number; cpu: number }>();
  private sandboxStatsMissing = false;
  /** When usage was last asked for (get). */
  private askedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly opts: SummaryProviderOptions) {}

  async get(onlyCpuAndMemory = false): Promise<Summary> {
    const now = this.opts.clock.now();
    this.askedAt = now;
    const time = new Date(now).toISOString();
    const samples = await this.sample();
    const imageFs = onlyCpuAndMemory ? undefined : await this.imageFs(time);
    const rootFs = readFsUsage(this.opts.rootDir);
    const pods = samples.map((s) => this.podStats(s, time, onlyCpuAndMemory, rootFs, imageFs));
    return { node: this.nodeStats(now, time, onlyCpuAndMemory, rootFs, imageFs), pods };
  }

  /**
   * The node's memory, file systems and PIDs, without a pod's usage: what the
   * eviction manager reads every period. Listing every pod's stats is left to
   * the moment a pod must be chosen, and does not warm the provider.
   */
  async nodeSignals(): Promise<Pick<NodeStats, 'memory' | 'fs' | 'runtime' | 'rlimit'>> {
    const time = new Date(this.opts.clock.now()).toISOString();
    const mem = readHostMemory();
    const rootFs = readFsUsage(this.opts.rootDir);
    const imageFs = await this.imageFs(time);
    return {
      memory: mem && { time, availableBytes: mem.capacityBytes - mem.workingSetBytes, workingSetBytes: mem.workingSetBytes },
      fs: rootFs && { time, ...rootFs },
      runtime: { imageFs, containerFs: imageFs },
      rlimit: { time, ...readRlimit() },
    };
  }

  /**
   * Reads usage without building a summary, as the kubelet's eviction manager does
   * every 10 s, so that each pod's and container's CPU rate is over the last
   * period, not since whoever asked before. Only while someone reads usage (a
   * metrics-server scrapes every 15 s; `knode top`): for WARM_FOR_MS after the
   * last request. A node nobody watches lists no stats (at 1,000 pods that was a
   * third of knode's idle CPU, and more of the runtime's); its first request gets
   * no rate (CPU unknown), and `knode top` reads again a second later.
   */
  async refresh(): Promise<void> {
    if (this.opts.clock.now() - this.askedAt > WARM_FOR_MS) return;
    const time = new Date(this.opts.clock.now()).toISOString();
    for (const s of await this.sample()) {
      this.cpu(`pod/${s.sandbox.id}`, time, s.stats?.cpu ?? undefined);
      for (const { container, stats } of s.containers) this.cpu(container.id, time, stats?.cpu);
    }
    const host = readHostCpu();
    if (host) this.nanoCores('node', this.opts.clock.now() * 1e6, host.usageCoreNanoSeconds);
  }

  private async sample(): Promise<Sample[]> {
    const mine = this.selector();
    const [sandboxes, containers] = await Promise.all([
      this.opts.runtime.listPodSandbox({ labelSelector: mine }),
      this.opts.runtime.listContainers({ labelSelector: mine, state: { state: 'CONTAINER_RUNNING' } }),
    ]);
    // The latest sandbox of each pod (the kubelet's removeTerminatedPods), ready ones first.
    const latest = new Map<string, PodSandbox>();
    for (const s of sandboxes) {
      const uid = s.metadata?.uid ?? s.labels[KubeletLabels.podUid];
      const seen = latest.get(uid);
      const ready = (x: PodSandbox) => (x.state === 'SANDBOX_READY' ? 1 : 0);
      if (!seen || ready(s) > ready(seen) || (ready(s) === ready(seen) && s.createdAt > seen.createdAt)) latest.set(uid, s);
    }
    const bySandbox = await this.usage([...latest.values()]);
    const running = groupBy(containers, (c) => c.podSandboxId);
    // The rates of containers and pods that are gone go with them.
    const live = new Set(['node', 'kubelet', ...[...latest.values()].map((x) => `pod/${x.id}`), ...containers.map((c) => c.id)]);
    for (const id of this.rates.keys()) if (!live.has(id)) this.rates.delete(id);
    return [...latest.values()].map((sandbox) => {
      const usage = bySandbox.get(sandbox.id);
      const stats = new Map((usage?.linux?.containers ?? []).map((cs) => [cs.attributes?.id, cs]));
      return {
        sandbox,
        stats: usage?.linux,
        containers: (running.get(sandbox.id) ?? []).map((container) => ({ container, stats: stats.get(container.id) })),
      };
    });
  }

  /** Usage per sandbox id, from ListPodSandboxStats or, failing that, ListContainerStats. */
  private async usage(sandboxes: PodSandbox[]): Promise<Map<string, PodSandboxStats>> {
    if (!this.sandboxStatsMissing) {
      try {
        const stats = await this.opts.runtime.listPodSandboxStats({ labelSelector: this.selector() });
        return new Map(stats.map((s) => [s.attributes?.id ?? '', s]));
      } catch (err) {
        // containerd 1.6 has no ListPodSandboxStats; containerd 2 fails it for a sandbox without a
        // cgroup parent (knode sets none: no QoS cgroups). Either way the containers' stats remain.
        if (err instanceof CriError && err.code === GrpcCode.UNIMPLEMENTED) this.sandboxStatsMissing = true;
      }
    }
    const stats = groupBy(
      await this.opts.runtime.listContainerStats({ labelSelector: this.selector() }),
      (s) => s.attributes?.labels[KubeletLabels.podUid],
    );
    const out = new Map<string, PodSandboxStats>();
    for (const sandbox of sandboxes) {
      const mine = stats.get(sandbox.metadata?.uid) ?? [];
      const sum = (pick: (c: CriContainerStats) => number | undefined) => mine.reduce((n, c) => n + (pick(c) ?? 0), 0);
      const ts = Math.max(0, ...mine.map((c) => c.cpu?.timestamp ?? 0));
      out.set(sandbox.id, {
        attributes: { id: sandbox.id, metadata: sandbox.metadata, labels: sandbox.labels, annotations: sandbox.annotations },
        linux: {
          cpu: { timestamp: ts, usageCoreNanoSeconds: { value: sum((c) => c.cpu?.usageCoreNanoSeconds?.value) }, usageNanoCores: null },
          memory: {
            timestamp: ts,
            workingSetBytes: { value: sum((c) => c.memory?.workingSetBytes?.value) },
            usageBytes: { value: sum((c) => c.memory?.usageBytes?.value) },
            rssBytes: { value: sum((c) => c.memory?.rssBytes?.value) },
            availableBytes: null,
            pageFaults: null,
            majorPageFaults: null,
          },
          process: null,
          containers: mine,
        },
      });
    }
    return out;
  }

  /** This node's sandboxes and containers: a runtime may be shared with other nodes. */
  private selector(): Record<string, string> {
    return this.opts.allNodes ? {} : { [NodeNameLabel]: this.opts.nodeName };
  }

  private podStats(
    s: Sample,
    time: string,
    onlyCpuAndMemory: boolean,
    rootFs: FsUsage | undefined,
    imageFs: FsStats | undefined,
  ): PodStats {
    const meta = s.sandbox.metadata!;
    const podRef = { name: meta.name, namespace: meta.namespace, uid: meta.uid };
    const logsDir = join(this.opts.podLogsDir, `${meta.namespace}_${meta.name}_${meta.uid}`);
    const containers = s.containers.map(({ container, stats }) => {
      const name = container.metadata?.name ?? container.labels[KubeletLabels.containerName];
      const out: ContainerStats = {
        name,
        startTime: new Date(container.createdAt / 1e6).toISOString(),
        cpu: this.cpu(container.id, time, stats?.cpu),
        memory: memory(time, stats?.memory),
      };
      if (!onlyCpuAndMemory) {
        out.rootfs = {
          ...imageFs,
          time,
          usedBytes: stats?.writableLayer?.usedBytes?.value ?? 0,
          inodesUsed: stats?.writableLayer?.inodesUsed?.value ?? 0,
        };
        out.logs = { ...fsCapacity(rootFs), time, ...diskUsage(join(logsDir, name)) };
      }
      return out;
    });
    const pod: PodStats = {
      podRef,
      startTime: new Date(s.sandbox.createdAt / 1e6).toISOString(),
      containers,
      cpu: this.cpu(`pod/${s.sandbox.id}`, time, s.stats?.cpu ?? undefined),
      memory: memory(time, s.stats?.memory ?? undefined),
    };
    if (s.stats?.process?.processCount) pod.process_stats = { process_count: s.stats.process.processCount.value };
    if (!onlyCpuAndMemory) {
      const volumes = this.volumes(meta.uid, time, rootFs);
      pod.volume = volumes;
      // Ephemeral storage: writable layers, logs and the pod's own volumes (emptyDir, configMap ...).
      const used = [
        ...containers.map((c) => (c.rootfs?.usedBytes ?? 0) + (c.logs?.usedBytes ?? 0)),
        ...volumes.map((v) => v.usedBytes ?? 0),
      ].reduce((a, b) => a + b, 0);
      const inodes = [
        ...containers.map((c) => (c.rootfs?.inodesUsed ?? 0) + (c.logs?.inodesUsed ?? 0)),
        ...volumes.map((v) => v.inodesUsed ?? 0),
      ].reduce((a, b) => a + b, 0);
      pod['ephemeral-storage'] = { ...fsCapacity(rootFs), time, usedBytes: used, inodesUsed: inodes };
    }
    return pod;
  }

  /** Every volume directory of the pod (`volumes/<plugin>/<name>`): what it holds. */
  private volumes(uid: string, time: string, rootFs: FsUsage | undefined): VolumeStats[] {
    const dir = this.opts.volumesDir(uid);
    if (!existsSync(dir)) return [];
    const out: VolumeStats[] = [];
    for (const plugin of readdirSync(dir)) {
      let names: string[];
      try {
        names = readdirSync(join(dir, plugin));
      } catch {
        continue;
      }
      for (const name of names) out.push({ name, ...fsCapacity(rootFs), time, ...diskUsage(join(dir, plugin, name)) });
    }
    return out.sort((a, b) => compareStrings(a.name, b.name));
  }

  private nodeStats(
    now: number,
    time: string,
    onlyCpuAndMemory: boolean,
    rootFs: FsUsage | undefined,
    imageFs: FsStats | undefined,
  ): Summary['node'] {
    const host = readHostCpu();
    const mem = readHostMemory();
    const boot = readBootTime();
    const own = process.cpuUsage();
    const ownCpu = (own.user + own.system) * 1000;
    const rss = process.memoryUsage().rss;
    const node: Summary['node'] = {
      nodeName: this.opts.nodeName,
      systemContainers: [
        {
          name: 'kubelet',
          startTime: new Date(this.opts.startedAt).toISOString(),
          cpu: { time, usageCoreNanoSeconds: ownCpu, ...nanoCores(this.nanoCores('kubelet', now * 1e6, ownCpu)) },
          memory: { time, usageBytes: rss, workingSetBytes: rss, rssBytes: rss },
        },
      ],
      startTime: new Date(boot ?? this.opts.startedAt).toISOString(),
      cpu: host
        ? {
            time,
            usageCoreNanoSeconds: host.usageCoreNanoSeconds,
            ...nanoCores(this.nanoCores('node', now * 1e6, host.usageCoreNanoSeconds)),
          }
        : undefined,
      memory: mem
        ? {
            time,
            availableBytes: mem.capacityBytes - mem.workingSetBytes,
            usageBytes: mem.usageBytes,
            workingSetBytes: mem.workingSetBytes,
            rssBytes: mem.rssBytes,
            pageFaults: mem.pageFaults,
            majorPageFaults: mem.majorPageFaults,
          }
        : undefined,
    };
    if (!onlyCpuAndMemory) {
      node.fs = rootFs ? { time, ...rootFs } : undefined;
      node.runtime = { imageFs, containerFs: imageFs };
      node.rlimit = { time, ...readRlimit() };
    }
    return node;
  }

  /** The image filesystem: usage as the runtime reports it, capacity of the filesystem it names. */
  private async imageFs(time: string): Promise<FsStats | undefined> {
    try {
      const info = await this.opts.runtime.imageFsInfo();
      const fs = info.imageFilesystems[0];
      if (!fs) return undefined;
      const mount = fs.fsId?.mountpoint;
      const capacity = mount ? readFsUsage(mount) : undefined;
      return { time, ...fsCapacity(capacity), usedBytes: fs.usedBytes?.value ?? 0, inodesUsed: fs.inodesUsed?.value ?? 0 };
    } catch {
      return undefined;
    }
  }

  private cpu(id: string, time: string, cpu: CriContainerStats['cpu'] | undefined): CPUStats | undefined {
    if (!cpu) return undefined;
    const total = cpu.usageCoreNanoSeconds?.value ?? 0;
    const computed = this.nanoCores(id, cpu.timestamp || this.opts.clock.now() * 1e6, total);
    const given = cpu.usageNanoCores?.value;
    return { time, usageCoreNanoSeconds: total, ...nanoCores(given ? given : computed) };
  }

  /** The CPU rate since this id's previous reading, in nano-cores; undefined for a first reading, or after one too old to say what the rate is now. */
  private nanoCores(id: string, atNs: number, total: number): number | undefined {
    const previous = this.rates.get(id);
    if (previous && atNs === previous.atNs) return undefined;
    this.rates.set(id, { atNs, cpu: total });
    if (!previous || atNs < previous.atNs || total < previous.cpu || atNs - previous.atNs > RATE_WINDOW_MAX_MS * 1e6) return undefined;
    return Math.round(((total - previous.cpu) / (atNs - previous.atNs)) * 1e9);
  }
}

function nanoCores(value: number | undefined): { usageNanoCores?: number } {
  return value === undefined ? {} : { usageNanoCores: value };
}

function memory(time: string, m: CriContainerStats['memory'] | undefined): MemoryStats | undefined {
  if (!m) return undefined;
  const out: MemoryStats = { time };
  if (m.workingSetBytes) out.workingSetBytes = m.workingSetBytes.value;
  if (m.usageBytes) out.usageBytes = m.usageBytes.value;
  if (m.rssBytes) out.rssBytes = m.rssBytes.value;
  if (m.availableBytes) out.availableBytes = m.availableBytes.value;
  if (m.pageFaults) out.pageFaults = m.pageFaults.value;
  if (m.majorPageFaults) out.majorPageFaults = m.majorPageFaults.value;
  return out;
}

function fsCapacity(fs: FsUsage | undefined): { capacityBytes?: number; availableBytes?: number; inodes?: number; inodesFree?: number } {
  return fs ? { capacityBytes: fs.capacityBytes, availableBytes: fs.availableBytes, inodes: fs.inodes, inodesFree: fs.inodesFree } : {};
}

function groupBy<T, K>(items: T[], key: (item: T) => K): Map<K, T[]> {
  const out = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}
