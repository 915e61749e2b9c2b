import { rm } from 'node:fs/promises';
import type { ImageService, RuntimeService, StreamFlags } from '../../cri/runtime-service.js';
import type { ContainerEvent, PodSandboxConfig } from '../../cri/types.js';
import { makeDirectory } from '../../util/atomic-file.js';
import { Backoff } from '../../util/backoff.js';
import { StartGate } from '../../util/start-gate.js';
import { RealClock, type Clock } from '../../util/clock.js';
import { hostIp } from '../../util/host-ip.js';
import { KubeletConstants, type KubeletConfiguration } from '../config/kubelet-config.js';
import { isRestartableInit, podRef } from '../api/pod-util.js';
import { nodeAllocatable } from '../admission.js';
import type { Container, Pod } from '../api/v1.js';
import type { ContainerInstance, RunningPod, RuntimePodStatus } from '../container/types.js';
import { EventStream } from '../events.js';
import { computePodActions, type ComputeContext, type ContainerToReset } from './compute-pod-actions.js';
import { initContainersToPrune } from './container-gc.js';
import { ContainerManager, type ImageVolumePulls } from './containers.js';
import { HookRunner } from './hooks.js';
import { ImagePuller } from './image-puller.js';
import * as runtimePods from './runtime-pods.js';
import { generatePodSandboxConfig, podLogsDirectory } from './sandbox.js';
import * as streaming from './streaming.js';
import type { DnsConfigurer } from './dns.js';
import type { PodAddresses } from './env.js';
import { removePodDirectory, type PodVolumes } from '../volume/volume-manager.js';
import { PodSyncResult, SyncAborted, SyncError, SyncErrors } from './sync-result.js';
import { ObjectManager } from '../cluster/object-manager.js';
import { ContainerRemovals } from './container-removals.js';

export interface RuntimeManagerOptions {
  runtime: RuntimeService;
  images: ImageService;
  clock: Clock;
  events: EventStream;
  nodeName: string;
  /** The kubelet's root dir: termination message files live under it. */
  rootDir: string;
  podLogsDir: string;
  crashLoopBackOff: Backoff;
  imageBackOff: Backoff;
  /** The node's IP, for status.hostIP and the downward API. */
  hostIP: string;
  /** ConfigMaps, Secrets and tokens from the apiserver (none on a standalone node). */
  objects?: ObjectManager;
  /** Whether the runtime's default handler makes recursive read-only mounts (its last Status); unknown: no. */
  supportsRecursiveReadOnly?: () => boolean;
  /** The kubelet's seccompDefault: containers naming no profile get RuntimeDefault. */
  seccompDefault?: boolean;
  /** The kubelet's clusterDomain: the domain of a pod with a subdomain ends in it (its /etc/hosts FQDN line). */
  clusterDomain?: string;
  /** Forms each new sandbox's DNS config; none: the runtime's own (the host's resolv.conf). */
  dns?: DnsConfigurer;
  /** Sandboxes asked for at once, at most (0 or none: no bound). */
  maxParallelSandboxStarts?: number;
}

/** How long a sandbox start counts against maxParallelSandboxStarts: a longer one (a hanging CNI plugin) lets the next go. */
export const SANDBOX_START_HOLD = 5_000;

/**
 * The kubelet's kubeGenericRuntimeManager: reads pods from the runtime by
 * the kubelet's labels and drives one pod to its spec in SyncPod's steps
 * (kill what must go, create the sandbox, init containers one at a time,
 * then containers), all through the CRI interface.
 */
export class RuntimeManager {
  readonly containers: ContainerManager;
  private readonly rt: RuntimeService;
  private readonly allocatable = nodeAllocatable(0);
  /** Bounds the sandboxes asked for at once: in a burst, many at once make every pod wait for most of them. */
  private readonly sandboxStarts: StartGate;
  private readonly removals: ContainerRemovals;

  /**
   * A runtime manager for the tools that act on pods without running a node
   * (`knode delete`, `knode pleg` on its own, the relist benchmark): the real
   * clock, the kubelet's backoffs, this host's IP.
   */
  static standalone(
    runtime: RuntimeService & ImageService,
    config: Pick<KubeletConfiguration, 'nodeName' | 'rootDir' | 'podLogsDir'>,
    events?: EventStream,
  ): RuntimeManager {
    const clock = new RealClock();
    return new RuntimeManager({
      runtime,
      images: runtime,
      clock,
      events: events ?? new EventStream(() => clock.now()),
      nodeName: config.nodeName,
      rootDir: config.rootDir,
      podLogsDir: config.podLogsDir,
      hostIP: hostIp(),
      crashLoopBackOff: new Backoff(clock, KubeletConstants.crashLoopBackOffInitial, KubeletConstants.crashLoopBackOffMax),
      imageBackOff: new Backoff(clock, KubeletConstants.imageBackOffInitial, KubeletConstants.imageBackOffMax),
    });
  }

