// When a workload is done, as `kubectl rollout status` and `kubectl wait
// --for=condition=complete` judge it, over the local object store.
import type { DaemonSet, Deployment, Job, KubeObject, ReplicaSet, StatefulSet, WorkloadCondition } from '../engine/api/workloads.js';
import type { ObjectStore } from './store.js';

export interface RolloutState {
  /** ready: rolled out or complete; failed: it will not get there by waiting; waiting: not yet. */
  state: 'ready' | 'failed' | 'waiting';
  /** kubectl's line for it. */
  message: string;
}

/** Where a workload stands; objects with nothing to roll out (a ConfigMap) are ready at once. */
export function rolloutState(o: KubeObject): RolloutState {
  const ref = `${o.kind.toLowerCase()} ${JSON.stringify(o.metadata.name)}`;
  switch (o.kind) {
    case 'Deployment':
      return deploymentState(o as Deployment, ref);
    case 'ReplicaSet': {
      const rs = o as ReplicaSet;
      const wanted = rs.spec.replicas ?? 1;
      const available = rs.status?.availableReplicas ?? 0;
      if ((rs.status?.observedGeneration ?? 0) >= (rs.metadata.generation ?? 1) && available >= wanted)
        return { state: 'ready', message: `${ref} successfully rolled out` };
      return { state: 'waiting', message: `Waiting for ${ref} rollout to finish: ${available} of ${wanted} replicas are available...` };
    }
    case 'Job':
      return jobState(o as Job, ref);
    // StatefulSet and DaemonSet
    case 'StatefulSet':
      return statefulSetState(o as StatefulSet);
    case 'DaemonSet':
      return daemonSetState(o as DaemonSet);
    default:
      if (typeof o.status === 'object' && o.status && 'readyReplicas' in o.status) return replicatedState(o, ref);
      return { state: 'ready', message: `${ref} created` };
  }
}

