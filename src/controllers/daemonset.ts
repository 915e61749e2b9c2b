import { ClusterError } from '../engine/cluster/client.js';
import type { Pod } from '../engine/api/v1.js';
import { type DaemonSet, type PodTemplateSpec } from '../engine/api/workloads.js';
import {
  createPod,
  isPodAvailable,
  isPodReady,
  objectKey,
  omitZeroCounts,
  podFromTemplate,
  podReadyCondition,
  podsControlledBy,
  recordSyncFailed,
  splitKey,
  watchOwned,
  WorkQueue,
  type Controller,
  type ControllerDeps,
} from './controller.js';
import { TEMPLATE_GENERATION } from './defaults.js';
import { affinityOf, fitsNodeAffinity, untoleratedTaints, type Node, type Toleration } from './node-fit.js';
import { latestRevision, ownedRevisions, REVISION_LABEL, truncateHistory } from './revisions.js';

export const TEMPLATE_GENERATION_LABEL = 'pod-template-generation';

/** util.AddOrUpdateDaemonPodTolerations: node problems never evict or keep out a daemon pod. */
const DAEMON_TOLERATIONS: Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];
const NETWORK_UNAVAILABLE: Toleration = { key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' };

/**
 * The DaemonSet controller (pkg/controller/daemon) for the one node there
 * is: a pod `<name>-<5 random>` here when the template's node selector,
 * required node affinity and tolerations let it run here, none otherwise
 * (a pod that no longer fits is deleted); finished pods are replaced; a
 * RollingUpdate deletes the old pod and makes the new one once it is gone
 * (maxUnavailable), or with maxSurge makes the new one first and deletes
 * the old once the new is available.
 */
export class DaemonSetController implements Controller {
  private readonly queue: WorkQueue;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new WorkQueue(deps.clock, (key) => this.sync(key), recordSyncFailed(deps, 'DaemonSet'));
  }

  start(): void {
    this.unsubscribe = watchOwned(this.deps.store, this.queue, 'DaemonSet', 'Pod');
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.stop();
  }

  /** Syncs every DaemonSet again: the node's taints changed, so a daemon pod may now fit here, or may not. */
  resyncAll(): void {
    for (const ds of this.deps.store.list('DaemonSet')) this.queue.add(objectKey(ds));
  }

  private get node(): Node {
    return { name: this.deps.nodeName, labels: this.deps.nodeLabels, taints: this.deps.nodeTaints?.() ?? [] };
  }

  private sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const ds = this.deps.store.get<DaemonSet>('DaemonSet', namespace, name);
    if (!ds || ds.metadata.deletionTimestamp) return;
    const revisions = ownedRevisions(this.deps.store, ds);
    const revision = latestRevision(this.deps.store, ds, ds.spec.template, revisions, ds.spec.selector.matchLabels ?? {});
    const hash = revision.metadata.labels![REVISION_LABEL];
    this.manage(ds, hash);
    if (ds.spec.updateStrategy?.type !== 'OnDelete') this.rollingUpdate(ds, hash);
    this.updateStatus(ds, hash);
    const live = new Set([revision.metadata.name!]);
    for (const pod of podsControlledBy(this.deps.store, namespace, ds.metadata.uid!)) {
      const used = revisions.find((r) => r.metadata.labels?.[REVISION_LABEL] === pod.metadata.labels?.[REVISION_LABEL]);
      if (used) live.add(used.metadata.name!);
    }
    truncateHistory(this.deps.store, ownedRevisions(this.deps.store, ds), live, ds.spec.revisionHistoryLimit ?? 10);
  }

  /** nodeShouldRunDaemonPod: [should run a pod here, may keep one that runs]. */
  private shouldRun(ds: DaemonSet): [boolean, boolean] {
    const spec = ds.spec.template.spec;
    if (spec.nodeName && spec.nodeName !== this.node.name) return [false, false];
    if (!fitsNodeAffinity(spec, this.node)) return [false, false];
    const untolerated = untoleratedTaints(daemonTolerations(ds.spec.template), this.node);
    if (untolerated.length > 0) return [false, !untolerated.some((t) => t.effect === 'NoExecute')];
    return [true, true];
  }

  /** podsShouldBeOnNode and syncNodes: one running pod when it should run, none when it may not; finished ones replaced. */
  private manage(ds: DaemonSet, hash: string): void {
    const [shouldRun, mayContinue] = this.shouldRun(ds);
    const pods = podsControlledBy(this.deps.store, ds.metadata.namespace!, ds.metadata.uid!);
    if (!mayContinue) {
      for (const pod of pods.filter((p) => !p.metadata.deletionTimestamp)) this.deletePod(ds, pod);
      return;
    }
    const running: Pod[] = [];
    for (const pod of pods) {
      if (pod.metadata.deletionTimestamp) continue;
      const phase = pod.status?.phase;
      if (phase === 'Failed' || phase === 'Succeeded') {
        const [reason, what, verb] =
          phase === 'Failed' ? ['FailedDaemonPod', 'failed', 'kill'] : ['SucceededDaemonPod', 'succeeded', 'delete'];
        const message = `Found ${what} daemon pod ${pod.metadata.namespace}/${pod.metadata.name} on node ${this.node.name}, will try to ${verb} it`;
        this.deps.record({ object: ds, type: phase === 'Failed' ? 'Warning' : 'Normal', reason, message });
        this.deletePod(ds, pod);
      } else running.push(pod);
    }
    if (shouldRun && running.length === 0 && pods.every((p) => !p.metadata.deletionTimestamp)) return this.createPod(ds, hash);
    // Without surge one pod is kept, the oldest. With surge, the oldest updated one, and beside it the oldest
    // old one only while the old is ready and the new is not.
    const byAge = [...running].sort(oldestFirst);
    const keep = new Set(byAge.slice(0, 1));
    if (surgeOf(ds) > 0) {
      const newest = byAge.find((p) => isUpdated(p, hash, ds));
      const oldest = byAge.find((p) => !isUpdated(p, hash, ds));
      if (newest && oldest) {
        keep.clear();
        keep.add(newest);
        if (!isPodReady(newest) && isPodReady(oldest)) keep.add(oldest);
      }
    }
    for (const pod of byAge) if (!keep.has(pod)) this.deletePod(ds, pod);
  }

  /** rollingUpdate for one node: the old pod goes first (maxUnavailable), or after its new one is available (maxSurge). */
  private rollingUpdate(ds: DaemonSet, hash: string): void {
    const now = this.deps.clock.now();
    const minReady = ds.spec.minReadySeconds ?? 0;
    const pods = podsControlledBy(this.deps.store, ds.metadata.namespace!, ds.metadata.uid!).filter(
      (p) => !p.metadata.deletionTimestamp && p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded',
    );
    const old = pods.filter((p) => !isUpdated(p, hash, ds));
    const fresh = pods.find((p) => isUpdated(p, hash, ds));
    if (old.length === 0 || !this.shouldRun(ds)[0]) return;
    if (surgeOf(ds) === 0) {
      // One node: it is unavailable only through this update, so maxUnavailable >= 1 lets its old pod go.
      if (!fresh) for (const pod of old) this.deletePod(ds, pod);
      return;
    }
    if (!fresh) {
      if (old.every((p) => isPodAvailable(p, minReady, now))) this.createPod(ds, hash);
      else for (const pod of old) this.deletePod(ds, pod);
      return;
    }
    if (isPodAvailable(fresh, minReady, now)) for (const pod of old) this.deletePod(ds, pod);
    else if (minReady > 0 && isPodReady(fresh)) {
      const since = Date.parse(podReadyCondition(fresh)?.lastTransitionTime ?? '') || now;
      this.queue.addAfter(objectKey(ds), Math.max(since + minReady * 1000 - now, 1));
    }
  }

  private createPod(ds: DaemonSet, hash: string): void {
    const generation = ds.metadata.annotations?.[TEMPLATE_GENERATION];
    const template = structuredClone(ds.spec.template);
    template.spec.tolerations = daemonTolerations(template);
    const pod = podFromTemplate(this.deps, template, ds, {
      generateName: `${ds.metadata.name}-`,
      labels: { [REVISION_LABEL]: hash, ...(generation ? { [TEMPLATE_GENERATION_LABEL]: generation } : {}) },
    });
    setNodeNameAffinity(pod, this.node.name);
    try {
      const made = createPod(this.deps.store, pod);
      this.deps.record({ object: ds, type: 'Normal', reason: 'SuccessfulCreate', message: `Created pod: ${made.metadata.name}` });
    } catch (err) {
      this.deps.record({ object: ds, type: 'Warning', reason: 'FailedCreate', message: `Error creating: ${(err as Error).message}` });
    }
  }

  private deletePod(ds: DaemonSet, pod: Pod): void {
    try {
      this.deps.store.delete('Pod', pod.metadata.namespace!, pod.metadata.name!, { uid: pod.metadata.uid });
      this.deps.record({ object: ds, type: 'Normal', reason: 'SuccessfulDelete', message: `Deleted pod: ${pod.metadata.name}` });
    } catch (err) {
      if (!ClusterError.notFound(err)) throw err;
    }
  }

  /** updateDaemonSetStatus for one node. */
  private updateStatus(ds: DaemonSet, hash: string): void {
    const now = this.deps.clock.now();
    const [shouldRun] = this.shouldRun(ds);
    const pods = podsControlledBy(this.deps.store, ds.metadata.namespace!, ds.metadata.uid!)
      .filter((p) => !(p.metadata.deletionTimestamp && (p.status?.phase === 'Failed' || p.status?.phase === 'Succeeded')))
      .sort(oldestFirst);
    const pod = pods[0];
    const ready = shouldRun && pod !== undefined && isPodReady(pod);
    const available = ready && isPodAvailable(pod, ds.spec.minReadySeconds ?? 0, now);
    const desired = shouldRun ? 1 : 0;
    const status: NonNullable<DaemonSet['status']> = {
      currentNumberScheduled: shouldRun && pod ? 1 : 0,
      numberMisscheduled: !shouldRun && pod ? 1 : 0,
      desiredNumberScheduled: desired,
      numberReady: ready ? 1 : 0,
      observedGeneration: ds.metadata.generation,
      updatedNumberScheduled: shouldRun && pod && isUpdated(pod, hash, ds) ? 1 : 0,
      numberAvailable: available ? 1 : 0,
      numberUnavailable: desired - (available ? 1 : 0),
    };
    // DaemonSetStatus: the first four counts are always written, the others are omitempty.
    const written = omitZeroCounts(status, ['updatedNumberScheduled', 'numberAvailable', 'numberUnavailable']);
    this.deps.store.updateStatus('DaemonSet', ds.metadata.namespace!, ds.metadata.name!, written, ds.metadata.uid);
  }
}

