import type { Dirent } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RuntimeService } from '../../cri/runtime-service.js';
import { KubeletLabels } from '../../cri/types.js';
import type { Clock } from '../../util/clock.js';
import type { Pod } from '../api/v1.js';
import type { ContainerInstance } from '../container/types.js';
import { NodeNameLabel, nsToMs } from './labels.js';

/** How dead containers are collected (the kubelet's GCPolicy; times in ms, a negative count: no limit). */
export interface GCPolicy {
  /** A dead container younger than this is kept. */
  minAge: number;
  /** The most dead instances kept of each container of a pod. */
  maxPerPodContainer: number;
  /** The most dead containers kept on the node. */
  maxContainers: number;
}

/** The kubelet's defaults: --minimum-container-ttl-duration 0, --maximum-dead-containers-per-container 1, --maximum-dead-containers -1. */
export const DEFAULT_GC_POLICY: GCPolicy = { minAge: 0, maxPerPodContainer: 1, maxContainers: -1 };

/** What the pod workers say of a pod (the kubelet's podStateProvider). */
export interface PodStateProvider {
  /** The pod is gone and done with: its containers, sandboxes and logs may all go. */
  shouldPodContentBeRemoved(uid: string): boolean;
  /** The pod has terminated (it may still be wanted): its runtime state may go when evicting hard. */
  shouldPodRuntimeBeRemoved(uid: string): boolean;
}

export interface ContainerGCDeps {
  runtime: Pick<RuntimeService, 'listContainers' | 'listPodSandbox' | 'stopContainer' | 'stopPodSandbox' | 'removePodSandbox'>;
  /** Removes a container and its log files (the runtime manager's removeContainer). */
  removeContainer: (id: string) => Promise<void>;
  podState: PodStateProvider;
  clock: Clock;
  /** Only this node's containers and sandboxes are collected: a runtime may be shared with other nodes. */
  nodeName: string;
  /** The pods' log directories (`<namespace>_<name>_<uid>`). */
  podLogsDir: string;
}

/** What a collection removed, and the removals that failed (each is tried again next time). */
export interface GCResult {
  containers: number;
  sandboxes: number;
  logDirectories: number;
  failures: string[];
}

interface ContainerGCInfo {
  id: string;
  name: string;
  createdAt: number;
  unknown: boolean;
}

interface SandboxGCInfo {
  id: string;
  createdAt: number;
  active: boolean;
}

/** Dead containers by pod UID and container name (the kubelet's evict units). */
type EvictUnits = Map<string, ContainerGCInfo[]>;

const count = (units: EvictUnits) => [...units.values()].reduce((n, list) => n + list.length, 0);
const newestFirst = (a: { createdAt: number }, b: { createdAt: number }) => b.createdAt - a.createdAt;

/**
 * The kubelet's container garbage collector (kuberuntime containerGC): dead
 * containers beyond the policy, oldest first, and every one of a pod that is
 * gone; dead sandboxes without containers but the newest of each pod (all of
 * a pod that is gone); the log directories of pods that are gone.
 */
export class ContainerGC {
  private result: GCResult = { containers: 0, sandboxes: 0, logDirectories: 0, failures: [] };

  constructor(private readonly deps: ContainerGCDeps) {}

  /**
   * One collection (the kubelet's GarbageCollect). Without all sources seen,
   * no pod counts as gone for containers and logs. Rejects with the errors of
   * the steps that could not list what they collect, after trying them all.
   */
  async garbageCollect(policy: GCPolicy, allSourcesReady: boolean, evictNonDeletedPods = false): Promise<GCResult> {
    this.result = { containers: 0, sandboxes: 0, logDirectories: 0, failures: [] };
    const errors: string[] = [];
    await this.evictContainers(policy, allSourcesReady, evictNonDeletedPods).catch((err: Error) => errors.push(err.message));
    await this.evictSandboxes(evictNonDeletedPods).catch((err: Error) => errors.push(err.message));
    await this.evictPodLogsDirectories(allSourcesReady).catch((err: Error) => errors.push(err.message));
    if (errors.length > 0) throw new Error(errors.join('; '));
    return this.result;
  }

  async evictContainers(policy: GCPolicy, allSourcesReady: boolean, evictNonDeletedPods: boolean): Promise<void> {
    const units = await this.evictableContainers(policy.minAge);
    if (allSourcesReady) {
      for (const [key, unit] of units) {
        const uid = key.slice(0, key.indexOf('/'));
        if (this.gone(uid, evictNonDeletedPods)) {
          await this.removeOldestN(unit, unit.length);
          units.delete(key);
        }
      }
    }
    if (policy.maxPerPodContainer >= 0) await this.enforceMaxContainersPerEvictUnit(units, policy.maxPerPodContainer);
    if (policy.maxContainers >= 0 && count(units) > policy.maxContainers) {
      // Keep an equal share of each unit first, then the newest overall.
      await this.enforceMaxContainersPerEvictUnit(units, Math.max(1, Math.floor(policy.maxContainers / units.size)));
      const total = count(units);
      if (total > policy.maxContainers) {
        const flattened = [...units.values()].flat().sort(newestFirst);
        await this.removeOldestN(flattened, total - policy.maxContainers);
      }
    }
  }

