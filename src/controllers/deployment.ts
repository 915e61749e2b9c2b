import { canonicalJson } from '../engine/config/static-pod.js';
import { controllerOf, type Deployment, type ReplicaSet } from '../engine/api/workloads.js';
import {
  controlledBy,
  objectKey,
  omitZeroCounts,
  ownerKey,
  podsControlledBy,
  splitKey,
  WorkQueue,
  type Controller,
  type ControllerDeps,
} from './controller.js';
import {
  byCreation,
  fenceposts,
  HASH_LABEL,
  maxRevision,
  RevisionAnnotation,
  templateKey,
  setCondition,
  sum,
  templateHash,
  terminatingReplicas,
} from './deployment-util.js';

const DesiredReplicasAnnotation = 'deployment.kubernetes.io/desired-replicas';
const MaxReplicasAnnotation = 'deployment.kubernetes.io/max-replicas';
const SKIPPED_ANNOTATIONS = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  RevisionAnnotation,
  'deployment.kubernetes.io/revision-history',
  DesiredReplicasAnnotation,
  MaxReplicasAnnotation,
  'deprecated.deployment.rollback.to',
]);

/**
 * The Deployment controller (pkg/controller/deployment) for one node: a
 * ReplicaSet `<name>-<pod-template-hash>` per template, rolled out with
 * RollingUpdate (maxSurge, maxUnavailable, minReadySeconds) or Recreate, old
 * ReplicaSets kept up to revisionHistoryLimit, and the status and the
 * Available and Progressing conditions with the controller's reasons and
 * messages, progressDeadlineSeconds included.
 */