/** kubectl's DeploymentStatusViewer. */
function deploymentState(d: Deployment, ref: string): RolloutState {
  const status = d.status ?? {};
  if ((status.observedGeneration ?? 0) < (d.metadata.generation ?? 1))
    return { state: 'waiting', message: `Waiting for ${ref} spec update to be observed...` };
  const progressing = condition(status.conditions, 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded') return { state: 'failed', message: `${ref} exceeded its progress deadline` };
  const wanted = d.spec.replicas ?? 1;
  const updated = status.updatedReplicas ?? 0;
  if (updated < wanted)
    return {
      state: 'waiting',
      message: `Waiting for ${ref} rollout to finish: ${updated} out of ${wanted} new replicas have been updated...`,
    };
  if ((status.replicas ?? 0) > updated)
    return {
      state: 'waiting',
      message: `Waiting for ${ref} rollout to finish: ${(status.replicas ?? 0) - updated} old replicas are pending termination...`,
    };
  if ((status.availableReplicas ?? 0) < updated)
    return {
      state: 'waiting',
      message: `Waiting for ${ref} rollout to finish: ${status.availableReplicas ?? 0} of ${updated} updated replicas are available...`,
    };
  return { state: 'ready', message: `${ref} successfully rolled out` };
}

function jobState(job: Job, ref: string): RolloutState {
  const failed = condition(job.status?.conditions, 'Failed');
  if (failed?.status === 'True') return { state: 'failed', message: `${ref} failed: ${failed.reason ?? ''}: ${failed.message ?? ''}` };
  if (condition(job.status?.conditions, 'Complete')?.status === 'True') return { state: 'ready', message: `${ref} completed` };
  const succeeded = job.status?.succeeded ?? 0;
  const completions = job.spec.completions;
  return {
    state: 'waiting',
    message: `Waiting for ${ref} to complete: ${succeeded}${completions !== undefined && completions !== null ? ` of ${completions}` : ''} succeeded...`,
  };
}

/** StatefulSets and DaemonSets: ready once every wanted replica is ready and updated. */
function replicatedState(o: KubeObject, ref: string): RolloutState {
  const status = o.status as Record<string, number | undefined>;
  if ((status.observedGeneration ?? 0) < (o.metadata.generation ?? 1))
    return { state: 'waiting', message: `Waiting for ${ref} spec update to be observed...` };
  const wanted = (o.spec as { replicas?: number } | undefined)?.replicas ?? status.desiredNumberScheduled ?? 1;
  const ready = status.readyReplicas ?? status.numberReady ?? 0;
  if (ready < wanted) return { state: 'waiting', message: `Waiting for ${wanted - ready} pods to be ready...` };
  return { state: 'ready', message: `${ref} successfully rolled out` };
}

// --- StatefulSet and DaemonSet: kubectl's StatefulSetStatusViewer and DaemonSetStatusViewer ---

function statefulSetState(set: StatefulSet): RolloutState {
  const status = set.status;
  if (set.spec.updateStrategy?.type === 'OnDelete')
    return { state: 'ready', message: 'rollout status is only available for RollingUpdate strategy type' };
  if (!status?.observedGeneration || (set.metadata.generation ?? 1) > status.observedGeneration)
    return { state: 'waiting', message: 'Waiting for statefulset spec update to be observed...' };
  const wanted = set.spec.replicas ?? 1;
  const ready = status.readyReplicas ?? 0;
  if (ready < wanted) return { state: 'waiting', message: `Waiting for ${wanted - ready} pods to be ready...` };
  const updated = status.updatedReplicas ?? 0;
  const partition = set.spec.updateStrategy?.rollingUpdate?.partition;
  if (set.spec.updateStrategy?.rollingUpdate) {
    if (partition !== undefined && updated < wanted - partition)
      return {
        state: 'waiting',
        message: `Waiting for partitioned roll out to finish: ${updated} out of ${wanted - partition} new pods have been updated...`,
      };
    return { state: 'ready', message: `partitioned roll out complete: ${updated} new pods have been updated...` };
  }
  if (status.updateRevision !== status.currentRevision)
    return {
      state: 'waiting',
      message: `waiting for statefulset rolling update to complete ${updated} pods at revision ${status.updateRevision ?? ''}...`,
    };
  return {
    state: 'ready',
    message: `statefulset rolling update complete ${status.currentReplicas ?? 0} pods at revision ${status.currentRevision ?? ''}...`,
  };
}

function daemonSetState(ds: DaemonSet): RolloutState {
  const name = JSON.stringify(ds.metadata.name);
  if (ds.spec.updateStrategy?.type === 'OnDelete')
    return { state: 'ready', message: 'rollout status is only available for RollingUpdate strategy type' };
  const status = ds.status;
  if (!status || (ds.metadata.generation ?? 1) > (status.observedGeneration ?? 0))
    return { state: 'waiting', message: 'Waiting for daemon set spec update to be observed...' };
  const desired = status.desiredNumberScheduled;
  if ((status.updatedNumberScheduled ?? 0) < desired)
    return {
      state: 'waiting',
      message: `Waiting for daemon set ${name} rollout to finish: ${status.updatedNumberScheduled ?? 0} out of ${desired} new pods have been updated...`,
    };
  if ((status.numberAvailable ?? 0) < desired)
    return {
      state: 'waiting',
      message: `Waiting for daemon set ${name} rollout to finish: ${status.numberAvailable ?? 0} of ${desired} updated pods are available...`,
    };
  return { state: 'ready', message: `daemon set ${name} successfully rolled out` };
}

function condition(conditions: WorkloadCondition[] | undefined, type: string): WorkloadCondition | undefined {
  return conditions?.find((c) => c.type === type);
}

/**
 * Waits until every object named by KEYS (`kind/namespace/name`) is ready or
 * failed, or STOP fires; resolves with each one's last state. An object that
 * is gone counts as failed.
 */
export function waitForRollouts(store: ObjectStore, keys: string[], stop: AbortSignal): Promise<Map<string, RolloutState>> {
  return new Promise((resolve) => {
    const states = new Map<string, RolloutState>();
    const check = (): boolean => {
      for (const key of keys) {
        const [kind, namespace, name] = key.split('/');
        const o = store.get(kind, namespace, name);
        states.set(key, o ? rolloutState(o) : { state: 'failed', message: `${kind.toLowerCase()} "${name}" was deleted` });
      }
      return [...states.values()].every((s) => s.state !== 'waiting');
    };
    if (check() || stop.aborted) return resolve(states);
    const finish = () => {
      unsubscribe();
      stop.removeEventListener('abort', finish);
      check();
      resolve(states);
    };
    const unsubscribe = store.watch(
      () => {
        if (check()) finish();
      },
      { shared: true },
    );
    stop.addEventListener('abort', finish, { once: true });
  });
}