  async evictSandboxes(evictNonDeletedPods: boolean): Promise<void> {
    const selector = { [NodeNameLabel]: this.deps.nodeName };
    const containers = await this.deps.runtime.listContainers({ labelSelector: selector });
    const sandboxes = await this.deps.runtime.listPodSandbox({ labelSelector: selector });
    const withContainers = new Set(containers.map((c) => c.podSandboxId));
    const byPod = new Map<string, SandboxGCInfo[]>();
    for (const s of sandboxes) {
      const uid = s.metadata?.uid ?? '';
      const active = s.state === 'SANDBOX_READY' || withContainers.has(s.id);
      byPod.set(uid, [...(byPod.get(uid) ?? []), { id: s.id, createdAt: nsToMs(s.createdAt), active }]);
    }
    for (const [uid, list] of byPod) {
      // A pod that stays keeps its newest sandbox, whatever its state.
      await this.removeOldestNSandboxes(list, this.gone(uid, evictNonDeletedPods) ? list.length : list.length - 1);
    }
  }

  async evictPodLogsDirectories(allSourcesReady: boolean): Promise<void> {
    if (!allSourcesReady) return;
    let entries: Dirent[];
    try {
      entries = await readdir(this.deps.podLogsDir, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // no pod has run yet
      throw new Error(`failed to read podLogsDirectory "${this.deps.podLogsDir}": ${(err as Error).message}`, { cause: err });
    }
    for (const entry of entries) {
      // Only what the kubelet makes there: a `<namespace>_<name>_<uid>` directory (the directory may be
      // shared, e.g. with static pod manifests, which must never go).
      const parts = entry.name.split('_');
      if (!entry.isDirectory() || parts.length !== 3 || parts.some((p) => p === '')) continue;
      const name = entry.name;
      if (!this.deps.podState.shouldPodContentBeRemoved(parts[2])) continue;
      await this.attempt(`remove pod logs directory ${name}`, async () => {
        await rm(join(this.deps.podLogsDir, name), { recursive: true, force: true });
        this.result.logDirectories++;
      });
    }
  }

  private gone(uid: string, evictNonDeletedPods: boolean): boolean {
    const { podState } = this.deps;
    return podState.shouldPodContentBeRemoved(uid) || (evictNonDeletedPods && podState.shouldPodRuntimeBeRemoved(uid));
  }

  /** This node's containers that are not running and older than MIN_AGE, by pod UID and name. */
  private async evictableContainers(minAge: number): Promise<EvictUnits> {
    const containers = await this.deps.runtime.listContainers({ labelSelector: { [NodeNameLabel]: this.deps.nodeName } });
    const newestGCTime = this.deps.clock.now() - minAge;
    const units: EvictUnits = new Map();
    for (const c of containers) {
      if (c.state === 'CONTAINER_RUNNING') continue;
      const createdAt = nsToMs(c.createdAt);
      if (createdAt > newestGCTime) continue;
      const name = c.metadata?.name ?? '';
      const key = `${c.labels[KubeletLabels.podUid] ?? ''}/${name}`;
      const info = { id: c.id, name, createdAt, unknown: c.state === 'CONTAINER_UNKNOWN' };
      units.set(key, [...(units.get(key) ?? []), info]);
    }
    return units;
  }

  private async enforceMaxContainersPerEvictUnit(units: EvictUnits, max: number): Promise<void> {
    for (const [key, unit] of units) {
      const toRemove = unit.length - max;
      if (toRemove > 0) units.set(key, await this.removeOldestN(unit, toRemove));
    }
  }

  /** Removes the oldest N (a container in an unknown state is stopped first); returns the rest. */
  private async removeOldestN(containers: ContainerGCInfo[], toRemove: number): Promise<ContainerGCInfo[]> {
    const keep = containers.length - toRemove;
    if (keep > 0) containers.sort(newestFirst);
    for (let i = containers.length - 1; i >= keep; i--) {
      const c = containers[i];
      if (c.unknown) {
        const stopped = await this.attempt(`stop container ${c.id} in an unknown state`, () => this.deps.runtime.stopContainer(c.id, 0));
        if (!stopped) continue;
      }
      await this.attempt(`remove container ${c.id}`, async () => {
        await this.deps.removeContainer(c.id);
        this.result.containers++;
      });
    }
    return containers.slice(0, Math.max(0, keep));
  }

  /** Removes the inactive ones among the oldest N sandboxes. */
  private async removeOldestNSandboxes(sandboxes: SandboxGCInfo[], toRemove: number): Promise<void> {
    const keep = sandboxes.length - toRemove;
    if (keep > 0) sandboxes.sort(newestFirst);
    for (let i = sandboxes.length - 1; i >= keep; i--) {
      const s = sandboxes[i];
      if (s.active) continue;
      await this.attempt(`remove sandbox ${s.id}`, async () => {
        await this.deps.runtime.stopPodSandbox(s.id);
        await this.deps.runtime.removePodSandbox(s.id);
        this.result.sandboxes++;
      });
    }
  }

  /** Runs one removal; a failure is noted (the next collection tries again), not thrown. */
  private async attempt(what: string, step: () => Promise<void>): Promise<boolean> {
    try {
      await step();
      return true;
    } catch (err) {
      this.result.failures.push(`failed to ${what}: ${(err as Error).message}`);
      return false;
    }
  }
}

/**
 * The dead instances of a pod's init containers beyond the newest of each
 * (the kubelet's pruneInitContainersBeforeStart, on every sync): the container
 * GC would take them within a minute, and an init container that fails in a
 * loop would pile them up until then. Instances in an unknown state go too; the
 * sync stopped them first. STATUS lists the newest first.
 */
export function initContainersToPrune(pod: Pod, containers: readonly ContainerInstance[]): string[] {
  const names = new Set((pod.spec.initContainers ?? []).map((c) => c.name));
  const kept = new Set<string>();
  const prune: string[] = [];
  for (const c of containers) {
    if (!names.has(c.name) || (c.state !== 'exited' && c.state !== 'unknown')) continue;
    if (kept.has(c.name)) prune.push(c.id);
    else kept.add(c.name);
  }
  return prune;
}
