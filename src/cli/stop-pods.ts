import type { Pod, PodList } from '../engine/api/v1.js';
import { podRef } from '../engine/api/pod-util.js';
import type { RuntimePodStatus } from '../engine/container/types.js';
import type { RuntimeManager } from '../engine/kuberuntime/runtime-manager.js';
import type { NodeClient } from './node-client.js';

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

/** GroupKind's String() of a kind, as kubectl's errors print it: Job.batch, Pod. */
export function groupKindOf(kind: string): string {
  const group = resourceOf(kind).split('.')[1];
  return group ? `${kind}.${group}` : kind;
}

/** A manifest's pod that is not to be stopped: one the running node would start again (an error), or one not found. */
export type Refusal = { error: string; notFound?: undefined } | { notFound: string; error?: undefined };

/**
 * The manifests' pods as the runtime has them, and those left alone: a pod
 * of the node running under `rootDir` (it would start it again at once:
 * stopping it would only cost its grace period and a restart), or none.
 */
export async function podsToStop(
  runtime: RuntimeManager,
  pods: Pod[],
  node: NodeClient | undefined,
  rootDir: string,
): Promise<{ found: { pod: Pod; status: RuntimePodStatus }[]; refused: Refusal[] }> {
  const managed = node ? new Set((await node.json<PodList>('/pods')).body.items.map((p) => p.metadata.uid)) : new Set<string | undefined>();
  const found: { pod: Pod; status: RuntimePodStatus }[] = [];
  const refused: Refusal[] = [];
  for (const pod of pods) {
    if (managed.has(pod.metadata.uid)) {
      refused.push({
        error: `Error: ${podRef(pod)} runs from the sources of the node running under ${rootDir}, which would start it again: remove its manifest from the node's --static-dir to delete it`,
      });
      continue;
    }
    const status = await runtime.getPodStatus(pod.metadata.uid!, pod.metadata.name!, pod.metadata.namespace!);
    if (status.sandboxes.length === 0 && status.containers.length === 0) refused.push({ notFound: `pod "${pod.metadata.name}" not found` });
    else found.push({ pod, status });
  }
  return { found, refused };
}
