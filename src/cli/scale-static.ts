// `knode scale` beside a running node: kubectl sets a workload's replicas
// through its scale subresource; here `spec.replicas` is written into the
// workload's manifest in the node's --static-dir (static-edit.ts), and the
// local controllers then scale it as a cluster's would.
import { editInStaticDir, type EditOutcome } from './static-edit.js';
import type { ObjectRef } from './static-manifests.js';

/** The kinds with a scale subresource that a manifest holds. */
const SCALED = new Set(['Deployment', 'ReplicaSet', 'StatefulSet']);

/**
 * Sets REPLICAS on the objects REFS name in STATICDIR's manifests; with
 * CURRENT (not -1), only where the spec says that many now (kubectl's
 * precondition), else its error, and nothing is scaled after it, as
 * kubectl stops at its first error. kubectl's error for a kind without a
 * scale subresource.
 */
export async function scaleInStaticDir(
  staticDir: string,
  refs: ObjectRef[],
  replicas: number,
  current: number,
  known: (ref: ObjectRef) => boolean,
): Promise<EditOutcome[]> {
  let failed = false;
  const outcomes = await editInStaticDir(staticDir, refs, 'scaled', known, (target) => {
    if (failed) return { error: SKIPPED };
    const now = (target.value as { spec?: { replicas?: number } }).spec?.replicas ?? 1;
    const error = !SCALED.has(target.ref.kind)
      ? 'Error from server (NotFound): the server could not find the requested resource'
      : current !== -1 && now !== current
        ? `error: Expected replicas to be ${current}, was ${now}`
        : undefined;
    if (error) {
      failed = true;
      return { error };
    }
    return { path: ['spec', 'replicas'], value: replicas };
  });
  return outcomes.filter((o) => o.error !== SKIPPED);
}

/** What comes after a refused scale: kubectl stops there, and says nothing of it. */
const SKIPPED = 'skipped';
