// What every local controller shares: its dependencies, a work queue of
// object keys, and the pods it makes from a template, bound to this node as
// the scheduler would bind them.
import type { Clock, Timer } from '../util/clock.js';
import type { Pod, PodCondition } from '../engine/api/v1.js';
import { rfc3339 } from '../engine/api/v1.js';
import { matchesRequiredNodeAffinity } from '../engine/node-affinity.js';
import { controllerOf, type KubeObject, type PodTemplateSpec } from '../engine/api/workloads.js';
import { untoleratedTaints, type Taint } from './node-fit.js';
import type { ObjectStore } from './store.js';
import type { NodeAllocatable } from '../engine/admission.js';
import { podRequest } from '../engine/resource-request.js';

/** An event about an object, as a controller's EventRecorder would post it. */
export interface ControllerEvent {
  object: KubeObject;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface ControllerDeps {
  store: ObjectStore;
  clock: Clock;
  /** The node every pod is bound to, and its labels (for the scheduler's node selector check). */
  nodeName: string;
  nodeLabels: Record<string, string>;
  /** The node's taints now (the pressure taints its eviction manager's conditions stand for), for the scheduler's and the DaemonSet controller's fit. */
  nodeTaints?: () => Taint[];
  /** What the node can hold, for the scheduler's resource fit (none: everything fits). */
  allocatable?: NodeAllocatable;
  /** The pods the node runs that the store does not hold (static pods): they take room too. */
  otherPods?: () => Pod[];
  record: (event: ControllerEvent) => void;
}

export interface Controller {
  start(): void;
  stop(): void;
}

/**
 * A controller's work queue: keys are synced one at a time, a key added
 * while queued is synced once, and a key can be asked for again later (a
 * minReadySeconds or a back-off to wait out) on the clock.
 */
export class WorkQueue {
  private readonly queued = new Set<string>();
  private readonly later = new Map<string, Timer>();
  private draining = false;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly sync: (key: string) => void,
    private readonly onError: (key: string, err: Error) => void,
  ) {}

  add(key: string): void {
    if (this.stopped) return;
    this.queued.add(key);
    if (!this.draining) {
      this.draining = true;
      queueMicrotask(() => this.drain());
    }
  }

  /** Syncs KEY again after MS (the earliest of several asks wins). */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    if (ms <= 0) return this.add(key);
    const at = this.clock.now() + ms;
    const existing = this.later.get(key) as (Timer & { at?: number }) | undefined;
    if (existing?.at !== undefined && existing.at <= at) return;
    existing?.cancel();
    const timer = this.clock.setTimeout(() => {
      this.later.delete(key);
      this.add(key);
    }, ms) as Timer & { at?: number };
    timer.at = at;
    this.later.set(key, timer);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.later.values()) t.cancel();
    this.later.clear();
    this.queued.clear();
  }

  private drain(): void {
    // A sync's writes queue more keys; they are taken in the same drain, each once per round.
    let rounds = 0;
    while (this.queued.size > 0 && !this.stopped && rounds++ < 10_000) {
      const [key] = this.queued;
      this.queued.delete(key);
      try {
        this.sync(key);
      } catch (err) {
        this.onError(key, err as Error);
      }
    }
    this.draining = false;
  }
}