export class DeploymentController implements Controller {
  private readonly queue: WorkQueue;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new WorkQueue(
      deps.clock,
      (key) => this.sync(key),
      () => {},
    );
  }

  start(): void {
    this.unsubscribe = this.deps.store.watch(
      (e) => {
        if (e.object.kind === 'Deployment') this.queue.add(objectKey(e.object));
        else if (e.object.kind === 'ReplicaSet') {
          const owner = ownerKey(e.object, 'Deployment');
          if (owner) this.queue.add(owner);
        } else if (e.object.kind === 'Pod' && e.type === 'DELETED') {
          // Recreate waits for the old pods to be gone.
          const rs = controllerOf(e.object.metadata);
          const owner =
            rs?.kind === 'ReplicaSet' ? this.deps.store.get<ReplicaSet>('ReplicaSet', e.object.metadata.namespace!, rs.name) : undefined;
          const d = owner && controllerOf(owner.metadata);
          if (d?.kind === 'Deployment') this.queue.add(`${e.object.metadata.namespace}/${d.name}`);
        }
      },
      { shared: true },
    );
    for (const d of this.deps.store.list('Deployment')) this.queue.add(objectKey(d));
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.stop();
  }

  private sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const d = this.deps.store.get<Deployment>('Deployment', namespace, name);
    if (!d || d.metadata.deletionTimestamp) return;
    const all = this.ownedReplicaSets(d);
    const hash = templateHash(d.spec.template, d.status?.collisionCount);
    const thisTemplate = templateKey(d.spec.template);
    let newRS = all.find((rs) => templateKey(rs.spec.template) === thisTemplate);
    const old = all.filter((rs) => rs !== newRS).sort(byCreation);
    if (d.spec.paused) return this.syncStatus(d, newRS, old, undefined);
    let progress: Progress | undefined;
    if (d.spec.strategy?.type === 'Recreate') {
      const activeOld = old.filter((rs) => (rs.spec.replicas ?? 0) > 0);
      if (activeOld.length > 0) {
        for (const rs of activeOld) this.scale(d, rs, 0);
        return this.syncStatus(d, newRS, old, undefined);
      }
      // oldPodsRunning: a pod being deleted still runs until the node reports it gone or finished.
      const oldPodsLeft = old.some(
        (rs) =>
          (rs.status?.replicas ?? 0) > 0 ||
          podsControlledBy(this.deps.store, namespace, rs.metadata.uid!).some(
            (p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed',
          ),
      );
      if (oldPodsLeft) return this.syncStatus(d, newRS, old, undefined);
      if (!newRS) [newRS, progress] = this.createReplicaSet(d, old, hash, d.spec.replicas ?? 1);
      else progress = this.refreshRevision(d, newRS, old);
      if ((newRS.spec.replicas ?? 0) !== (d.spec.replicas ?? 1)) newRS = this.scale(d, newRS, d.spec.replicas ?? 1);
    } else {
      const { surge, unavailable } = fenceposts(d);
      const wanted = d.spec.replicas ?? 1;
      if (!newRS) {
        const current = sum(old, (rs) => rs.spec.replicas ?? 0);
        [newRS, progress] = this.createReplicaSet(d, old, hash, Math.max(0, Math.min(wanted + surge - current, wanted)));
      } else progress = this.refreshRevision(d, newRS, old);
      const newReplicas = newRS.spec.replicas ?? 0;
      if (newReplicas > wanted) newRS = this.scale(d, newRS, wanted);
      else if (newReplicas < wanted) {
        const current = sum([...old, newRS], (rs) => rs.spec.replicas ?? 0);
        const up = Math.min(wanted + surge - current, wanted - newReplicas);
        if (up > 0) newRS = this.scale(d, newRS, newReplicas + up);
      }
      this.scaleDownOld(d, newRS, old, unavailable);
    }
    this.cleanup(d, newRS);
    this.syncStatus(
      d,
      newRS,
      this.ownedReplicaSetsShared(d).filter((rs) => rs.metadata.uid !== newRS!.metadata.uid),
      progress,
    );
  }

  /** reconcileOldReplicaSets: unhealthy old pods first, then old pods while enough stay available. */
  private scaleDownOld(d: Deployment, newRS: ReplicaSet, old: ReplicaSet[], maxUnavailable: number): void {
    if (sum(old, (rs) => rs.spec.replicas ?? 0) === 0) return;
    const minAvailable = (d.spec.replicas ?? 1) - maxUnavailable;
    const newUnavailable = (newRS.spec.replicas ?? 0) - (newRS.status?.availableReplicas ?? 0);
    const all = [...old, newRS];
    const maxScaledDown = sum(all, (rs) => rs.spec.replicas ?? 0) - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return;
    let cleaned = 0;
    for (const [i, rs] of old.entries()) {
      const unhealthy = (rs.spec.replicas ?? 0) - (rs.status?.availableReplicas ?? 0);
      if ((rs.spec.replicas ?? 0) === 0 || unhealthy <= 0 || cleaned >= maxScaledDown) continue;
      const down = Math.min(maxScaledDown - cleaned, unhealthy);
      old[i] = this.scale(d, rs, (rs.spec.replicas ?? 0) - down);
      cleaned += down;
    }
    const available = sum([...old, newRS], (rs) => rs.status?.availableReplicas ?? 0);
    let total = available - minAvailable;
    for (const [i, rs] of old.entries()) {
      if (total <= 0) break;
      const replicas = old[i].spec.replicas ?? 0;
      if (replicas === 0) continue;
      const down = Math.min(replicas, total);
      old[i] = this.scale(d, rs, replicas - down);
      total -= down;
    }
  }

  private createReplicaSet(d: Deployment, old: ReplicaSet[], hash: string, replicas: number): [ReplicaSet, Progress] {
    const template = structuredClone(d.spec.template);
    template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, [HASH_LABEL]: hash } };
    const revision = maxRevision(old) + 1;
    const rs: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: `${d.metadata.name}-${hash}`,
        namespace: d.metadata.namespace,
        labels: { ...template.metadata.labels },
        annotations: { ...this.copiedAnnotations(d), ...this.replicaAnnotations(d), [RevisionAnnotation]: String(revision) },
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name: d.metadata.name!,
            uid: d.metadata.uid!,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        replicas,
        minReadySeconds: d.spec.minReadySeconds ?? 0,
        selector: { ...d.spec.selector, matchLabels: { ...d.spec.selector.matchLabels, [HASH_LABEL]: hash } },
        template,
      },
    };
    const made = this.deps.store.create(rs);
    this.setRevision(d, revision);
    if (replicas > 0)
      this.deps.record({
        object: d,
        type: 'Normal',
        reason: 'ScalingReplicaSet',
        message: `Scaled up replica set ${made.metadata.name} from 0 to ${replicas}`,
      });
    return [made, { reason: 'NewReplicaSetCreated', message: `Created new replica set "${made.metadata.name}"` }];
  }

  /** An existing new ReplicaSet takes the next revision when it is not the latest (a rollback to an old template). */
  private refreshRevision(d: Deployment, rs: ReplicaSet, old: ReplicaSet[]): Progress | undefined {
    const revision = Math.max(maxRevision(old) + 1, Number(rs.metadata.annotations?.[RevisionAnnotation] ?? 0));
    const annotations = {
      ...rs.metadata.annotations,
      ...this.copiedAnnotations(d),
      ...this.replicaAnnotations(d),
      [RevisionAnnotation]: String(revision),
    };
    if (canonicalJson(annotations) !== canonicalJson(rs.metadata.annotations ?? {}))
      Object.assign(rs, this.deps.store.update({ ...rs, metadata: { ...rs.metadata, annotations } }));
    this.setRevision(d, revision);
    const progressing = d.status?.conditions?.find((c) => c.type === 'Progressing');
    return progressing ? undefined : { reason: 'FoundNewReplicaSet', message: `Found new replica set "${rs.metadata.name}"` };
  }

  private setRevision(d: Deployment, revision: number): void {
    if (d.metadata.annotations?.[RevisionAnnotation] === String(revision)) return;
    const annotations = { ...d.metadata.annotations, [RevisionAnnotation]: String(revision) };
    Object.assign(d, this.deps.store.update({ ...d, metadata: { ...d.metadata, annotations } }));
  }

  private copiedAnnotations(d: Deployment): Record<string, string> {
    return Object.fromEntries(Object.entries(d.metadata.annotations ?? {}).filter(([k]) => !SKIPPED_ANNOTATIONS.has(k)));
  }

  private replicaAnnotations(d: Deployment): Record<string, string> {
    const replicas = d.spec.replicas ?? 1;
    const surge = d.spec.strategy?.type === 'Recreate' ? 0 : fenceposts(d).surge;
    return { [DesiredReplicasAnnotation]: String(replicas), [MaxReplicasAnnotation]: String(replicas + surge) };
  }

  private scale(d: Deployment, rs: ReplicaSet, replicas: number): ReplicaSet {
    const from = rs.spec.replicas ?? 0;
    if (from === replicas) return rs;
    const annotations = { ...rs.metadata.annotations, ...this.replicaAnnotations(d) };
    const updated = this.deps.store.update({ ...rs, metadata: { ...rs.metadata, annotations }, spec: { ...rs.spec, replicas } });
    const way = replicas > from ? 'up' : 'down';
    this.deps.record({
      object: d,
      type: 'Normal',
      reason: 'ScalingReplicaSet',
      message: `Scaled ${way} replica set ${rs.metadata.name} from ${from} to ${replicas}`,
    });
    return updated;
  }

  /** cleanupDeployment: old ReplicaSets scaled to 0 past revisionHistoryLimit go, oldest first. */
  private cleanup(d: Deployment, newRS: ReplicaSet): void {
    const limit = d.spec.revisionHistoryLimit ?? 10;
    const idle = this.ownedReplicaSetsShared(d)
      .filter((rs) => rs.metadata.uid !== newRS.metadata.uid && (rs.spec.replicas ?? 0) === 0 && (rs.status?.replicas ?? 0) === 0)
      .sort(byCreation);
    for (const rs of idle.slice(0, Math.max(0, idle.length - limit)))
      this.deps.store.delete('ReplicaSet', rs.metadata.namespace!, rs.metadata.name!);
  }

  private ownedReplicaSets(d: Deployment): ReplicaSet[] {
    return this.deps.store.list<ReplicaSet>('ReplicaSet', d.metadata.namespace, controlledBy(d.metadata.uid!));
  }

  /** The Deployment's ReplicaSets as the store holds them, for reading only. */
  private ownedReplicaSetsShared(d: Deployment): readonly Readonly<ReplicaSet>[] {
    return this.deps.store.peek<ReplicaSet>('ReplicaSet', d.metadata.namespace!, controlledBy(d.metadata.uid!));
  }

  private syncStatus(
    d: Deployment,
    newRS: ReplicaSet | undefined,
    old: readonly Readonly<ReplicaSet>[],
    progress: Progress | undefined,
  ): void {
    const fresh = newRS
      ? (this.deps.store.get<ReplicaSet>('ReplicaSet', newRS.metadata.namespace!, newRS.metadata.name!) ?? newRS)
      : undefined;
    const all = [...old, ...(fresh ? [fresh] : [])];
    const wanted = d.spec.replicas ?? 1;
    const now = this.deps.clock.now();
    const status: NonNullable<Deployment['status']> = {
      observedGeneration: d.metadata.generation,
      replicas: sum(all, (rs) => rs.status?.replicas ?? 0),
      updatedReplicas: fresh?.status?.replicas ?? 0,
      readyReplicas: sum(all, (rs) => rs.status?.readyReplicas ?? 0),
      availableReplicas: sum(all, (rs) => rs.status?.availableReplicas ?? 0),
      unavailableReplicas: Math.max(0, sum(all, (rs) => rs.spec.replicas ?? 0) - sum(all, (rs) => rs.status?.availableReplicas ?? 0)),
    };
    const terminating = terminatingReplicas(all);
    if (terminating !== undefined) status.terminatingReplicas = terminating;
    if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
    const conditions = [...(d.status?.conditions ?? [])];
    const maxUnavailable = d.spec.strategy?.type === 'Recreate' ? 0 : fenceposts(d).unavailable;
    setCondition(
      conditions,
      status.availableReplicas! >= wanted - maxUnavailable
        ? { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }
        : {
            type: 'Available',
            status: 'False',
            reason: 'MinimumReplicasUnavailable',
            message: 'Deployment does not have minimum availability.',
          },
      now,
    );
    const name = fresh?.metadata.name ?? '';
    const complete = status.updatedReplicas === wanted && status.replicas === wanted && status.availableReplicas === wanted;
    const previous = d.status ?? {};
    const progressing =
      (status.updatedReplicas ?? 0) > (previous.updatedReplicas ?? 0) ||
      (status.readyReplicas ?? 0) > (previous.readyReplicas ?? 0) ||
      (previous.replicas ?? 0) - (previous.updatedReplicas ?? 0) > (status.replicas ?? 0) - (status.updatedReplicas ?? 0) ||
      (status.availableReplicas ?? 0) > (previous.availableReplicas ?? 0);
    const current = conditions.find((c) => c.type === 'Progressing');
    if (progress) setCondition(conditions, { type: 'Progressing', status: 'True', ...progress }, now);
    else if (fresh && complete)
      setCondition(
        conditions,
        {
          type: 'Progressing',
          status: 'True',
          reason: 'NewReplicaSetAvailable',
          message: `ReplicaSet "${name}" has successfully progressed.`,
        },
        now,
      );
    else if (fresh && progressing)
      setCondition(
        conditions,
        { type: 'Progressing', status: 'True', reason: 'ReplicaSetUpdated', message: `ReplicaSet "${name}" is progressing.` },
        now,
      );
    else if (fresh && current && current.reason !== 'NewReplicaSetAvailable' && current.reason !== 'ProgressDeadlineExceeded') {
      const deadline = Date.parse(current.lastUpdateTime ?? '') + (d.spec.progressDeadlineSeconds ?? 600) * 1000;
      if (deadline <= now)
        setCondition(
          conditions,
          {
            type: 'Progressing',
            status: 'False',
            reason: 'ProgressDeadlineExceeded',
            message: `ReplicaSet "${name}" has timed out progressing.`,
          },
          now,
        );
      else this.queue.addAfter(objectKey(d), deadline - now + 1);
    }
    status.conditions = conditions;
    // DeploymentStatus: every count is omitempty.
    const written = omitZeroCounts(status, ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas']);
    this.deps.store.updateStatus('Deployment', d.metadata.namespace!, d.metadata.name!, written, d.metadata.uid);
  }
}

interface Progress {
  reason: string;
  message: string;
}
