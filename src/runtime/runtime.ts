import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ContainerStats } from '../cri/gen/runtime/v1/ContainerStats.js';
import type { ContainerStatsFilter__Output } from '../cri/gen/runtime/v1/ContainerStatsFilter.js';
import type { PodSandboxStats } from '../cri/gen/runtime/v1/PodSandboxStats.js';
import type { PodSandboxStatsFilter__Output } from '../cri/gen/runtime/v1/PodSandboxStatsFilter.js';
import type { FilesystemUsage } from '../cri/gen/runtime/v1/FilesystemUsage.js';
import type { StatusResponse } from '../cri/gen/runtime/v1/StatusResponse.js';
import type { VersionResponse } from '../cri/gen/runtime/v1/VersionResponse.js';
import { ContainerSandboxReady } from '../cri/types.js';
import { Cgroups } from './cgroups.js';
import { ContainerService } from './containers.js';
import { ContainerStreams } from './container-streams.js';
import { matchesLabels } from './convert.js';
import { ContainerEventHub } from './events.js';
import { nowNs } from './ids.js';
import { ImageStore, type RuntimeImages } from './images.js';
import { PidNamespaces } from './pid-namespaces.js';
import { startHostProbes, takeHostProbes } from './host-probes.js';
import { OciImageStore } from './oci/image-store.js';
import { loadRegistryConfig } from './oci/registry-config.js';
import type { ContainerRecord } from './records.js';
import { SandboxService } from './sandboxes.js';
import { ImageSandboxes, type SandboxSetting } from './sandbox/image-sandboxes.js';
import { RuntimeState } from './state.js';
import { PodNetwork } from './network/pod-network.js';
import { readProcStat } from './proc.js';
import { CpuRate, usageByProcessGroup, withoutProcess, type GroupUsage } from './stats.js';
import { WritableLayers } from './writable-layers.js';

export const RUNTIME_NAME = 'knode';
export const RUNTIME_VERSION = '0.1.0';

export interface EmbeddedRuntimeOptions {
  /** The runtime's own directory (state, images); usually `<root-dir>/runtime`. */
  dir: string;
  warn?: (message: string) => void;
  /** Where the cgroup file system is (for resource limits); /sys/fs/cgroup by default. */
  cgroupRoot?: string;
  /**
   * `<root-dir>/registries.yaml`. When the file exists, images are real
   * (pulled from registries into `<dir>/images`); otherwise they are records.
   */
  registryConfig?: string;
  /** Bubblewrap sandboxes for containers of real images (`auto`, the default), or host processes always (`off`). */
  sandbox?: SandboxSetting;
  /** Where the CNI network configuration for pods' own networks is (`<root-dir>/cni/net.d`); none there: the host's network. */
  cniConfDir?: string;
  /** Where CNI plugins are looked for, in order. */
  cniBinDirs?: string[];
}

/** Where CNI plugins are unless told: the usual place, and Debian's. */
export const DEFAULT_CNI_BIN_DIRS = ['/opt/cni/bin', '/usr/lib/cni'];

/** How often state that a full or read-only disk refused is written again. */
const STATE_RETRY_MS = 5_000;

/**
 * The embedded CRI runtime: sandboxes, containers as host processes (each in
 * the PID namespace CRI asks for, where the host allows), images (records,
 * or real ones from registries), stats and events, with its state under one
 * directory so that a restarted runtime picks up where the last one stopped.
 */
export class EmbeddedRuntime {
  readonly state: RuntimeState;
  readonly images: RuntimeImages;
  readonly events = new ContainerEventHub();
  readonly containers: ContainerService;
  readonly sandboxes: SandboxService;
  /** Exec, Attach and PortForward, over the streaming server (listening once the runtime serves). */
  readonly streams: ContainerStreams;
  readonly cgroups: Cgroups;
  readonly pidNamespaces: PidNamespaces;
  readonly imageSandboxes: ImageSandboxes;
  readonly podNetwork: PodNetwork;
  private readonly cpu = new CpuRate();
  /** Processes per container at the last stats reading. */
  private readonly processCount = new Map<string, number>();
  /** What sandboxed containers wrote to their own root file systems. */
  private readonly writable: WritableLayers;
  private readonly flushTimer: NodeJS.Timeout;

  /** Starts a runtime: what its host can do is probed first, each question beside the others (host-probes.ts). */
  static async start(options: EmbeddedRuntimeOptions): Promise<EmbeddedRuntime> {
    // Read once at start: a changed registries.yaml takes effect when the runtime restarts.
    const images =
      options.registryConfig && existsSync(options.registryConfig)
        ? new OciImageStore(join(options.dir, 'images'), loadRegistryConfig(options.registryConfig))
        : new ImageStore(join(options.dir, 'images.json'));
    const sandboxes = !ImageSandboxes.notWanted(options.sandbox ?? 'auto', images);
    // Started as `runtime serve` booted, where it did; asked again where those did not ask about sandboxes.
    let probes = takeHostProbes(options.dir);
    if (!probes || (sandboxes && !probes.bubblewrap)) probes = startHostProbes(spawn, options.dir, sandboxes);
    const [pid, imageSandboxes] = await Promise.all([
      probes.pidNamespaces,
      ImageSandboxes.open(options.dir, images, options.sandbox ?? 'auto', probes),
    ]);
    return new EmbeddedRuntime(options, { images, pidNamespaces: new PidNamespaces(pid, join(options.dir, 'bin')), imageSandboxes });
  }

