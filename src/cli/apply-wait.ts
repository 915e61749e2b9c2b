import { setTimeout as sleep } from 'node:timers/promises';
import type { LocalWorkloads } from '../controllers/index.js';
import type { CriClient } from '../cri/client.js';
import type { Pod } from '../engine/api/v1.js';
import type { KubeletConfiguration } from '../engine/config/kubelet-config.js';
import { RuntimeManager } from '../engine/kuberuntime/runtime-manager.js';
import { ExitCode } from '../util/user-error.js';
import { deletedLine, resourceOf, stopPod } from './stop-pods.js';

/** How often apply --wait looks whether the pods have ended. */
const WAIT_POLL_MS = 1_000;

/** What apply made: its static pods, and the keys (`Kind/namespace/name`) of its workloads. */
export interface AppliedObjects {
  staticPods: Pod[];
  workloadKeys: string[];
}

/**
 * --wait, as `podman kube play --wait`: stays until every pod of the
 * manifests has ended (all its containers exited) or a signal comes, then
 * stops the pods side by side within their grace periods, removes them, and
 * deletes the workloads. Each removal is a line for stderr; exit 1 when a
 * container had failed.
 */
export async function waitThenRemove(
  client: CriClient,
  config: KubeletConfiguration,
  workloads: LocalWorkloads,
  applied: AppliedObjects,
  interrupted: AbortSignal,
  tell: (line: string) => void,
): Promise<number> {
  const { staticPods, workloadKeys } = applied;
  const runtime = RuntimeManager.standalone(client, config);
  const pods = () => [...staticPods, ...(workloads.withDependents(workloadKeys).filter((o) => o.kind === 'Pod') as unknown as Pod[])];
  const statusOf = (pod: Pod) => runtime.getPodStatus(pod.metadata.uid!, pod.metadata.name!, pod.metadata.namespace || 'default');
  let failed = false;
  while (!interrupted.aborted) {
    const statuses = await Promise.all(pods().map(statusOf));
    const live = statuses.some((s) => s.containers.some((c) => c.state === 'running' || c.state === 'created'));
    if (!live) {
      failed = statuses.some((s) => s.containers.some((c) => c.state === 'exited' && c.exitCode !== 0));
      break;
    }
    await sleep(WAIT_POLL_MS, undefined, { signal: interrupted }).catch(() => {});
  }
  const removing = pods().map(async (pod) => ({ pod, error: await stopPod(runtime, pod, await statusOf(pod), undefined) }));
  for (const done of removing) {
    const { pod, error } = await done;
    tell(error ? `Error: ${error}` : deletedLine('pod', pod));
    if (error) failed = true;
  }
  for (const pod of pods())
    if (workloads.store.get('Pod', pod.metadata.namespace!, pod.metadata.name!))
      workloads.store.delete('Pod', pod.metadata.namespace!, pod.metadata.name!, { gracePeriodSeconds: 0 });
  // What the manifests made goes with them, claims too (as podman removes the volumes kube play made).
  for (const key of workloadKeys) {
    const [kind, namespace, name] = key.split('/');
    workloads.api.deleteObject(kind, namespace, name, 'Background'); // kubectl delete's default cascade
    tell(deletedLine(resourceOf(kind), { metadata: { name, namespace } }));
  }
  workloads.api.save();
  return failed ? ExitCode.workloadFailed : ExitCode.ok;
}
