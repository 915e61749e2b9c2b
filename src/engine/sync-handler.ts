import { isTerminalPhase, podRef, setDisruptionTarget } from './api/pod-util.js';
import type { Pod, PodStatus } from './api/v1.js';
import { canAdmitPod, nodeAllocatable, type AdmitResult } from './admission.js';
import { SysctlAllowlist } from './sysctl-allowlist.js';
import { goArch } from './cluster/node-info.js';
import type { PodUpdate } from './config/pod-storage.js';
import type { EventStream } from './events.js';
import type { PodLifecycleEvent } from './pleg/types.js';
import { isSyncPodWorthy } from './pleg/types.js';
import { isMirrorPod, type PodManager } from './pod-manager.js';
import type { UpdateType } from './pod-syncer.js';
import type { PodWorkers } from './pod-workers.js';
import { PREEMPT_MESSAGE, PREEMPT_REASON } from './preemption.js';
import { qosClassOf } from './status/qos.js';
import type { StatusManager } from './status/status-manager.js';
import { compareStrings } from '../util/compare.js';

export interface SyncHandlerDeps {
  podManager: PodManager;
  podWorkers: PodWorkers;
  statusManager: StatusManager;
  events: EventStream;
  maxPods: number;
  /** The root dir: its filesystem's capacity is the node's ephemeral storage. */
  rootDir?: string;
  /** --allowed-unsafe-sysctls. */
  allowedUnsafeSysctls?: string[];
  nodeName: string;
  /** --node-labels: what a nodeSelector may ask for besides the default labels. */
  extraLabels?: Record<string, string>;
  /** The eviction manager's word on a new pod: none (BestEffort ones under memory pressure alone) while the node is under pressure. */
  evictionAdmit?: (pod: Pod) => AdmitResult;
  /** The node shutdown's word on a new pod: none while the node drains. */
  shutdownAdmit?: () => AdmitResult;
  /** The clock's now, for the DisruptionTarget condition of a preempted pod. */
  now?: () => number;
}