/** The template's tolerations and the ones every daemon pod gets (AddOrUpdateDaemonPodTolerations). */
export function daemonTolerations(template: PodTemplateSpec): Toleration[] {
  const out = [...(template.spec.tolerations ?? [])];
  const wanted = [...DAEMON_TOLERATIONS, ...(template.spec.hostNetwork ? [NETWORK_UNAVAILABLE] : [])];
  for (const t of wanted) {
    const i = out.findIndex((o) => o.key === t.key && o.effect === t.effect);
    if (i >= 0) out[i] = t;
    else out.push(t);
  }
  return out;
}

/** ReplaceDaemonSetPodNodeNameNodeAffinity: the pod's required node affinity names this node by metadata.name. */
function setNodeNameAffinity(pod: Pod, node: string): void {
  const term = { matchFields: [{ key: 'metadata.name', operator: 'In' as const, values: [node] }] };
  const spec = pod.spec as Pod['spec'] & { affinity?: Record<string, unknown> };
  const affinity = (spec.affinity = affinityOf(spec) ?? {});
  const nodeAffinity = (affinity.nodeAffinity ??= {});
  nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms: [term] };
}

/** IsPodUpdated: the pod's revision hash, or its template generation, is the DaemonSet's. */
function isUpdated(pod: Pod, hash: string, ds: DaemonSet): boolean {
  const generation = ds.metadata.annotations?.[TEMPLATE_GENERATION];
  return (
    pod.metadata.labels?.[REVISION_LABEL] === hash ||
    (generation !== undefined && pod.metadata.labels?.[TEMPLATE_GENERATION_LABEL] === generation)
  );
}

/** SurgeCount for one node: maxSurge as a count of 1 (a percent rounds up). */
function surgeOf(ds: DaemonSet): number {
  if (ds.spec.updateStrategy?.type === 'OnDelete') return 0;
  const surge = ds.spec.updateStrategy?.rollingUpdate?.maxSurge ?? 0;
  return typeof surge === 'number' ? surge : Math.ceil(parseInt(surge, 10) / 100);
}

function oldestFirst(a: Pod, b: Pod): number {
  return (
    Date.parse(a.metadata.creationTimestamp ?? '') - Date.parse(b.metadata.creationTimestamp ?? '') ||
    (a.metadata.name! < b.metadata.name! ? -1 : 1)
  );
}