  constructor(private readonly opts: RuntimeManagerOptions) {
    this.rt = opts.runtime;
    this.sandboxStarts = new StartGate(opts.maxParallelSandboxStarts ?? 0, SANDBOX_START_HOLD, opts.clock);
    this.removals = new ContainerRemovals(this.rt);
    const puller = new ImagePuller(opts.images, opts.imageBackOff, opts.clock, opts.events);
    const hooks = new HookRunner(opts.runtime, opts.clock);
    this.containers = new ContainerManager({ ...opts, puller, hooks, objects: opts.objects ?? new ObjectManager(undefined, opts.clock) });
  }

  /** Pods whose sync waits for its turn to ask for a sandbox. */
  get sandboxStartsWaiting(): number {
    return this.sandboxStarts.queued;
  }

  /** Every pod this node's kubelet made, from two list calls (the PLEG's relist). */
  getPods(): Promise<RunningPod[]> {
    return runtimePods.getPods(this.rt, this.opts.nodeName);
  }

  /**
   * The runtime's streaming URL for `cmd` in the pod's running container
   * `name` (the kubelet's GetExec); undefined when no such container runs.
   */
  getExec(uid: string, name: string, cmd: string[], flags: StreamFlags): Promise<string | undefined> {
    return streaming.getExec(this.rt, uid, name, cmd, flags);
  }

  /** The runtime's streaming URL to attach to the pod's running container `name`; undefined when it does not run. */
  getAttach(uid: string, name: string, flags: StreamFlags): Promise<string | undefined> {
    return streaming.getAttach(this.rt, uid, name, flags);
  }

  /** The runtime's streaming URL to forward ports into the pod's ready sandbox; undefined without one. */
  getPortForward(uid: string, ports: number[]): Promise<string | undefined> {
    return streaming.getPortForward(this.rt, uid, ports);
  }

  /** Everything the runtime knows about one pod, newest sandbox and containers first. */
  getPodStatus(uid: string, name: string, namespace: string): Promise<RuntimePodStatus> {
    return runtimePods.getPodStatus(this.rt, uid, name, namespace);
  }

  /** The pod as a runtime container event shows it (undefined without the sandbox's status). */
  podStatusFromEvent(event: ContainerEvent, uid: string, name: string, namespace: string): Promise<RuntimePodStatus | undefined> {
    return runtimePods.podStatusFromEvent(event, uid, name, namespace);
  }