  private constructor(
    readonly options: EmbeddedRuntimeOptions,
    host: { images: RuntimeImages; pidNamespaces: PidNamespaces; imageSandboxes: ImageSandboxes },
  ) {
    const warn = options.warn ?? (() => {});
    this.state = new RuntimeState(
      join(options.dir, 'state'),
      (file, err) => warn(`skipping unreadable record ${file}: ${String(err)}`),
      (err) => warn(`${err.message}: the change is kept in memory and written when the disk takes it`),
    );
    this.flushTimer = setInterval(() => {
      if (this.state.unsavedCount > 0 && this.state.flush()) warn('the state a refused write kept in memory is on disk now');
    }, STATE_RETRY_MS).unref();
    this.images = host.images;
    this.cgroups = new Cgroups(options.cgroupRoot);
    this.pidNamespaces = host.pidNamespaces;
    if (!this.pidNamespaces.available) warn(`containers share the host's PID namespace: ${this.pidNamespaces.reason}`);
    this.imageSandboxes = host.imageSandboxes;
    this.writable = new WritableLayers((id) =>
      this.state.containers.get(id)?.sandboxed ? this.imageSandboxes.rootfs?.writableDir(id) : undefined,
    );
    if (this.images instanceof OciImageStore && !this.imageSandboxes.enabled)
      warn(`containers of real images run as ${this.imageSandboxes.describe()}`);
    this.containers = new ContainerService(
      this.state,
      this.images,
      this.events,
      this.cgroups,
      this.pidNamespaces,
      this.imageSandboxes,
      warn,
    );
    this.podNetwork = new PodNetwork({
      confDir: options.cniConfDir,
      binDirs: options.cniBinDirs ?? DEFAULT_CNI_BIN_DIRS,
      netnsDir: join(options.dir, 'netns'),
    });
    this.sandboxes = new SandboxService(this.state, this.containers, this.events, this.pidNamespaces, this.imageSandboxes, this.podNetwork);
    this.streams = new ContainerStreams(this.state, this.containers, warn);
    this.containers.recover();
    void this.sandboxes.recoverNetworks(warn);
    void this.sandboxes.releasePidNamespaces();
    void this.sandboxes.reopenHostPorts(warn);
  }

  version(): VersionResponse {
    return { version: '0.1.0', runtimeName: RUNTIME_NAME, runtimeVersion: RUNTIME_VERSION, runtimeApiVersion: 'v1' };
  }

  status(verbose: boolean): StatusResponse {
    return {
      status: {
        conditions: [{ type: 'RuntimeReady', status: true, reason: '', message: '' }, this.networkCondition(), ...this.sandboxCondition()],
      },
      // Recursive read-only mounts are made in sandboxes only.
      runtimeHandlers: [{ name: '', features: { recursiveReadOnlyMounts: this.imageSandboxes.enabled, userNamespaces: false } }],
      info: verbose
        ? {
            config: JSON.stringify({
              dir: this.options.dir,
              isolation: this.isolation(),
              network: this.networkCondition().message,
              spawning: this.containers.describeSpawning(),
              images: this.describeImages(),
              resourceLimits: this.cgroups.describe(),
            }),
          }
        : {},
    };
  }

  containerStats(filter: ContainerStatsFilter__Output | null): ContainerStats[] {
    const usage = usageByProcessGroup();
    const now = nowNs();
    const out: ContainerStats[] = [];
    for (const c of this.state.containers.values()) {
      if (filter) {
        if (filter.id && !c.id.startsWith(filter.id)) continue;
        if (filter.podSandboxId && !c.podSandboxId.startsWith(filter.podSandboxId)) continue;
        if (!matchesLabels(c.labels, filter.labelSelector)) continue;
      }
      const pid = this.containers.pidOf(c.id);
      let group = pid === undefined ? undefined : usage.get(pid);
      // The process that made its PID namespace (unshare, nsenter) leads the group but is not the container's.
      if (group && pid !== undefined && this.containers.isWrapped(c.id)) group = withoutProcess(group, readProcStat(pid));
      this.processCount.set(c.id, group?.processes ?? 0);
      out.push(this.statsOf(c, now, group));
    }
    if (!filter) this.writable.retain(new Set(this.state.containers.keys()));
    return out;
  }

