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

/** kubectl's lines for a workload that cannot be deleted: a claim kept without --claims, or one not found. */
function refusal(o: KubeObject, exists: boolean, claims: boolean): DeleteOutput | undefined {
  const ref = `${resourceOf(o.kind)} ${JSON.stringify(o.metadata.name)}`;
  if (o.kind === 'PersistentVolumeClaim' && !claims) return { stderr: [`${ref} kept (give --claims to delete claims)`], failed: 0 };
  if (!exists) return { stderr: [`Error from server (NotFound): ${ref} not found`], failed: 0, missing: true };
  return undefined;
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
  return objects.map((o) => {
    const exists = workloads.store.get(o.kind, o.metadata.namespace || 'default', o.metadata.name!) !== undefined;
    return refusal(o, exists, claims) ?? { stdout: deletedLine(resourceOf(o.kind), o, mode.operation), stderr: [], failed: 0 };
  });
}

/**
 * Deletes the manifests' workloads from the objects the local controllers
 * saved, by the mode's cascade: in the foreground (the default) each is
 * marked, its pods are stopped, all at once, and it goes when they are
 * gone; in the background it goes first; orphan leaves its pods running. Claims stay unless `claims`. The workloads are
 * deleted side by side; the outputs come in the manifests' order.
 */
export async function deleteWorkloads(
  objects: KubeObject[],
  config: KubeletConfiguration,
  rootDir: string,
  runtime: RuntimeManager,
  mode: DeleteMode,
  claims: boolean,
): Promise<DeleteOutput[]> {
  const workloads = localWorkloads(config, rootDir);
  try {
    return await Promise.all(
      objects.map(async (o): Promise<DeleteOutput> => {
        const namespace = o.metadata.namespace || 'default';
        const refused = refusal(o, workloads.store.get(o.kind, namespace, o.metadata.name!) !== undefined, claims);
        if (refused) return refused;
        const key = `${o.kind}/${namespace}/${o.metadata.name}`;
        const cascade = mode.cascade ?? 'Foreground';
        // Orphan: the dependents stay, and run on, without their owner.
        const pods = cascade === 'Orphan' ? [] : (workloads.withDependents([key]).filter((d) => d.kind === 'Pod') as unknown as Pod[]);
        // In the foreground the workload is marked (foregroundDeletion) and its pods Terminating while they
        // stop, as `knode status` shows meanwhile; it goes once they are gone. In the background it goes first.
        workloads.api.deleteObject(o.kind, namespace, o.metadata.name!, cascade);
        workloads.api.save();
        const results = await Promise.all(
          pods.map(async (pod) => {
            const status = await runtime.getPodStatus(pod.metadata.uid!, pod.metadata.name!, namespace);
            return stopPod(runtime, pod, status, mode.gracePeriod);
          }),
        );
        const errors = results.filter((e) => e !== undefined).map((e) => `Error: ${e}`);
        for (const pod of pods)
          if (workloads.store.get('Pod', namespace, pod.metadata.name!))
            workloads.store.delete('Pod', namespace, pod.metadata.name!, { gracePeriodSeconds: 0 });
        return { stderr: errors, failed: errors.length, stdout: deletedLine(resourceOf(o.kind), o, mode.operation) };
      }),
    );
  } finally {
    workloads.api.save();
  }
}
