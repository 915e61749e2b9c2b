import type { PodSandboxConfig__Output } from '../cri/gen/runtime/v1/PodSandboxConfig.js';
import type { PodSandboxFilter__Output } from '../cri/gen/runtime/v1/PodSandboxFilter.js';
import type { ContainerService } from './containers.js';
import type { ContainerEventType } from '../cri/gen/runtime/v1/ContainerEventType.js';
import { matchesLabels, toContainerStatus, toPodSandboxStatus } from './convert.js';
import type { ContainerEventHub } from './events.js';
import { alreadyExists, invalid, storageFailed, unknown } from './errors.js';
import { lookup, lookupOptional, newId, nowNs } from './ids.js';
import type { PidNamespaces } from './pid-namespaces.js';
import { podNetns, type SandboxRecord } from './records.js';
import type { RuntimeState } from './state.js';
import type { ImageSandboxes } from './sandbox/image-sandboxes.js';
import { SysctlError, sysctlFiles, type SysctlNamespaces } from './sandbox/sysctls.js';
import { HostPorts, PortMappingError, relayedMappings, type HostPortMapping } from './host-ports.js';
import { makeDirectory } from '../util/atomic-file.js';
import { hostIp } from '../util/host-ip.js';
import type { NetworkConfList } from './network/cni.js';
import type { PodIdentity, PodNetwork } from './network/pod-network.js';

/**
 * Pod sandboxes. A sandbox groups containers, owns their log directory and
 * answers for the pod's network: the host's, or with bubblewrap sandboxes
 * and a CNI configuration a namespace of the pod's own (PodNetwork). With
 * host processes its only process is the holder of the PID namespace its
 * containers share, if they share one; with sandboxes, the holder of the
 * pod's namespaces (ImageSandboxes).
 */
export class SandboxService {
  private readonly ip = hostIp();
  private readonly starting = new Set<string>();
  private readonly hostPorts = new HostPorts();

  constructor(
    private readonly state: RuntimeState,
    private readonly containers: ContainerService,
    private readonly events: ContainerEventHub,
    private readonly pidNamespaces: PidNamespaces,
    private readonly imageSandboxes: ImageSandboxes,
    private readonly podNetwork: PodNetwork,
  ) {}

  /**
   * Sandboxes have lifecycle events too (containerd 2 sends them): their id
   * stands as the container id, and they carry the sandbox's containers, as
   * containerd's do.
   */
  private publish(sandbox: SandboxRecord, type: ContainerEventType): void {
    if (this.events.subscribers === 0) return;
    this.events.publish({
      containerId: sandbox.id,
      containerEventType: type,
      createdAt: nowNs(),
      podSandboxStatus: toPodSandboxStatus(sandbox),
      containersStatuses: this.state.containersOf(sandbox.id).map(toContainerStatus),
    });
  }

  async run(config: PodSandboxConfig__Output | null, runtimeHandler: string): Promise<string> {
    const meta = config?.metadata;
    if (!config || !meta) throw invalid('pod sandbox config must include metadata');
    if (!meta.name || !meta.uid || !meta.namespace) throw invalid('pod sandbox metadata must include name, uid and namespace');
    const fullName = `${meta.name}_${meta.namespace}_${meta.uid}_${meta.attempt}`;
    for (const other of this.state.sandboxes.values()) {
      const m = other.metadata;
      if (m.name === meta.name && m.namespace === meta.namespace && m.uid === meta.uid && m.attempt === meta.attempt) {
        throw alreadyExists(`pod sandbox name "${fullName}" is reserved for ${other.id}`);
      }
    }
    // A sandbox whose sysctls are being written is not saved yet: its name is held meanwhile.
    if (this.starting.has(fullName)) throw alreadyExists(`pod sandbox name "${fullName}" is reserved for a sandbox being created`);
    this.starting.add(fullName);
    try {
      return await this.create(config, meta, runtimeHandler);
    } finally {
      this.starting.delete(fullName);
    }
  }