  /** Each sandbox's usage: the sum of its containers', and its containers' own. */
  podSandboxStats(filter: PodSandboxStatsFilter__Output | null): PodSandboxStats[] {
    const containers = new Map(this.containerStats(null).map((c) => [c.attributes?.id ?? '', c]));
    const now = nowNs();
    return this.sandboxes.list(filter ? { id: filter.id, labelSelector: filter.labelSelector, state: null } : null).map((s) => {
      const mine = this.state.containersOf(s.id).map((c) => containers.get(c.id)!);
      const sum = (pick: (c: ContainerStats) => number | undefined) => mine.reduce((n, c) => n + (pick(c) ?? 0), 0);
      const processes = mine.reduce((n, c) => n + (this.processCount.get(c.attributes?.id ?? '') ?? 0), 0);
      return {
        attributes: { id: s.id, metadata: s.metadata, labels: s.labels, annotations: s.annotations },
        linux: {
          cpu: {
            timestamp: now,
            usageCoreNanoSeconds: { value: sum((c) => Number(c.cpu?.usageCoreNanoSeconds?.value ?? 0)) },
            usageNanoCores: { value: sum((c) => Number(c.cpu?.usageNanoCores?.value ?? 0)) },
          },
          memory: {
            timestamp: now,
            workingSetBytes: { value: sum((c) => Number(c.memory?.workingSetBytes?.value ?? 0)) },
            usageBytes: { value: sum((c) => Number(c.memory?.usageBytes?.value ?? 0)) },
            rssBytes: { value: sum((c) => Number(c.memory?.rssBytes?.value ?? 0)) },
          },
          process: { timestamp: now, processCount: { value: processes } },
          containers: mine,
        },
      };
    });
  }

  private statsOf(c: ContainerRecord, now: number, usage: GroupUsage | undefined): ContainerStats {
    const cpu = usage?.cpuNanoseconds ?? 0;
    const rss = usage?.rssBytes ?? 0;
    return {
      attributes: { id: c.id, metadata: c.metadata, labels: c.labels, annotations: c.annotations },
      cpu: {
        timestamp: now,
        usageCoreNanoSeconds: { value: cpu },
        usageNanoCores: { value: usage ? this.cpu.nanoCores(c.id, now, cpu) : 0 },
      },
      memory: { timestamp: now, workingSetBytes: { value: rss }, usageBytes: { value: rss }, rssBytes: { value: rss } },
      writableLayer: { timestamp: now, fsId: { mountpoint: this.options.dir }, ...this.writableLayerOf(c.id) },
    };
  }

  private writableLayerOf(id: string): { usedBytes: { value: number }; inodesUsed: { value: number } } {
    const { usedBytes, inodesUsed } = this.writable.usage(id);
    return { usedBytes: { value: usedBytes }, inodesUsed: { value: inodesUsed } };
  }

  /** What the image store takes on disk (for records, what the records say). */
  imageFsUsage(): FilesystemUsage {
    const usage = this.images.usage();
    return {
      timestamp: nowNs(),
      fsId: { mountpoint: this.images instanceof OciImageStore ? this.images.content.dir : this.options.dir },
      usedBytes: { value: usage.bytes },
      inodesUsed: { value: usage.inodes },
    };
  }

  /** NetworkReady: pods share the host's network, or get their own from the CNI network configured (not ready if it is broken). */
  networkCondition(): { type: string; status: boolean; reason: string; message: string } {
    const c = this.podNetwork.condition();
    if (c.network && !this.imageSandboxes.enabled) {
      return {
        type: 'NetworkReady',
        status: true,
        reason: '',
        message: `pods share the host network: a pod network needs sandboxes (${this.imageSandboxes.describe()})`,
      };
    }
    return { type: 'NetworkReady', status: c.ready, reason: c.reason, message: c.message };
  }

  /**
   * With real images, whether their containers get sandboxes: a runtime
   * condition of knode's own (the kubelet passes over types it does not
   * know; knode makes it a node condition and says when it changes).
   */
  private sandboxCondition(): { type: string; status: boolean; reason: string; message: string }[] {
    if (!(this.images instanceof OciImageStore)) return [];
    if (this.imageSandboxes.enabled)
      return [{ type: ContainerSandboxReady, status: true, reason: '', message: this.imageSandboxes.describe() }];
    const reason = this.options.sandbox === 'off' ? 'SandboxesTurnedOff' : 'BubblewrapUnavailable';
    return [
      { type: ContainerSandboxReady, status: false, reason, message: `containers of real images run as ${this.imageSandboxes.describe()}` },
    ];
  }

  /** How containers are isolated: sandboxes for real images where bubblewrap works, else host processes. */
  private isolation(): string {
    const host = `host processes; ${this.pidNamespaces.describe()}`;
    return this.imageSandboxes.enabled
      ? `containers of real images: ${this.imageSandboxes.describe()}; others: ${host}`
      : `${host} (${this.imageSandboxes.describe()})`;
  }

  private describeImages(): string {
    if (this.images instanceof OciImageStore) return `pulled from registries (${this.images.registries.file ?? 'registries.yaml'})`;
    return `records (no ${this.options.registryConfig ?? 'registries.yaml'}: pulls record the name, nothing is fetched)`;
  }

  /** Stops every container (a runtime that shuts down cannot follow them any more). */
  async shutdown(timeoutSeconds: number): Promise<void> {
    await this.containers.stopAll(timeoutSeconds);
    await this.sandboxes.releasePidNamespaces();
    this.sandboxes.closeHostPorts();
    this.imageSandboxes.close();
    clearInterval(this.flushTimer);
    this.state.flush();
  }
}
