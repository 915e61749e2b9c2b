import { ClusterError } from '../engine/cluster/client.js';
import type { Pod, Volume } from '../engine/api/v1.js';
import { type ControllerRevision, type PersistentVolumeClaim, type PodTemplateSpec, type StatefulSet } from '../engine/api/workloads.js';
import {
  createPod,
  isPodAvailable,
  isPodReady,
  objectKey,
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
import { latestRevision, ownedRevisions, REVISION_LABEL, truncateHistory } from './revisions.js';

export const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const POD_INDEX_LABEL = 'apps.kubernetes.io/pod-index';

/**
 * The StatefulSet controller (pkg/controller/statefulset) for one node: pods
 * `<name>-<ordinal>` with a stable hostname and the serviceName as subdomain,
 * a claim per volumeClaimTemplate and ordinal (`<template>-<name>-<ordinal>`,
 * kept after a scale down, as the default Retain policy keeps them);
 * OrderedReady makes one pod at a time, each once the one before is Running
 * and Ready, and removes the highest ordinal first; Parallel does all at once.
 * A RollingUpdate replaces pods from the highest ordinal down to the
 * partition, one at a time, each once the one before is ready again. The
 * templates are kept as ControllerRevisions, as upstream keeps them.
 */
export class StatefulSetController implements Controller {
  private readonly queue: WorkQueue;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new WorkQueue(deps.clock, (key) => this.sync(key), recordSyncFailed(deps, 'StatefulSet'));
  }

  start(): void {
    this.unsubscribe = watchOwned(this.deps.store, this.queue, 'StatefulSet', 'Pod');
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.stop();
  }

  private sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const set = this.deps.store.get<StatefulSet>('StatefulSet', namespace, name);
    if (!set || set.metadata.deletionTimestamp) return;
    const revisions = ownedRevisions(this.deps.store, set);
    const update = latestRevision(this.deps.store, set, set.spec.template, revisions, set.spec.selector.matchLabels ?? {});
    const current = revisions.find((r) => r.metadata.name === set.status?.currentRevision) ?? update;
    this.reconcile(set, current, update);
    const status = this.updateStatus(set, current, update);
    const all = ownedRevisions(this.deps.store, set);
    const live = new Set([status.currentRevision!, status.updateRevision!]);
    for (const pod of podsControlledBy(this.deps.store, namespace, set.metadata.uid!))
      live.add(pod.metadata.labels?.[REVISION_LABEL] ?? '');
    truncateHistory(this.deps.store, all, live, set.spec.revisionHistoryLimit ?? 10);
  }

  /** updateStatefulSet: one step towards the wanted pods; returns early where OrderedReady must wait. */
  private reconcile(set: StatefulSet, current: ControllerRevision, update: ControllerRevision): void {
    const start = set.spec.ordinals?.start ?? 0;
    const replicas = set.spec.replicas ?? 1;
    const ordered = set.spec.podManagementPolicy !== 'Parallel';
    const minReady = set.spec.minReadySeconds ?? 0;
    const now = this.deps.clock.now();
    const pods = new Map<number, Pod>();
    const condemned: Pod[] = [];
    for (const pod of podsControlledBy(this.deps.store, set.metadata.namespace!, set.metadata.uid!)) {
      const ordinal = ordinalOf(set, pod);
      if (ordinal === undefined) continue;
      if (ordinal >= start && ordinal < start + replicas) pods.set(ordinal, pod);
      else condemned.push(pod);
    }
    for (let ordinal = start; ordinal < start + replicas; ordinal++) {
      let pod = pods.get(ordinal);
      if (pod && (pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded') && !pod.metadata.deletionTimestamp) {
        this.deletePod(set, pod);
        pod = undefined;
      }
      if (!pod) {
        const made = this.createPod(set, current, update, ordinal);
        if (made) pods.set(ordinal, made);
        if (ordered) return;
        continue;
      }
      if (pod.metadata.deletionTimestamp) {
        if (ordered) return;
        continue;
      }
      this.createMissingClaims(set, pod, ordinal);
      if (ordered && !this.healthy(set, pod, minReady, now)) return;
    }
    const firstUnhealthy = [...pods.values(), ...condemned].find((p) => !this.healthy(set, p, minReady, now));
    condemned.sort((a, b) => ordinalOf(set, a)! - ordinalOf(set, b)!);
    for (const pod of condemned.reverse()) {
      if (pod.metadata.deletionTimestamp) {
        if (ordered) return;
        continue;
      }
      if (ordered && pod !== firstUnhealthy && !this.healthy(set, pod, minReady, now)) return;
      if (set.spec.persistentVolumeClaimRetentionPolicy?.whenScaled === 'Delete') this.claimsGoWith(set, pod);
      this.deletePod(set, pod);
      if (ordered) return;
    }
    if (set.spec.updateStrategy?.type === 'OnDelete') return;
    const partition = set.spec.updateStrategy?.rollingUpdate?.partition ?? 0;
    for (let ordinal = start + replicas - 1; ordinal >= start + partition; ordinal--) {
      const pod = pods.get(ordinal);
      if (!pod) return;
      if (pod.metadata.labels?.[REVISION_LABEL] !== update.metadata.name && !pod.metadata.deletionTimestamp) {
        this.deletePod(set, pod);
        return;
      }
      if (!this.healthy(set, pod, minReady, now)) return;
    }
  }

  /** Running and Ready (and available after minReadySeconds, looked at again then), and not being deleted. */
  private healthy(set: StatefulSet, pod: Pod, minReady: number, now: number): boolean {
    if (pod.metadata.deletionTimestamp || pod.status?.phase !== 'Running' || !isPodReady(pod)) return false;
    if (isPodAvailable(pod, minReady, now)) return true;
    const since = Date.parse(podReadyCondition(pod)?.lastTransitionTime ?? '') || now;
    this.queue.addAfter(objectKey(set), Math.max(since + minReady * 1000 - now, 1));
    return false;
  }

  /** newVersionedStatefulSetPod: below the partition a pod keeps the current revision's template. */
  private createPod(set: StatefulSet, current: ControllerRevision, update: ControllerRevision, ordinal: number): Pod | undefined {
    const partition = set.spec.updateStrategy?.rollingUpdate?.partition ?? 0;
    const rolling = set.spec.updateStrategy?.type !== 'OnDelete';
    const revision = rolling && ordinal < (set.spec.ordinals?.start ?? 0) + partition ? current : update;
    const name = `${set.metadata.name}-${ordinal}`;
    const template: PodTemplateSpec = revision.data.spec.template;
    const pod = podFromTemplate(this.deps, template, set, {
      name,
      labels: { [POD_NAME_LABEL]: name, [POD_INDEX_LABEL]: String(ordinal), [REVISION_LABEL]: revision.metadata.name! },
    });
    pod.spec.hostname = name;
    if (set.spec.serviceName) pod.spec.subdomain = set.spec.serviceName;
    const claims = claimVolumes(set, ordinal);
    const own = (pod.spec.volumes ?? []).filter((v) => !claims.some((c) => c.name === v.name));
    if (claims.length > 0) pod.spec.volumes = [...claims, ...own];
    try {
      this.createMissingClaims(set, pod, ordinal);
      const made = createPod(this.deps.store, pod);
      this.event(set, 'SuccessfulCreate', `Create Pod ${name} in StatefulSet ${set.metadata.name} successful`);
      return made;
    } catch (err) {
      this.event(set, 'FailedCreate', `Create Pod ${name} in StatefulSet ${set.metadata.name} failed error: ${(err as Error).message}`);
      return undefined;
    }
  }

  /** createMissingPersistentVolumeClaims: a claim per template for this ordinal, made once and then kept. */
  private createMissingClaims(set: StatefulSet, pod: Pod, ordinal: number): void {
    const namespace = set.metadata.namespace!;
    for (const template of set.spec.volumeClaimTemplates ?? []) {
      const name = claimName(set, template.metadata.name!, ordinal);
      if (this.deps.store.get('PersistentVolumeClaim', namespace, name)) continue;
      const deleteWithSet = set.spec.persistentVolumeClaimRetentionPolicy?.whenDeleted === 'Delete';
      const claim: PersistentVolumeClaim = {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: {
          name,
          namespace,
          labels: { ...template.metadata.labels, ...set.spec.selector.matchLabels },
          ...(template.metadata.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
          ...(deleteWithSet
            ? {
                ownerReferences: [
                  {
                    apiVersion: 'apps/v1',
                    kind: 'StatefulSet',
                    name: set.metadata.name!,
                    uid: set.metadata.uid!,
                    blockOwnerDeletion: true,
                  },
                ],
              }
            : {}),
        },
        spec: structuredClone(template.spec),
      };
      try {
        this.deps.store.create(claim);
        this.event(set, 'SuccessfulCreate', `Create Claim ${name} Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} success`);
      } catch (err) {
        if (ClusterError.conflict(err)) continue;
        const message = `Create Claim ${name} for Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} failed error: ${(err as Error).message}`;
        this.event(set, 'FailedCreate', message);
        throw new Error(message, { cause: err });
      }
    }
  }

  /** whenScaled Delete: a condemned pod's claims get the pod as owner, so they go when it is gone. */
  private claimsGoWith(set: StatefulSet, pod: Pod): void {
    const ordinal = ordinalOf(set, pod)!;
    for (const template of set.spec.volumeClaimTemplates ?? []) {
      const claim = this.deps.store.get('PersistentVolumeClaim', set.metadata.namespace!, claimName(set, template.metadata.name!, ordinal));
      if (!claim || claim.metadata.ownerReferences?.some((r) => r.uid === pod.metadata.uid)) continue;
      const owner = { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name!, uid: pod.metadata.uid!, blockOwnerDeletion: true };
      this.deps.store.update({
        ...claim,
        metadata: { ...claim.metadata, ownerReferences: [...(claim.metadata.ownerReferences ?? []), owner] },
      });
    }
  }

  private deletePod(set: StatefulSet, pod: Pod): void {
    try {
      this.deps.store.delete('Pod', pod.metadata.namespace!, pod.metadata.name!, { uid: pod.metadata.uid });
      this.event(set, 'SuccessfulDelete', `Delete Pod ${pod.metadata.name} in StatefulSet ${set.metadata.name} successful`);
    } catch (err) {
      if (!ClusterError.notFound(err)) throw err;
    }
  }

  /** The status from the pods now; the current revision becomes the update revision once every replica is updated and ready. */
  private updateStatus(set: StatefulSet, current: ControllerRevision, update: ControllerRevision): NonNullable<StatefulSet['status']> {
    const now = this.deps.clock.now();
    const pods = podsControlledBy(this.deps.store, set.metadata.namespace!, set.metadata.uid!).filter(
      (p) => ordinalOf(set, p) !== undefined && !p.metadata.deletionTimestamp,
    );
    const revisionOf = (p: Pod) => p.metadata.labels?.[REVISION_LABEL];
    const status: NonNullable<StatefulSet['status']> = {
      observedGeneration: set.metadata.generation,
      replicas: pods.length,
      readyReplicas: pods.filter((p) => p.status?.phase === 'Running' && isPodReady(p)).length,
      currentReplicas: pods.filter((p) => revisionOf(p) === current.metadata.name).length,
      updatedReplicas: pods.filter((p) => revisionOf(p) === update.metadata.name).length,
      availableReplicas: pods.filter((p) => p.status?.phase === 'Running' && isPodAvailable(p, set.spec.minReadySeconds ?? 0, now)).length,
      currentRevision: current.metadata.name,
      updateRevision: update.metadata.name,
      // Always written, 0 until a collision (updateStatefulSet's status.CollisionCount).
      collisionCount: set.status?.collisionCount ?? 0,
    };
    const wanted = set.spec.replicas ?? 1;
    if (status.updatedReplicas === wanted && status.readyReplicas === wanted && status.replicas === wanted) {
      status.currentRevision = update.metadata.name;
      status.currentReplicas = status.updatedReplicas;
    }
    this.deps.store.updateStatus('StatefulSet', set.metadata.namespace!, set.metadata.name!, status, set.metadata.uid);
    return status;
  }

  private event(set: StatefulSet, reason: string, message: string): void {
    this.deps.record({ object: set, type: reason.startsWith('Failed') ? 'Warning' : 'Normal', reason, message });
  }
}

/** getPersistentVolumeClaimName: `<template>-<set>-<ordinal>`. */
export function claimName(set: StatefulSet, template: string, ordinal: number): string {
  return `${template}-${set.metadata.name}-${ordinal}`;
}

/** updateStorage: a volume per claim template, named as the template, for this ordinal's claim. */
function claimVolumes(set: StatefulSet, ordinal: number): Volume[] {
  return (set.spec.volumeClaimTemplates ?? []).map((t) => ({
    name: t.metadata.name!,
    persistentVolumeClaim: { claimName: claimName(set, t.metadata.name!, ordinal), readOnly: false },
  }));
}

/** The ordinal in a pod's name `<set>-<ordinal>`, or undefined for a pod that is not one of the set's. */
function ordinalOf(set: StatefulSet, pod: Pod): number | undefined {
  const prefix = `${set.metadata.name}-`;
  const name = pod.metadata.name ?? '';
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : undefined;
}