  private async create(
    config: PodSandboxConfig__Output,
    meta: NonNullable<PodSandboxConfig__Output['metadata']>,
    runtimeHandler: string,
  ): Promise<string> {
    const ns = config.linux?.securityContext?.namespaceOptions;
    const network = ns?.network === 'NODE' ? undefined : this.networkFor(meta);
    const own: SysctlNamespaces = { ipc: ns?.ipc !== 'NODE', uts: ns?.network !== 'NODE', net: network !== undefined };
    const sysctls = Object.keys(config.linux?.sysctls ?? {}).length > 0 ? this.sysctlFiles(config.linux!.sysctls, own) : undefined;
    // A network whose plugins map ports (portmap's capability) is given the mappings; the others are relayed.
    const cniMapsPorts = network?.plugins.some((p) => p.capabilities?.portMappings === true) === true;
    const hostPorts = cniMapsPorts ? [] : this.relayed(config.portMappings, network !== undefined);
    if (config.logDirectory) {
      try {
        makeDirectory(config.logDirectory);
      } catch (err) {
        throw storageFailed(`failed to create pod sandbox ${meta.namespace}/${meta.name}`, err);
      }
    }
    const record: SandboxRecord = {
      id: newId(),
      metadata: { name: meta.name, uid: meta.uid, namespace: meta.namespace, attempt: meta.attempt },
      state: 'SANDBOX_READY',
      createdAt: nowNs(),
      hostname: config.hostname,
      logDirectory: config.logDirectory,
      runtimeHandler,
      labels: config.labels,
      annotations: config.annotations,
      namespaces: { network: ns?.network ?? 'POD', pid: ns?.pid ?? 'POD', ipc: ns?.ipc ?? 'POD' },
      sysctls,
      hostPorts: hostPorts.length > 0 ? hostPorts : undefined,
      dns: config.dnsConfig
        ? { servers: config.dnsConfig.servers, searches: config.dnsConfig.searches, options: config.dnsConfig.options }
        : undefined,
      // A host-network sandbox has no IP of its own (the kubelet uses the node's), as with containerd.
      ip: ns?.network === 'NODE' ? '' : this.ip,
    };
    try {
      if (network) {
        // As containerd hands them to CNI's portmap plugin.
        const mappings = cniMapsPorts
          ? (config.portMappings ?? [])
              .filter((m) => m.hostPort > 0)
              .map((m) => ({ hostPort: m.hostPort, containerPort: m.containerPort, protocol: m.protocol.toLowerCase(), hostIP: m.hostIp }))
          : [];
        const { record: attached, ips } = await this.podNetwork.setUp(network, podIdentity(record), mappings);
        record.podNetwork = attached;
        [record.ip] = ips;
        if (ips.length > 1) record.additionalIps = ips.slice(1);
      }
      // Saved once it has its holder, unless its RunPodSandbox has not saved it yet (or failed).
      await this.imageSandboxes.startPodHolder(record, (s) => this.state.sandboxes.get(s.id) === s && this.state.saveSandbox(s));
      await this.hostPorts.open(record.id, hostPorts, relayTarget(record));
    } catch (err) {
      this.imageSandboxes.releasePod(record);
      if (record.podNetwork) await this.podNetwork.tearDown(record.podNetwork, podIdentity(record), { force: true }).catch(() => {});
      throw unknown(`failed to create pod sandbox ${meta.namespace}/${meta.name}: ${(err as Error).message}`);
    }
    // Host processes that share the pod's PID namespace: its holder starts now, as a pause container would.
    if (record.namespaces.pid === 'POD' && !this.imageSandboxes.enabled && this.pidNamespaces.available)
      record.pidHolder = this.pidNamespaces.startHolder();
    try {
      this.state.saveSandbox(record);
    } catch (err) {
      this.imageSandboxes.releasePod(record);
      this.hostPorts.close(record.id);
      if (record.pidHolder) this.pidNamespaces.release(record.pidHolder);
      if (record.podNetwork) await this.podNetwork.tearDown(record.podNetwork, podIdentity(record), { force: true }).catch(() => {});
      throw storageFailed(`failed to create pod sandbox ${meta.namespace}/${meta.name}`, err);
    }
    this.publish(record, 'CONTAINER_CREATED_EVENT');
    this.publish(record, 'CONTAINER_STARTED_EVENT');
    return record.id;
  }