  /**
   * SyncPod: one pass of bringing the runtime in line with the pod spec.
   * Once SIGNAL aborts (the pod is being killed), nothing more is created or
   * started: a pod removed while it waited for a busy runtime is not started
   * only to be stopped.
   */
  async syncPod(
    pod: Pod,
    status: RuntimePodStatus,
    ctx: ComputeContext = {},
    volumes: PodVolumes = new Map(),
    signal?: AbortSignal,
  ): Promise<PodSyncResult> {
    const result = new PodSyncResult();
    const actions = computePodActions(pod, status, ctx);
    const ref = podRef(pod);
    const uid = pod.metadata.uid!;

    if (actions.killPod) {
      await this.killPodWithResult(pod, status, undefined, result);
      if (result.error()) return result;
      if (actions.createSandbox) await this.purgeInitContainers(pod, status);
    } else {
      for (const [id, kill] of actions.containersToKill) {
        try {
          // A probe that fails may shorten the grace period (its terminationGracePeriodSeconds).
          const probeGrace =
            kill.reason === 'Unhealthy'
              ? (kill.container?.livenessProbe?.terminationGracePeriodSeconds ??
                kill.container?.startupProbe?.terminationGracePeriodSeconds)
              : undefined;
          await this.containers.killContainer(pod, id, kill.name, kill.container, kill.reason, kill.message, probeGrace);
          result.add({ action: 'KillContainer', target: kill.name });
        } catch (err) {
          result.add({ action: 'KillContainer', target: kill.name, error: asSyncError(err, SyncErrors.killContainer) });
          return result;
        }
      }
      if (!(await this.resetContainers(pod, actions.containersToReset, result))) return result;
    }
    // Keep terminated init containers fairly aggressively controlled, as the kubelet does.
    for (const id of initContainersToPrune(pod, status.containers)) await this.removeContainer(id).catch(() => {});

    let sandboxId = actions.sandboxId;
    const sandboxConfig = generatePodSandboxConfig(pod, actions.attempt, this.opts.nodeName, this.opts.podLogsDir);
    let podIPs = status.ips;
    if (signal?.aborted) return result;
    if (actions.createSandbox) {
      // A sync aborted while it waits for its turn asks for nothing.
      const release = await this.sandboxStarts.enter(signal).catch(() => undefined);
      if (!release) return result;
      try {
        // As the kubelet does: the pod's log directory is the node's, made before the runtime is asked.
        if (sandboxConfig.logDirectory) makeDirectory(sandboxConfig.logDirectory);
        // The kubelet forms it with the sandbox's config: a resolv.conf it cannot read fails the sandbox.
        if (this.opts.dns) sandboxConfig.dnsConfig = this.opts.dns.podDNS(pod);
        try {
          sandboxId = await this.rt.runPodSandbox(sandboxConfig);
        } finally {
          release();
        }
        const created = (await this.rt.podSandboxStatus(sandboxId)).status;
        // As the kubelet's determinePodSandboxIPs: the sandbox's IP, then its additional ones.
        podIPs = created?.network?.ip
          ? [created.network.ip, ...(created.network.additionalIps ?? []).map((a) => a.ip).filter(Boolean)]
          : [];
        result.add({ action: 'CreatePodSandbox', target: sandboxId });
        this.opts.events.emit({
          type: 'SandboxCreated',
          pod: ref,
          uid,
          reason: 'SandboxCreated',
          message: `Created pod sandbox ${sandboxId.slice(0, 13)}`,
          detail: { sandboxId, attempt: actions.attempt },
        });
        if (!pod.spec.hostNetwork && podIPs[0] === this.opts.hostIP) {
          this.opts.events.emit({
            type: 'PodNetworkMissing',
            pod: ref,
            uid,
            reason: 'NoPodNetwork',
            message: `the runtime gave the pod the node's IP (${podIPs[0]}): it has no pod network, so the pod shares the host's network although it is not hostNetwork`,
          });
        }
      } catch (err) {
        const message = `Failed to create pod sandbox: ${(err as Error).message}`;
        this.opts.events.emit({ type: 'SandboxFailed', pod: ref, uid, reason: 'FailedCreatePodSandBox', message });
        result.add({ action: 'CreatePodSandbox', target: ref, error: new SyncError(SyncErrors.createPodSandbox, message) });
        return result;
      }
    }
    if (!sandboxId || signal?.aborted) return result;

    const addresses = this.addresses(podIPs);
    // Pulled once a container is to start, before the first of them.
    let imageVolumes: ImageVolumePulls | undefined;
    const start = async (container: Container): Promise<boolean> => {
      if (signal?.aborted) return false;
      imageVolumes ??= await this.containers.pullImageVolumes(pod, sandboxConfig);
      if (signal?.aborted) return false;
      const step = result.add({ action: 'StartContainer', target: container.name });
      try {
        this.containers.doBackOff(pod, container, status);
        step.id = await this.containers.startContainer(
          sandboxId,
          sandboxConfig,
          container,
          pod,
          status,
          addresses,
          volumes,
          imageVolumes,
          signal,
        );
        return true;
      } catch (err) {
        if (err instanceof SyncAborted) result.results.splice(result.results.indexOf(step), 1);
        else step.error = asSyncError(err, SyncErrors.runContainer);
        return false;
      }
    };
    const inits = pod.spec.initContainers ?? [];
    for (const index of actions.initContainersToStart) {
      const ok = await start(inits[index]);
      if (!ok && inits[index].restartPolicy !== 'Always') return result;
    }
    for (const index of actions.containersToStart) await start(pod.spec.containers[index]);
    return result;
  }

  /**
   * A restart in place (RestartAllContainers): each instance killed without grace if it still
   * runs, then removed, its logs kept (the next run's log counts on from them, as its restart
   * count does). Returns false when one failed, and SyncPod stops there.
   */
  private async resetContainers(pod: Pod, resets: ContainerToReset[], result: PodSyncResult): Promise<boolean> {
    for (const reset of resets) {
      const step = result.add({ action: 'RemoveContainer', target: reset.container.name });
      try {
        if (reset.kill)
          await this.containers.killContainer(pod, reset.id, reset.container.name, reset.container, 'RestartAllContainers', 'killing', 0);
      } catch (err) {
        step.error = asSyncError(err, SyncErrors.killContainer);
        return false;
      }
      try {
        await this.rt.removeContainer(reset.id);
      } catch (err) {
        step.error = new SyncError(SyncErrors.removeContainer, (err as Error).message);
        return false;
      }
    }
    return true;
  }

