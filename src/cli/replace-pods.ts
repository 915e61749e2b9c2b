import type { Pod } from '../engine/api/v1.js';
import type { RunningPod } from '../engine/container/types.js';
import type { RuntimeManager } from '../engine/kuberuntime/runtime-manager.js';
import { deletedLine } from './stop-pods.js';

/** The runtime's pods that carry a manifest pod's namespace and name, whatever their UID. */
export function sameNamed(running: RunningPod[], pod: Pod): RunningPod[] {
  const namespace = pod.metadata.namespace || 'default';
  return running.filter((r) => r.name === pod.metadata.name && r.namespace === namespace);
}

/**
 * `knode apply --replace`, as `kubectl replace --force`: each pod of the
 * runtime with the name of a manifest's pod (an earlier apply's, with this
 * spec or an older one) is stopped, side by side, within the grace period and
 * preStop hooks its containers were created with, and removed; runOnce then
 * creates them again from the manifests. Tells one kubectl line per pod, and
 * the errors of those that could not be stopped.
 */
export async function removeSameNamed(runtime: RuntimeManager, pods: Pod[]): Promise<{ lines: string[]; errors: string[] }> {
  const running = await runtime.getPods();
  const targets = pods.flatMap((pod) => sameNamed(running, pod).map((r) => ({ pod, uid: r.uid })));
  const results = await Promise.all(
    targets.map(async ({ pod, uid }) => {
      const status = await runtime.getPodStatus(uid, pod.metadata.name!, pod.metadata.namespace || 'default');
      // No spec given: the old pod's own, from its containers' annotations, as the kubelet kills an orphan.
      const error = (await runtime.killPod(undefined, status)).error();
      if (error) return { error: `pod "${pod.metadata.name}" (uid ${uid}) could not be stopped: ${error.message}` };
      await runtime.removePod(status);
      return { line: deletedLine('pod', pod) };
    }),
  );
  return {
    lines: [...new Set(results.flatMap((r) => (r.line ? [r.line] : [])))],
    errors: results.flatMap((r) => (r.error ? [r.error] : [])),
  };
}

/**
 * The pods of the same names an earlier apply left running. With --replace
 * they are stopped and removed first (removeSameNamed); false if one could
 * not be. Without it, one whose UID differs (its manifest changed) is told:
 * it runs on beside the new one, as its UID is not the new manifest's.
 */
export async function earlierPods(runtime: RuntimeManager, pods: Pod[], replace: boolean, tell: (line: string) => void): Promise<boolean> {
  if (pods.length === 0) return true;
  if (replace) {
    const { lines, errors } = await removeSameNamed(runtime, pods);
    for (const line of lines) tell(line);
    for (const error of errors) tell(`Error: ${error}`);
    return errors.length === 0;
  }
  const running = await runtime.getPods();
  for (const pod of pods)
    if (sameNamed(running, pod).some((r) => r.uid !== pod.metadata.uid))
      tell(
        `Warning: pod "${pod.metadata.name}" from an earlier apply of another spec is still running and stays beside the new one; give --replace to recreate it`,
      );
  return true;
}