  /** Kills the sandbox's containers and marks it not ready; stopping twice or a missing sandbox is fine. */
  async stop(id: string): Promise<void> {
    const sandbox = this.find(id);
    if (!sandbox) return;
    await Promise.all(this.state.containersOf(sandbox.id).map((c) => this.containers.stop(c.id, 0)));
    this.hostPorts.close(sandbox.id);
    const released = this.releasePidNamespace(sandbox);
    // As containerd: the pod leaves its network when it stops; a DEL that fails fails the stop (retried, as the kubelet does).
    await this.leaveNetwork(sandbox, false);
    if (sandbox.state !== 'SANDBOX_NOTREADY') {
      sandbox.state = 'SANDBOX_NOTREADY';
      this.state.saveSandbox(sandbox);
      this.publish(sandbox, 'CONTAINER_STOPPED_EVENT');
    }
    await released;
  }

  /** Removes the sandbox and its containers, killing what still runs; a missing sandbox is fine. */
  async remove(id: string): Promise<void> {
    const sandbox = this.find(id);
    if (!sandbox) return;
    await Promise.all(this.state.containersOf(sandbox.id).map((c) => this.containers.remove(c.id)));
    this.hostPorts.close(sandbox.id);
    const released = this.releasePidNamespace(sandbox);
    await this.leaveNetwork(sandbox, true);
    const deleted = this.state.deleteSandbox(sandbox.id);
    this.publish(sandbox, 'CONTAINER_DELETED_EVENT');
    await Promise.all([released, deleted]);
  }

  /** Relays the port mappings of ready sandboxes again (after a restart of the runtime); says which could not be. */
  async reopenHostPorts(warn: (message: string) => void): Promise<void> {
    for (const sandbox of this.state.sandboxes.values()) {
      if (sandbox.state !== 'SANDBOX_READY' || !sandbox.hostPorts) continue;
      await this.hostPorts
        .open(sandbox.id, sandbox.hostPorts, relayTarget(sandbox))
        .catch((err: Error) => warn(`pod sandbox ${sandbox.id}: ${err.message}`));
    }
  }

  /**
   * After a restart of the runtime: a ready sandbox whose network namespace is
   * gone (the host rebooted) cannot run containers any more. It is marked not
   * ready, as containerd finds such a sandbox after a reboot, so the kubelet
   * makes the pod a new one; its network is taken down (DEL: the plugins give
   * its address back) in the background.
   */
  recoverNetworks(warn: (message: string) => void): Promise<void> {
    const lost = [...this.state.sandboxes.values()].filter(
      (s) => s.state === 'SANDBOX_READY' && podNetns(s) !== undefined && !this.podNetwork.isKept(s.podNetwork!),
    );
    for (const sandbox of lost) {
      sandbox.state = 'SANDBOX_NOTREADY';
      this.state.saveSandbox(sandbox);
      warn(
        `pod sandbox ${sandbox.id} (${sandbox.metadata.namespace}/${sandbox.metadata.name}): its network namespace ${sandbox.podNetwork!.netns} is gone; the sandbox is not ready`,
      );
    }
    return Promise.all(lost.map((s) => this.leaveNetwork(s, true).catch((err: Error) => warn(err.message)))).then(() => {});
  }

  /** Stops relaying every port mapping (the runtime shuts down). */
  closeHostPorts(): void {
    this.hostPorts.closeAll();
  }

  /** Ends the holders of pods' namespaces: no container runs after a restart or a shutdown of the runtime. Resolves once their files are deleted. */
  releasePidNamespaces(): Promise<void> {
    return Promise.all([...this.state.sandboxes.values()].map((s) => this.releasePidNamespace(s))).then(() => {});
  }