  /** What the downward API tells a pod with these IPs. */
  addresses(podIPs: string[]): PodAddresses {
    return { podIP: podIPs[0] ?? '', podIPs, hostIP: this.opts.hostIP, nodeName: this.opts.nodeName, allocatable: this.allocatable };
  }

  /** Kills every container of a pod in parallel, then stops its sandboxes. */
  async killPod(pod: Pod | undefined, running: RunningPod | RuntimePodStatus, gracePeriodOverride?: number): Promise<PodSyncResult> {
    const result = new PodSyncResult();
    await this.killPodWithResult(pod, running, gracePeriodOverride, result);
    return result;
  }

  /**
   * Kills a pod: its regular containers in parallel first, then its sidecars
   * (restartable init containers) one by one in reverse order, as the kubelet
   * does, so the sidecars serve the containers until those are gone; then its
   * sandboxes.
   */
  private async killPodWithResult(
    pod: Pod | undefined,
    running: RunningPod | RuntimePodStatus,
    gracePeriodOverride: number | undefined,
    result: PodSyncResult,
  ): Promise<void> {
    const live = running.containers.filter((c) => c.state === 'running' || c.state === 'created' || c.state === 'unknown');
    const sidecars = (pod?.spec.initContainers ?? []).filter(isRestartableInit).map((c) => c.name);
    const kill = async (c: (typeof live)[number]) => {
      const spec = findSpec(pod, c.name);
      try {
        const annotations = 'annotations' in c ? (c as ContainerInstance).annotations : {};
        await this.containers.killContainer(pod, c.id, c.name, spec, '', '', gracePeriodOverride, annotations);
        result.add({ action: 'KillContainer', target: c.name });
      } catch (err) {
        result.add({ action: 'KillContainer', target: c.name, error: asSyncError(err, SyncErrors.killContainer) });
      }
    };
    await Promise.all(live.filter((c) => !sidecars.includes(c.name)).map(kill));
    for (const name of [...sidecars].reverse()) for (const c of live.filter((x) => x.name === name)) await kill(c);
    for (const s of running.sandboxes) {
      try {
        await this.rt.stopPodSandbox(s.id);
        result.add({ action: 'KillPodSandbox', target: s.id });
      } catch (err) {
        result.add({ action: 'KillPodSandbox', target: s.id, error: asSyncError(err, SyncErrors.killPodSandbox) });
      }
    }
  }

  /** When a new sandbox replaces the old, init containers run again: remove their old instances. */
  private async purgeInitContainers(pod: Pod, status: RuntimePodStatus): Promise<void> {
    const names = new Set((pod.spec.initContainers ?? []).map((c) => c.name));
    for (const c of status.containers) {
      if (!names.has(c.name)) continue;
      await this.removeContainer(c.id).catch(() => {});
    }
  }

  /** Removes a container and its logs, once however many ask (see ContainerRemovals). */
  removeContainer(id: string): Promise<void> {
    return this.removals.remove(id);
  }

  /**
   * Removes a pod for good (knode delete, apply --replace): its sandboxes,
   * then what the node kept of it on disk, its directory and its logs, which
   * `knode run` leaves to its housekeeping and container collector.
   */
  async removePod(status: RuntimePodStatus | RunningPod): Promise<void> {
    for (const s of status.sandboxes) await this.rt.removePodSandbox(s.id).catch(() => {});
    await removePodDirectory(this.opts.rootDir, status.uid);
    const logs = podLogsDirectory(this.opts.podLogsDir, { metadata: { namespace: status.namespace, name: status.name, uid: status.uid } });
    await rm(logs, { recursive: true, force: true });
  }

  sandboxConfigFor(pod: Pod, attempt: number): PodSandboxConfig {
    return generatePodSandboxConfig(pod, attempt, this.opts.nodeName, this.opts.podLogsDir);
  }
}

function findSpec(pod: Pod | undefined, name: string): Container | undefined {
  return [...(pod?.spec.initContainers ?? []), ...(pod?.spec.containers ?? [])].find((c) => c.name === name);
}

function asSyncError(err: unknown, fallback: SyncError['reason']): SyncError {
  return err instanceof SyncError ? err : new SyncError(fallback, (err as Error).message);
}
