// `knode delete TYPE --all` and `knode delete TYPE -l SELECTOR`: kubectl's
// bulk delete. Every object of the types in the namespace (or, with -A, in
// every namespace) whose labels match is deleted as if it had been named.
import type { CriClient } from '../cri/client.js';
import type { Pod } from '../engine/api/v1.js';
import type { KubeObject, LabelSelector } from '../engine/api/workloads.js';
import { podsFromRuntime } from '../engine/kuberuntime/runtime-view.js';
import { compareStrings } from '../util/compare.js';
import { KubectlError, UserError } from '../util/user-error.js';
import { API_VERSIONS } from './delete-named.js';
import { savedObjects, savedOfKind } from './offline-pods.js';
import { parseSelectorFlag, selected } from './selector-flag.js';

/** What --all, -l and -A ask for: every object of the types (an empty selector), or those the selector matches. */
export interface Bulk {
  selector: LabelSelector;
  /** Undefined with -A: every namespace. */
  namespace: string | undefined;
}

/**
 * The bulk delete the flags ask for, undefined without --all or -l; kubectl's
 * errors for what its builder refuses beside them: both flags, names, or
 * TYPE/NAME words. Undefined too with -f (WORDS undefined): there -l
 * filters the manifests' objects.
 */
export function bulkOf(
  flags: { all: boolean; selector?: string; 'all-namespaces': boolean },
  words: string[] | undefined,
  namespace: string,
): Bulk | undefined {
  if (flags.all && flags.selector !== undefined) throw new KubectlError('error: cannot set --all and --selector at the same time');
  if ((!flags.all && flags.selector === undefined) || words === undefined) return undefined;
  if (words.length === 0)
    throw new UserError('usage', 'at least one resource must be specified to use a selector', 'as TYPE --all or TYPE -l SELECTOR');
  if (words[0].includes('/'))
    throw new UserError(
      'usage',
      'selectors and the all flag cannot be used when passing resource/name arguments',
      'as TYPE --all or TYPE -l SELECTOR',
    );
  if (words.length > 1)
    throw new UserError('usage', 'name cannot be provided when a selector is specified', 'as TYPE --all or TYPE -l SELECTOR');
  const selector = flags.selector === undefined ? {} : parseSelectorFlag(flags.selector);
  return { selector, namespace: flags['all-namespaces'] ? undefined : namespace };
}

/** An object's place, for sorting as the apiserver lists: by namespace, then name. */
const placeOf = (o: { metadata: { namespace?: string; name?: string } }) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

function inBulk<T extends { metadata: { namespace?: string; name?: string; labels?: Record<string, string> } }>(
  objects: T[],
  bulk: Bulk,
): T[] {
  const inNamespace = objects.filter((o) => bulk.namespace === undefined || (o.metadata.namespace ?? 'default') === bulk.namespace);
  return selected(inNamespace, bulk.selector).sort((a, b) => compareStrings(placeOf(a), placeOf(b)));
}

/**
 * The local controllers' objects of KINDS that BULK selects, kind by kind,
 * as named objects are deleted (a pod they made among them: its owner
 * makes another, as in a cluster). No pods by name: whether the runtime's
 * are asked for, and the UIDs of the controllers' pods, for runtimePodsSelected.
 */
export function objectsSelected(
  kinds: string[],
  bulk: Bulk,
  rootDir: string,
): { objects: KubeObject[]; pods: { namespace: string; name: string }[]; runtimePods: boolean; controllers: Set<string> } {
  const saved = savedObjects(rootDir);
  const controllers = new Set(saved.flatMap((o) => (o.kind === 'Pod' && o.metadata.uid ? [o.metadata.uid] : [])));
  const objects = kinds.flatMap((kind) =>
    inBulk(savedOfKind(saved, kind), bulk).map((o) => ({
      apiVersion: API_VERSIONS[kind] ?? 'v1',
      kind,
      metadata: { name: o.metadata.name, namespace: o.metadata.namespace },
    })),
  );
  return { objects, pods: [], runtimePods: kinds.includes('Pod'), controllers };
}

/**
 * The runtime's pods BULK selects, by the labels on their sandboxes, but
 * those the local controllers made (CONTROLLERS, their UIDs): they are among
 * the objects.
 */
export async function runtimePodsSelected(client: CriClient, bulk: Bulk, controllers: Set<string>): Promise<Pod[]> {
  const pods = await podsFromRuntime(client, (await client.version()).runtimeName);
  return inBulk(
    pods.filter((p) => !controllers.has(p.metadata.uid!)),
    bulk,
  );
}
