import type { Pod } from '../engine/api/v1.js';
import type { KubeObject } from '../engine/api/workloads.js';
import type { KubeletConfiguration } from '../engine/config/kubelet-config.js';
import type { RuntimeManager } from '../engine/kuberuntime/runtime-manager.js';
import type { DeleteMode } from './delete-options.js';
import { deletedLine, resourceOf, stopPod } from './stop-pods.js';
import { localWorkloads } from './workloads.js';

/** What deleting one object printed: its line (when it went) and its errors. */
export interface DeleteOutput {
  stdout?: string;
  stderr: string[];
  failed: number;
  /** The object was not there (kubectl's NotFound). */
  missing?: boolean;
}

/**
 * kubectl's line for asking to delete O: its "deleted" line, or, for an
 * object that cannot be deleted, a claim kept without --claims or one not
 * found, the refusal (no stdout).
 */
function requestOutput(workloads: ReturnType<typeof localWorkloads>, o: KubeObject, mode: DeleteMode, claims: boolean): DeleteOutput {
  const ref = `${resourceOf(o.kind)} ${JSON.stringify(o.metadata.name)}`;
  if (o.kind === 'PersistentVolumeClaim' && !claims) return { stderr: [`${ref} kept (give --claims to delete claims)`], failed: 0 };
  if (workloads.store.get(o.kind, o.metadata.namespace || 'default', o.metadata.name!) === undefined)
    return { stderr: [`Error from server (NotFound): ${ref} not found`], failed: 0, missing: true };
  return { stdout: deletedLine(resourceOf(o.kind), o, mode.operation), stderr: [], failed: 0 };
}

/**
 * --wait=false: what deleting the manifests' workloads will print, from the
 * objects the local controllers saved, before the background delete removes them.
 */
export function workloadsToDelete(
  objects: KubeObject[],
  config: KubeletConfiguration,
  rootDir: string,
  mode: DeleteMode,
  claims: boolean,
): DeleteOutput[] {
  const workloads = localWorkloads(config, rootDir);
  return objects.map((o) => requestOutput(workloads, o, mode, claims));
}

/** A deletion under way: what was requested (kubectl's lines, printed at once), then what stopping the pods met. */
export interface WorkloadDeletion {
  requested: DeleteOutput[];
  /** The errors of stopping each workload's pods, once they are gone. */
  done: Promise<DeleteOutput[]>;
}

/**
 * Deletes the manifests' workloads from the objects the local controllers
 * saved, by the mode's cascade: in the foreground (the default) each is
 * marked, its pods are stopped, all at once, and it goes when they are
 * gone; in the background it goes first; orphan leaves its pods running.
 * Claims stay unless `claims`. Each is requested in the manifests' order,
 * as kubectl deletes them one by one, and their pods stop side by side.
 */
export function deleteWorkloads(
  objects: KubeObject[],
  config: KubeletConfiguration,
  rootDir: string,
  runtime: RuntimeManager,
  mode: DeleteMode,
  claims: boolean,
): WorkloadDeletion {
  const workloads = localWorkloads(config, rootDir);
  const requested: DeleteOutput[] = [];
  const stopping: Promise<DeleteOutput>[] = [];
  try {
    for (const o of objects) {
      const request = requestOutput(workloads, o, mode, claims);
      requested.push(request);
      if (request.stdout === undefined) continue;
      const namespace = o.metadata.namespace || 'default';
      const key = `${o.kind}/${namespace}/${o.metadata.name}`;
      const cascade = mode.cascade ?? 'Foreground';
      // Orphan: the dependents stay, and run on, without their owner.
      const pods = cascade === 'Orphan' ? [] : (workloads.withDependents([key]).filter((d) => d.kind === 'Pod') as unknown as Pod[]);
      // In the foreground the workload is marked (foregroundDeletion) and its pods Terminating while they
      // stop, as `knode status` shows meanwhile; it goes once they are gone. In the background it goes first.
      workloads.api.deleteObject(o.kind, namespace, o.metadata.name!, cascade);
      stopping.push(stopPods(workloads, runtime, pods, namespace, mode.gracePeriod));
    }
  } finally {
    workloads.api.save();
  }
  return { requested, done: Promise.all(stopping).finally(() => workloads.api.save()) };
}

/** Stops a workload's PODS side by side and forgets them; the errors met. */
async function stopPods(
  workloads: ReturnType<typeof localWorkloads>,
  runtime: RuntimeManager,
  pods: Pod[],
  namespace: string,
  gracePeriod: number | undefined,
): Promise<DeleteOutput> {
  const results = await Promise.all(
    pods.map(async (pod) => {
      const status = await runtime.getPodStatus(pod.metadata.uid!, pod.metadata.name!, namespace);
      return stopPod(runtime, pod, status, gracePeriod);
    }),
  );
  const errors = results.filter((e) => e !== undefined).map((e) => `Error: ${e}`);
  for (const pod of pods)
    if (workloads.store.get('Pod', namespace, pod.metadata.name!))
      workloads.store.delete('Pod', namespace, pod.metadata.name!, { gracePeriodSeconds: 0 });
  return { stderr: errors, failed: errors.length };
}
