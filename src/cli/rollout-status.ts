// `knode rollout status`: kubectl's rollout status over the objects the
// local controllers save. The running node writes its store to
// <root-dir>/objects.json within 200 ms of a change, so reading that file
// again is the watch; without a node nothing moves a rollout on.
import { setTimeout as sleep } from 'node:timers/promises';
import type { KubeObject } from '../engine/api/workloads.js';
import { rolloutState } from '../controllers/rollout.js';
import { compareStrings } from '../util/compare.js';
import { KubectlError, UserError } from '../util/user-error.js';
import { savedObjects, savedOfKind } from './offline-pods.js';
import { groupKindOf } from './stop-pods.js';
import { pluralResource } from './target-kinds.js';

/** How often the saved objects are read again while a rollout goes on: the store's own save delay. */
const POLL_MS = 200;

/** The kinds kubectl has a status viewer for. */
const VIEWED = new Set(['Deployment', 'DaemonSet', 'StatefulSet']);

export interface RolloutWatch {
  /** kubectl's --watch: false prints the state once. */
  watch: boolean;
  /** Milliseconds before kubectl's timeout error; 0 waits for ever. */
  timeoutMs: number;
  signal: AbortSignal;
  /** Whether a node runs under the root dir, to move the rollout on. */
  nodeRuns: () => Promise<boolean>;
  print: (line: string) => void;
}

/** NAME, or, when it is empty, the name of every object of KIND in NAMESPACE among SAVED, sorted as kubectl's builder lists a type. */
export function namesOfKind(saved: KubeObject[], kind: string, namespace: string, name: string): string[] {
  if (name) return [name];
  return savedOfKind(saved, kind, namespace)
    .map((o) => o.metadata.name!)
    .sort(compareStrings);
}

/** The objects of KIND kubectl's builder gives for NAME in NAMESPACE: that one, or every one of the kind when NAME is empty. */
export function rolloutTargets(
  rootDir: string,
  kind: string,
  namespace: string,
  name: string,
): { kind: string; namespace: string; name: string }[] {
  if (!VIEWED.has(kind)) {
    throw new KubectlError(`error: no status viewer has been implemented for ${groupKindOf(kind)}`);
  }
  return namesOfKind(name ? [] : savedObjects(rootDir), kind, namespace, name).map((n) => ({ kind, namespace, name: n }));
}

/**
 * Prints TARGET's rollout state each time it changes, in kubectl's words,
 * until it is rolled out (or once, without --watch). kubectl's errors for an
 * object not there or gone, a rollout that failed and the timeout; an error
 * of knode's own when it waits and no node runs. Ends quietly when the
 * signal fires.
 */
export async function watchRollout(
  rootDir: string,
  target: { kind: string; namespace: string; name: string },
  options: RolloutWatch,
): Promise<void> {
  const resource = pluralResource(target.kind);
  const deadline = options.timeoutMs > 0 ? Date.now() + options.timeoutMs : Infinity;
  let last: string | undefined;
  for (;;) {
    const found = savedObjects(rootDir).find(
      (o: KubeObject) =>
        o.kind === target.kind && (o.metadata.namespace ?? 'default') === target.namespace && o.metadata.name === target.name,
    );
    if (!found && last === undefined) throw new KubectlError(`Error from server (NotFound): ${resource} "${target.name}" not found`);
    if (!found) throw new KubectlError('error: object has been deleted');
    const { state, message } = rolloutState(found);
    if (state === 'failed') throw new KubectlError(`error: ${message}`);
    if (message !== last) options.print(message);
    last = message;
    if (state === 'ready' || !options.watch) return;
    if (!(await options.nodeRuns()))
      throw new UserError(
        'workloadFailed',
        `no node runs under ${rootDir}: nothing moves the rollout of ${resource}/${target.name} on`,
        'start knode run on its manifests, or knode apply them again',
      );
    if (Date.now() >= deadline) throw new KubectlError('error: timed out waiting for the condition');
    try {
      await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())), undefined, { signal: options.signal });
    } catch {
      return;
    }
  }
}