  /** Ends the sandbox's holders at once; resolves once its pod's files are deleted. */
  private releasePidNamespace(sandbox: SandboxRecord): Promise<void> {
    const pod = this.imageSandboxes.releasePod(sandbox);
    if (!sandbox.pidHolder && !pod) return Promise.resolve();
    if (sandbox.pidHolder) this.pidNamespaces.release(sandbox.pidHolder);
    sandbox.pidHolder = undefined;
    this.state.saveSandbox(sandbox);
    return pod ?? Promise.resolve();
  }

  get(id: string): SandboxRecord {
    return lookup(this.state.sandboxes, id, 'pod sandbox');
  }

  list(filter: PodSandboxFilter__Output | null): SandboxRecord[] {
    const out: SandboxRecord[] = [];
    for (const s of filter ? this.state.sandboxesFor(filter.labelSelector) : this.state.sandboxes.values()) {
      if (filter) {
        if (filter.id && !s.id.startsWith(filter.id)) continue;
        if (filter.state && s.state !== filter.state.state) continue;
        if (!matchesLabels(s.labels, filter.labelSelector)) continue;
      }
      out.push(s);
    }
    return out;
  }

  /**
   * The network a pod off the host's network gets: the CNI network configured,
   * for pods in sandboxes; none (the host's) without one, or for host
   * processes. A configuration that is broken fails the sandbox, as
   * containerd's "cni plugin not initialized".
   */
  private networkFor(meta: NonNullable<PodSandboxConfig__Output['metadata']>): NetworkConfList | undefined {
    if (!this.imageSandboxes.enabled) return undefined;
    try {
      return this.podNetwork.configured();
    } catch (err) {
      throw unknown(`failed to create pod sandbox ${meta.namespace}/${meta.name}: the pod network is not ready: ${(err as Error).message}`);
    }
  }

  /** Takes the pod off its network (DEL) and removes its namespace, once; FORCE: even if DEL fails. */
  private async leaveNetwork(sandbox: SandboxRecord, force: boolean): Promise<void> {
    if (!sandbox.podNetwork || sandbox.podNetwork.removed) return;
    try {
      await this.podNetwork.tearDown(sandbox.podNetwork, podIdentity(sandbox), { force });
    } catch (err) {
      throw unknown(`failed to destroy the network of pod sandbox ${sandbox.id}: ${(err as Error).message}`);
    } finally {
      this.state.saveSandbox(sandbox);
    }
  }

  /** The pod's sysctls to write in its holder's namespaces; INVALID_ARGUMENT for one it cannot have. */
  private sysctlFiles(sysctls: Record<string, string>, own: SysctlNamespaces): [string, string][] {
    if (!this.imageSandboxes.enabled)
      throw invalid(
        `sysctls ${Object.keys(sysctls).join(', ')}: the embedded runtime sets them in its sandboxes only, and runs host processes (${this.imageSandboxes.describe()})`,
      );
    try {
      return sysctlFiles(sysctls, own);
    } catch (err) {
      if (err instanceof SysctlError) throw invalid(err.message);
      throw err;
    }
  }

  /** The port mappings to relay: on the host's network, those whose host port is not the container's; on a pod's own, all. */
  private relayed(mappings: PodSandboxConfig__Output['portMappings'], ownNetwork: boolean): HostPortMapping[] {
    try {
      return relayedMappings(
        (mappings ?? []).map((m) => ({ protocol: m.protocol, containerPort: m.containerPort, hostPort: m.hostPort, hostIp: m.hostIp })),
        ownNetwork,
      );
    } catch (err) {
      if (err instanceof PortMappingError) throw invalid(err.message);
      throw err;
    }
  }

  private find(id: string): SandboxRecord | undefined {
    return lookupOptional(this.state.sandboxes, id, 'pod sandbox');
  }
}

function podIdentity(sandbox: SandboxRecord): PodIdentity {
  return { sandboxId: sandbox.id, name: sandbox.metadata.name, namespace: sandbox.metadata.namespace, uid: sandbox.metadata.uid };
}

/** Where a sandbox's relayed ports go: its IP (the host's, or its own on a pod network), or loopback for a host-network sandbox. */
function relayTarget(sandbox: SandboxRecord): string {
  return sandbox.ip || '127.0.0.1';
}
