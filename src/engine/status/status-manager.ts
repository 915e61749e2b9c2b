import { isDeepStrictEqual } from 'node:util';
import { podRef } from '../api/pod-util.js';
import { podRow } from '../api/printers.js';
import type { Pod, PodStatus } from '../api/v1.js';
import type { ContainerSummary, EventStream } from '../events.js';
import { terminatedPodStatus } from './terminate.js';

interface Entry {
  status: PodStatus;
  version: number;
  pod: Pod;
}

/** Where the latest status of a pod comes from (upstream's status.PodStatusProvider). */
export interface PodStatusProvider {
  getPodStatus(uid: string): PodStatus | undefined;
}

/**
 * The kubelet's status manager (upstream's status.Manager): the latest API
 * status of every pod. Its users take this interface, so that a test can
 * hand them a small fake.
 */
export interface StatusManager extends PodStatusProvider {
  /** The pod as the API would show it now: its spec with the latest status. */
  podWithStatus(pod: Pod): Pod;
  setPodStatus(pod: Pod, status: PodStatus): void;
  /**
   * The pod terminated: its latest status with every container terminated (an unknown end
   * for those that did not report one) and, unless static, a terminal phase (TerminatePod).
   */
  terminatePod(pod: Pod): void;
  /** Forgets the statuses of pods whose UID is not in `known`. */
  removeOrphanedStatuses(known: Set<string>): void;
  deletePodStatus(uid: string): void;
}

/**
 * The status manager in memory (upstream's status manager): the latest API
 * status of every pod, with a version that grows on each real change. It
 * reports the moments people ask about (first Running with every container
 * started, Ready, Succeeded, Failed) on the event stream. The cluster's
 * StatusSync writes the statuses to an apiserver, when the node has joined one.
 */
export class BasicStatusManager implements StatusManager {
  private readonly statuses = new Map<string, Entry>();

  constructor(private readonly events: EventStream) {}

  getPodStatus(uid: string): PodStatus | undefined {
    return this.statuses.get(uid)?.status;
  }

  podWithStatus(pod: Pod): Pod {
    const status = this.getPodStatus(pod.metadata.uid ?? '');
    return status ? { ...pod, status } : pod;
  }

  setPodStatus(pod: Pod, status: PodStatus): void {
    const uid = pod.metadata.uid!;
    const previous = this.statuses.get(uid);
    if (previous && isDeepStrictEqual(withoutTimes(previous.status), withoutTimes(status))) return;
    const version = (previous?.version ?? 0) + 1;
    this.statuses.set(uid, { status, version, pod });
    const base = { pod: podRef(pod), uid };
    const row = podRow({ ...pod, status });
    this.events.emit({
      ...base,
      type: 'StatusChanged',
      message: `${row.status} ${row.ready}`,
      detail: {
        phase: status.phase ?? '',
        version,
        status: row.status,
        ready: row.ready,
        restarts: row.restarts,
        ip: status.podIP ?? '',
        containers: containerSummary(status),
      },
    });
    const before = previous?.status;
    if (allRunning(status) && !allRunning(before)) this.events.emit({ ...base, type: 'PodRunning', message: 'every container started' });
    if (isReady(status) && !isReady(before)) this.events.emit({ ...base, type: 'PodReady', message: 'all containers ready' });
    if (status.phase === 'Succeeded' && before?.phase !== 'Succeeded')
      this.events.emit({ ...base, type: 'PodSucceeded', message: 'all containers completed' });
    if (status.phase === 'Failed' && before?.phase !== 'Failed')
      this.events.emit({ ...base, type: 'PodFailed', reason: status.reason, message: status.message ?? failureOf(status) });
  }

  terminatePod(pod: Pod): void {
    this.setPodStatus(pod, terminatedPodStatus(pod, this.getPodStatus(pod.metadata.uid ?? '')));
  }

  removeOrphanedStatuses(known: Set<string>): void {
    for (const uid of this.statuses.keys()) if (!known.has(uid)) this.statuses.delete(uid);
  }

  deletePodStatus(uid: string): void {
    this.statuses.delete(uid);
  }
}

/** Each container's state, reason and restarts (the TUI's detail pane shows them). */
function containerSummary(status: PodStatus): ContainerSummary[] {
  return [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])].map((c) => ({
    name: c.name,
    state: c.state?.running ? 'running' : c.state?.terminated ? 'exited' : 'waiting',
    reason: c.state?.waiting?.reason ?? c.state?.terminated?.reason ?? '',
    restartCount: c.restartCount,
  }));
}

function withoutTimes(status: PodStatus): PodStatus {
  return { ...status, conditions: status.conditions?.map((c) => ({ ...c, lastTransitionTime: undefined })) };
}

/** Running, with every regular container running (the moment pod start-up latency ends). */
function allRunning(status: PodStatus | undefined): boolean {
  return status?.phase === 'Running' && (status.containerStatuses ?? []).every((c) => c.state?.running);
}

function isReady(status: PodStatus | undefined): boolean {
  return status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

function failureOf(status: PodStatus): string {
  const failed = [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])].find(
    (c) => (c.state?.terminated?.exitCode ?? 0) !== 0 || (c.lastState?.terminated?.exitCode ?? 0) !== 0,
  );
  const t = failed?.state?.terminated ?? failed?.lastState?.terminated;
  return failed && t ? `container ${failed.name} exited with ${t.exitCode} (${t.reason ?? 'Error'})` : 'pod failed';
}
