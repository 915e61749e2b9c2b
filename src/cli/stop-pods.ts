import type { Pod } from '../engine/api/v1.js';
import { podRef } from '../engine/api/pod-util.js';
import type { RuntimePodStatus } from '../engine/container/types.js';
import type { RuntimeManager } from '../engine/kuberuntime/runtime-manager.js';

/**
 * Stops a pod within its grace period (or the one given), preStop hooks
 * first, and removes it from the runtime; the error, if it could not be
 * stopped. Callers stop their pods side by side, as the kubelet's pod workers do.
 */
export async function stopPod(
  runtime: RuntimeManager,
  pod: Pod,
  status: RuntimePodStatus,
  gracePeriod: number | undefined,
): Promise<string | undefined> {
  const error = (await runtime.killPod(pod, status, gracePeriod ?? pod.spec.terminationGracePeriodSeconds)).error();
  if (error) return `${podRef(pod)}: ${error.message}`;
  await runtime.removePod(status);
  return undefined;
}

/** kubectl's line for a deleted object: `pod "web" deleted from default namespace` (`force deleted` with a grace period of 0). */
export function deletedLine(
  resource: string,
  object: { metadata: { name?: string; namespace?: string } },
  operation: 'deleted' | 'force deleted' = 'deleted',
): string {
  return `${resource} "${object.metadata.name}" ${operation} from ${object.metadata.namespace || 'default'} namespace`;
}

/** The resource kubectl names in its messages: deployment.apps, job.batch, configmap. */
export function resourceOf(kind: string): string {
  const group = { Deployment: 'apps', ReplicaSet: 'apps', StatefulSet: 'apps', DaemonSet: 'apps', Job: 'batch', CronJob: 'batch' }[kind];
  return `${kind.toLowerCase()}${group ? `.${group}` : ''}`;
}
