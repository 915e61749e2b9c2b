// `knode rollout restart` beside a running node: kubectl patches the
// workload's pod template with a `kubectl.kubernetes.io/restartedAt`
// annotation, and its controller rolls every pod anew; here the annotation
// goes into the workload's manifest in the node's --static-dir (static-edit.ts).
import { editInStaticDir, type EditOutcome } from './static-edit.js';
import type { ObjectRef } from './static-manifests.js';

export const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';
const RESTARTED = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);

/** Go's time.RFC3339 of NOW in UTC, as kubectl stamps a restart (`2026-12-08T00:10:00Z`). */
export const rfc3339 = (now: number) => new Date(Math.floor(now / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/**
 * Restarts the objects REFS name in the manifests of STATICDIR, at NOW: each
 * Deployment, StatefulSet or DaemonSet gets the annotation in its pod
 * template, quoted (YAML 1.1 reads a bare RFC 3339 time as a timestamp).
 * kubectl's errors for a kind it cannot restart and a paused Deployment.
 */
export function restartInStaticDir(
  staticDir: string,
  refs: ObjectRef[],
  now: number,
  known: (ref: ObjectRef) => boolean,
): Promise<EditOutcome[]> {
  return editInStaticDir(staticDir, refs, 'restarted', known, (target, resource) => {
    const { name } = target.ref;
    if (!RESTARTED.has(target.ref.kind)) return { error: `error: ${resource} "${name}" restarting is not supported` };
    if ((target.value as { spec?: { paused?: boolean } }).spec?.paused)
      return { error: `error: ${resource} "${name}" can't restart paused deployment (run rollout resume first)` };
    return { path: ['spec', 'template', 'metadata', 'annotations', RESTARTED_AT], value: rfc3339(now), quoted: true };
  });
}
