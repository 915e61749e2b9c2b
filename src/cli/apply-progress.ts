// What `knode apply` shows of the manifests' workloads while it waits: each
// one's progress and its pods, read from the local controllers' store as it
// changes, for the task list (src/ui/workload-tasks.ts).
import { rolloutState, type LocalWorkloads } from '../controllers/index.js';
import { podRow } from '../engine/api/printers.js';
import type { Pod } from '../engine/api/v1.js';
import type { DaemonSet, Deployment, Job, KubeObject, ReplicaSet, StatefulSet } from '../engine/api/workloads.js';
import { workloadRow } from '../ui/workload-table.js';
import { WORKLOAD_KINDS } from './apply-report.js';
import type { PodProgress, WorkloadFeed, WorkloadProgress } from '../ui/workload-tasks.js';

export interface ApplyWorkloadFeed extends WorkloadFeed {
  /** Apply stops waiting; WHY is told for the workloads not done ("timed out after 4m"). */
  finish(why: string): void;
}

/** The feed of the workloads KEYS (`kind/namespace/name`) names; other kinds (ConfigMaps, claims) are left out. */
export function workloadFeed(workloads: LocalWorkloads, keys: string[]): ApplyWorkloadFeed {
  const shown = keys.filter((key) => WORKLOAD_KINDS.has(key.split('/')[0]));
  const listeners = new Set<(w: WorkloadProgress) => void>();
  const said = new Map<string, string>();
  let finished!: (why: string) => void;
  const ended = new Promise<string>((resolve) => (finished = resolve));
  const current = () => shown.map((key) => workloadProgress(workloads, key));
  // Told once a turn of the event loop: a pod's change is several of the store's (the pod, its ReplicaSet, its Deployment).
  let pending: NodeJS.Immediate | undefined;
  const tell = () => {
    pending = undefined;
    for (const w of current()) {
      const text = JSON.stringify(w);
      if (said.get(w.key) === text) continue;
      said.set(w.key, text);
      for (const listener of [...listeners]) listener(w);
    }
  };
  const unwatch = workloads.store.watch(() => (pending ??= setImmediate(tell)), { shared: true });
  return {
    current,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    ended,
    finish: (why) => {
      // What changed last is told before why the waiting ended: a workload that got ready then is ready.
      if (pending) {
        clearImmediate(pending);
        tell();
      }
      unwatch();
      finished(why);
    },
  };
}

/** One workload as the task list shows it: kubectl's name for it, its progress, and its pods. */
export function workloadProgress(workloads: LocalWorkloads, key: string): WorkloadProgress {
  const [kind, namespace, name] = key.split('/');
  const o = workloads.store.get(kind, namespace, name);
  const resource = `${kind.toLowerCase()}.${kind === 'Job' || kind === 'CronJob' ? 'batch' : 'apps'}`;
  const where = namespace === 'default' ? '' : ` -n ${namespace}`;
  if (!o) return { key, name: `${resource}/${name}${where}`, summary: 'deleted', state: 'failed', message: 'it was deleted', pods: [] };
  const state = rolloutState(o);
  // Read only, on every change of the store: its own objects, not copies.
  const pods = workloads.withDependents([key], { shared: true }).filter((d) => d.kind === 'Pod') as unknown as Pod[];
  return {
    key,
    name: `${workloadRow(o, 0)?.resource ?? resource}/${name}${where}`,
    summary: summaryOf(o),
    state: state.state,
    message: state.message,
    pods: pods.map(podProgress),
  };
}

/** The few words after a workload's name: how many of its pods are ready, or of its completions done. */
function summaryOf(o: KubeObject): string {
  switch (o.kind) {
    case 'Deployment':
    case 'ReplicaSet':
    case 'StatefulSet': {
      const set = o as Deployment | ReplicaSet | StatefulSet;
      return `${set.status?.readyReplicas ?? 0}/${set.spec.replicas ?? 1} ready`;
    }
    case 'DaemonSet': {
      const status = (o as DaemonSet).status;
      return `${status?.numberReady ?? 0}/${status?.desiredNumberScheduled ?? 0} ready`;
    }
    case 'Job': {
      const job = o as Job;
      const completions = job.spec.completions;
      const done = `${job.status?.succeeded ?? 0}${completions !== undefined && completions !== null ? `/${completions}` : ''} complete`;
      return job.status?.failed ? `${done}, ${job.status.failed} failed` : done;
    }
    default:
      return 'created';
  }
}

/**
 * A pod as the task list shows it: kubectl's STATUS, and whether it is done
 * as its workload counts it (Succeeded for a Job's pod, Ready for the others).
 */
function podProgress(pod: Pod): PodProgress {
  const row = podRow(pod);
  const phase = pod.status?.phase;
  const ownedByJob = pod.metadata.ownerReferences?.some((r) => r.controller && r.kind === 'Job') ?? false;
  const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  const done = ownedByJob ? phase === 'Succeeded' : ready && !pod.metadata.deletionTimestamp;
  return {
    ref: `${row.namespace}/${row.name}`,
    name: row.name,
    ready: row.ready,
    status: row.status,
    restarts: row.restarts,
    state: phase === 'Failed' ? 'failed' : done ? 'done' : 'waiting',
    ...(phase === 'Failed' ? { message: failureOf(pod) } : withFailingContainer(pod, row.namespace, row.name)),
  };
}

/**
 * Why a pod that has not failed is not ready yet, when a container of it
 * exited non-zero (a crash loop: which, how, and where its output is), or
 * waits with the kubelet's message (an image it cannot pull, a missing
 * ConfigMap).
 */
function withFailingContainer(pod: Pod, namespace: string, name: string): { message?: string } {
  const failed = firstFailed(pod, { initContainers: true, previous: true });
  if (failed) {
    const target = namespace === 'default' ? name : `${namespace}/${name}`;
    const previous = failed.previous ? ' --previous' : '';
    return { message: `container ${failed.name} exited with code ${failed.exitCode} (knode logs ${target} -c ${failed.name}${previous})` };
  }
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const stuck = statuses.find((c) => c.state?.waiting?.message);
  const waiting = stuck?.state?.waiting;
  return waiting ? { message: `container ${stuck!.name}: ${waiting.message}` } : {};
}

/** Why a pod failed: the kubelet's message, else the first container that exited non-zero. */
function failureOf(pod: Pod): string | undefined {
  if (pod.status?.message) return pod.status.message;
  const failed = firstFailed(pod, { initContainers: false, previous: false });
  return failed && `container ${failed.name} exited with code ${failed.exitCode}`;
}

/**
 * The first container of POD that exited non-zero: its current state, else
 * (PREVIOUS) its last one, which a restarted container keeps; init
 * containers first when INITCONTAINERS asks.
 */
function firstFailed(
  pod: Pod,
  { initContainers, previous }: { initContainers: boolean; previous: boolean },
): { name: string; exitCode: number; previous: boolean } | undefined {
  const statuses = [...(initContainers ? (pod.status?.initContainerStatuses ?? []) : []), ...(pod.status?.containerStatuses ?? [])];
  for (const c of statuses) {
    const current = c.state?.terminated;
    if (current && current.exitCode !== 0) return { name: c.name, exitCode: current.exitCode, previous: false };
    const last = previous ? c.lastState?.terminated : undefined;
    if (last && last.exitCode !== 0) return { name: c.name, exitCode: last.exitCode, previous: true };
  }
  return undefined;
}