/** The labels a node carries that a pod's nodeSelector can ask for. */
export function nodeLabels(nodeName: string): Record<string, string> {
  return { 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': goArch(), 'kubernetes.io/hostname': nodeName };
}

/**
 * The kubelet's SyncHandler: what the sync loop does with each kind of
 * message. Additions are admitted (or rejected as Failed) in creation order;
 * everything accepted becomes an update to the pod's worker.
 */
export class SyncHandler {
  private readonly rejected = new Set<string>();
  private readonly node;
  private readonly labels;
  private readonly sysctls;

  constructor(private readonly deps: SyncHandlerDeps) {
    this.node = nodeAllocatable(deps.maxPods, deps.rootDir);
    this.labels = { ...nodeLabels(deps.nodeName), ...deps.extraLabels };
    this.sysctls = new SysctlAllowlist(deps.allowedUnsafeSysctls);
  }

  handleConfigUpdate(update: PodUpdate): void {
    // Mirror pods are bookkeeping, never run: their static pod is synced instead (the kubelet's handleMirrorPod).
    const mirrors = update.pods.filter(isMirrorPod);
    if (mirrors.length > 0) {
      for (const mirror of mirrors) {
        if (update.op === 'REMOVE') this.deps.podManager.removePod(mirror);
        else this.deps.podManager.updatePod(mirror);
        const staticPod = this.deps.podManager.getPodByMirrorPod(mirror);
        if (staticPod) this.dispatchWork(staticPod, 'sync');
      }
      update = { ...update, pods: update.pods.filter((p) => !isMirrorPod(p)) };
      if (update.pods.length === 0 && update.op !== 'ADD') return;
    }
    switch (update.op) {
      case 'ADD':
        for (const pod of update.pods)
          this.deps.events.emit({
            type: 'PodSeen',
            pod: podRef(pod),
            uid: pod.metadata.uid!,
            message: `seen by source "${update.source}"`,
            detail: { source: update.source },
          });
        this.handlePodAdditions(update.pods);
        return;
      case 'UPDATE':
      case 'DELETE': // graceful deletion: the pod carries its deletionTimestamp
        for (const pod of update.pods)
          this.deps.events.emit({
            type: update.op === 'UPDATE' ? 'PodUpdated' : 'PodDeleted',
            pod: podRef(pod),
            uid: pod.metadata.uid!,
            message: `${update.op} from source "${update.source}"`,
          });
        this.handlePodUpdates(update.pods);
        return;
      case 'REMOVE':
        this.handlePodRemoves(update.pods);
        return;
      case 'RECONCILE':
        this.handlePodReconcile(update.pods);
        return;
    }
  }

  handlePodAdditions(pods: Pod[]): void {
    const sorted = [...pods].sort((a, b) => compareStrings(a.metadata.creationTimestamp ?? '', b.metadata.creationTimestamp ?? ''));
    for (const pod of sorted) {
      const uid = pod.metadata.uid!;
      this.deps.podManager.addPod(pod);
      if (isTerminalPhase(pod)) continue;
      const active = this.activePods().filter((p) => p.metadata.uid !== uid);
      // The eviction handler first, the sysctl handler before the predicates, as the kubelet registers them.
      const eviction = this.deps.evictionAdmit?.(pod) ?? { admit: true };
      const shutdown = eviction.admit ? (this.deps.shutdownAdmit?.() ?? { admit: true }) : eviction;
      const allowed = shutdown.admit ? this.sysctls.admit(pod) : shutdown;
      const verdict = allowed.admit ? canAdmitPod(pod, active, this.node, this.labels, this.deps.nodeName) : allowed;
      if (!verdict.admit) {
        this.rejectPod(pod, verdict.reason!, verdict.message!);
        continue;
      }
      for (const victim of verdict.preempt ?? []) this.preempt(victim);
      this.rejected.delete(uid);
      this.deps.events.emit({ type: 'PodAdmitted', pod: podRef(pod), uid });
      this.dispatchWork(pod, 'create');
    }
  }

  handlePodUpdates(pods: Pod[]): void {
    for (const pod of pods) {
      this.deps.podManager.updatePod(pod);
      this.dispatchWork(pod, 'update');
    }
  }

  handlePodRemoves(pods: Pod[]): void {
    for (const pod of pods) {
      this.deps.podManager.removePod(pod);
      this.deps.events.emit({ type: 'PodRemoved', pod: podRef(pod), uid: pod.metadata.uid!, message: 'no source wants the pod any more' });
      if (this.rejected.delete(pod.metadata.uid!)) continue;
      this.deps.podWorkers.updatePod({ updateType: 'kill', pod });
    }
  }

  handlePodReconcile(pods: Pod[]): void {
    for (const pod of pods) this.deps.podManager.updatePod(pod);
  }

  handlePodSyncs(pods: Pod[]): void {
    for (const pod of pods) this.dispatchWork(pod, 'sync');
  }

  handlePlegEvent(event: PodLifecycleEvent): void {
    if (!isSyncPodWorthy(event)) return;
    const pod = this.deps.podManager.getPodByUid(event.id);
    if (pod) this.handlePodSyncs([pod]);
  }

  /** Whether admission turned the pod away (it has no worker and never ran). */
  isRejected(uid: string): boolean {
    return this.rejected.has(uid);
  }

  /** Pods admitted and not finished: what admission weighs a new pod against. */
  activePods(): Pod[] {
    return this.deps.podManager
      .getPods()
      .filter(
        (p) =>
          !this.rejected.has(p.metadata.uid!) &&
          this.deps.statusManager.getPodStatus(p.metadata.uid!)?.phase !== 'Failed' &&
          this.deps.statusManager.getPodStatus(p.metadata.uid!)?.phase !== 'Succeeded',
      );
  }

  private dispatchWork(pod: Pod, updateType: UpdateType): void {
    if (this.rejected.has(pod.metadata.uid!)) return;
    this.deps.podWorkers.updatePod({ updateType, pod });
  }

  private rejectPod(pod: Pod, reason: string, message: string): void {
    const uid = pod.metadata.uid!;
    this.rejected.add(uid);
    this.deps.events.emit({ type: 'PodRejected', pod: podRef(pod), uid, reason, message });
    this.deps.statusManager.setPodStatus(pod, {
      qosClass: qosClassOf(pod),
      phase: 'Failed',
      reason,
      message: `Pod was rejected: ${message}`,
    });
  }

  /**
   * Kills a pod to make room for a critical one, its status Failed with the
   * kubelet's reason, message and DisruptionTarget condition. The kubelet
   * waits for the kill before it admits the critical pod; here the critical
   * pod's worker starts at once, and the runtime frees the room as the kill ends.
   */
  private preempt(victim: Pod): void {
    const now = this.deps.now ?? Date.now;
    // The kubelet records the event before it kills the pod (CriticalPodAdmissionHandler.evictPodsToFreeRequests).
    this.deps.events.emit({
      type: 'PodPreempted',
      pod: podRef(victim),
      uid: victim.metadata.uid!,
      reason: PREEMPT_REASON,
      message: PREEMPT_MESSAGE,
    });
    const statusFn = (status: PodStatus) => {
      status.phase = 'Failed';
      status.reason = PREEMPT_REASON;
      status.message = PREEMPT_MESSAGE;
      setDisruptionTarget(status, 'Pod was preempted by Kubelet to accommodate a critical pod.', now());
    };
    // An eviction for the pod workers, as the kubelet's preemption kills with isEvicted.
    this.deps.podWorkers.updatePod({ updateType: 'kill', pod: victim, statusFn, evict: true });
  }
}