export function objectKey(o: { metadata: { namespace?: string; name?: string } }): string {
  return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

export function splitKey(key: string): [string, string] {
  const slash = key.indexOf('/');
  return [key.slice(0, slash), key.slice(slash + 1)];
}

/** The key of the object's controller when it is of kind OWNER (an informer handler's enqueue of the owner). */
export function ownerKey(object: KubeObject, owner: string): string | undefined {
  const ref = controllerOf(object.metadata);
  return ref?.kind === owner ? `${object.metadata.namespace}/${ref.name}` : undefined;
}

/**
 * The informers of a controller of KIND that owns objects of OWNED kind:
 * every KIND object queued at once and on each change, and its owner on
 * each change of an owned object. Returns what ends the watch.
 */
export function watchOwned(store: ObjectStore, queue: WorkQueue, kind: string, owned: string): () => void {
  const unsubscribe = store.watch(
    (e) => {
      const key = e.object.kind === kind ? objectKey(e.object) : e.object.kind === owned ? ownerKey(e.object, kind) : undefined;
      if (key) queue.add(key);
    },
    { shared: true },
  );
  for (const o of store.list(kind)) queue.add(objectKey(o));
  return unsubscribe;
}

/** A WorkQueue failure handler that records a SyncFailed warning on the KIND object the key names, as a controller's event. */
export function recordSyncFailed(deps: Pick<ControllerDeps, 'store' | 'record'>, kind: string): (key: string, err: Error) => void {
  return (key, err) => {
    const [namespace, name] = splitKey(key);
    const object = deps.store.get(kind, namespace, name);
    if (object) deps.record({ object, type: 'Warning', reason: 'SyncFailed', message: err.message });
  };
}

/** Creates a pod in the store (a Pod is a KubeObject whose apiVersion and kind are set). */
export function createPod(store: ObjectStore, pod: Pod): Pod {
  return store.create({ ...pod, apiVersion: 'v1', kind: 'Pod' } as KubeObject) as unknown as Pod;
}

/** Whether OWNER is the object's controller. */
export const controlledBy = (ownerUid: string) => (o: Readonly<KubeObject>) =>
  o.metadata.ownerReferences?.some((r) => r.controller && r.uid === ownerUid) === true;

/** The pods in NAMESPACE whose controller is OWNER, as the store holds them: the caller must neither change nor keep them. */
export function podsControlledByShared(store: ObjectStore, namespace: string, ownerUid: string): readonly Pod[] {
  return store.peek<KubeObject>('Pod', namespace, controlledBy(ownerUid)) as unknown as readonly Pod[];
}

/** The pods in NAMESPACE whose controller is OWNER. */
export function podsControlledBy(store: ObjectStore, namespace: string, ownerUid: string): Pod[] {
  return store.list<KubeObject>('Pod', namespace, controlledBy(ownerUid)) as unknown as Pod[];
}

/** A pod that counts towards a controller's replicas: not finished, not being deleted (controller.IsPodActive). */
export function isPodActive(pod: Pod): boolean {
  return pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

/** A pod being deleted that has not finished (controller.IsPodTerminating): the terminatingReplicas. */
export function isPodTerminating(pod: Pod): boolean {
  return pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed' && !!pod.metadata.deletionTimestamp;
}

export function podReadyCondition(pod: Pod): PodCondition | undefined {
  return pod.status?.conditions?.find((c) => c.type === 'Ready');
}

export function isPodReady(pod: Pod): boolean {
  return podReadyCondition(pod)?.status === 'True';
}

/** Ready for at least minReadySeconds at NOW (podutil.IsPodAvailable). */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  const ready = podReadyCondition(pod);
  if (ready?.status !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = ready.lastTransitionTime ? Date.parse(ready.lastTransitionTime) : 0;
  return since + minReadySeconds * 1000 <= now;
}

/**
 * A pod from OWNER's template (controller.GetPodFromTemplate): the template's
 * labels, annotations and spec, generateName, the controller reference;
 * bound to this node when its node selector and required node affinity
 * allow, else left Pending and unschedulable, as the scheduler would leave it.
 */
export function podFromTemplate(
  deps: Pick<ControllerDeps, 'nodeName' | 'nodeLabels' | 'nodeTaints' | 'clock' | 'store' | 'allocatable' | 'otherPods'>,
  template: PodTemplateSpec,
  owner: KubeObject,
  opts: { generateName?: string; name?: string; labels?: Record<string, string>; annotations?: Record<string, string> },
): Pod {
  const spec = structuredClone(template.spec);
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...(opts.name ? { name: opts.name } : { generateName: opts.generateName }),
      namespace: owner.metadata.namespace,
      labels: { ...template.metadata?.labels, ...opts.labels },
      ...(template.metadata?.annotations || opts.annotations
        ? { annotations: { ...template.metadata?.annotations, ...opts.annotations } }
        : {}),
      ownerReferences: [
        {
          apiVersion: owner.apiVersion,
          kind: owner.kind,
          name: owner.metadata.name!,
          uid: owner.metadata.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec,
  };
  const now = rfc3339(deps.clock.now());
  const why = unschedulable(deps, pod);
  if (why) {
    pod.status = {
      phase: 'Pending',
      conditions: [
        { type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: now, reason: 'Unschedulable', message: why },
      ],
    };
  } else {
    spec.nodeName = deps.nodeName;
    pod.status = { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now }] };
  }
  return pod;
}

/**
 * Why the scheduler would not bind POD to this node, in its words, or
 * undefined when it fits: the node's labels against its selector and
 * required affinity, then its requests against what the bound pods that
 * have not finished leave (NodeResourcesFit). A pod that does not fit stays
 * Pending, as in a cluster, rather than being bound and rejected by the
 * node over and over.
 */
export function unschedulable(
  deps: Pick<ControllerDeps, 'nodeName' | 'nodeLabels' | 'nodeTaints' | 'store' | 'allocatable' | 'otherPods'>,
  pod: Pod,
): string | undefined {
  if (!matchesRequiredNodeAffinity({ metadata: {}, spec: pod.spec } as Pod, deps.nodeLabels, deps.nodeName))
    return "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.";
  const taints = deps.nodeTaints?.() ?? [];
  if (untoleratedTaints(pod.spec.tolerations ?? [], { name: deps.nodeName, labels: deps.nodeLabels, taints }).length > 0)
    return '0/1 nodes are available: 1 node(s) had untolerated taint(s). preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.';
  if (!deps.allocatable) return undefined;
  const boundHere = (p: Readonly<Pod>) =>
    p.spec.nodeName === deps.nodeName && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';
  const stored = deps.store.list<KubeObject>('Pod', undefined, (o) => boundHere(o as unknown as Pod)) as unknown as Pod[];
  const bound = [...stored, ...(deps.otherPods?.() ?? []).filter(boundHere)];
  const short: string[] = [];
  if (bound.length + 1 > deps.allocatable.pods) short.push('1 Too many pods');
  for (const resource of ['cpu', 'memory'] as const) {
    const requested = podRequest(pod, resource);
    if (requested === 0) continue;
    const used = bound.reduce((n, p) => n + podRequest(p, resource), 0);
    if (used + requested > deps.allocatable[resource]) short.push(`1 Insufficient ${resource}`);
  }
  if (short.length === 0) return undefined;
  return `0/1 nodes are available: ${short.join(', ')}. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.`;
}

/**
 * The status with the counts that are 0 left out, as the Go types' `omitempty` leaves them
 * out of what kube-controller-manager writes (a ReplicaSet scaled to 0 has no readyReplicas).
 */
export function omitZeroCounts<T extends object>(status: T, keys: readonly (keyof T)[]): T {
  const out = { ...status };
  for (const k of keys) if (out[k] === 0) delete out[k];
  return out;
}
