// `knode delete TYPE NAME...`: the objects named on the command line, as
// kubectl names them, instead of the manifests of -f. Workloads and the
// objects pods read are the local controllers' saved objects; a pod is
// theirs when they made it, else the runtime's.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CriClient } from '../cri/client.js';
import type { Pod } from '../engine/api/v1.js';
import type { KubeObject } from '../engine/api/workloads.js';
import { podsFromRuntime } from '../engine/kuberuntime/runtime-view.js';
import { UserError } from '../util/user-error.js';
import { resourceOf } from './stop-pods.js';
import { deletedObjects } from './target-kinds.js';
import { savedObjects } from './offline-pods.js';

/** The manifests' path (-f), or undefined when the objects are named; kubectl's errors for neither or both. */
export function manifestsPath(filename: string | undefined, words: string[]): string | undefined {
  if (filename !== undefined && words.length > 0)
    throw new UserError('usage', 'when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well');
  if (filename === undefined && words.length === 0)
    throw new UserError('usage', 'You must provide one or more resources by argument or filename.', 'as -f FILE, TYPE NAME or TYPE/NAME');
  if (filename === undefined) return undefined;
  const path = resolve(filename);
  if (!existsSync(path)) throw new UserError('usage', `${filename}: no such file or directory`);
  return path;
}

/**
 * The refusal for OBJECTS (of FILENAME's manifests, or named) that the node
 * running under ROOT_DIR runs: they are its to delete. Exit 2 before
 * anything is touched, as apply's refusal beside a node.
 */
export function ownedByNode(rootDir: string, filename: string | undefined, objects: KubeObject[]): UserError {
  const refs = objects.map((o) => `${resourceOf(o.kind)}/${o.metadata.name}`);
  const shown = refs.length > 3 ? `${refs.slice(0, 3).join(', ')} and ${refs.length - 3} more` : refs.join(', ');
  return new UserError(
    'usage',
    `the node running under ${rootDir} runs ${shown}${filename !== undefined ? ` (of ${filename})` : ''}, which it would make again`,
    `remove ${filename !== undefined ? 'them' : 'their manifests'} from its --static-dir, or stop it first`,
  );
}

/** The API version of each kind `delete` takes. */
export const API_VERSIONS: Record<string, string> = {
  Deployment: 'apps/v1',
  ReplicaSet: 'apps/v1',
  StatefulSet: 'apps/v1',
  DaemonSet: 'apps/v1',
  Job: 'batch/v1',
  CronJob: 'batch/v1',
};

/**
 * The objects WORDS name in NAMESPACE, as the delete of manifests takes
 * them (kind, namespace and name are all it reads), and apart the pods that
 * are the runtime's alone (a pod of `knode apply`, or a static pod).
 */
export function namedObjects(
  words: string[],
  namespace: string,
  rootDir: string,
): { objects: KubeObject[]; pods: { namespace: string; name: string }[] } {
  const saved = savedObjects(rootDir);
  const objects: KubeObject[] = [];
  const pods: { namespace: string; name: string }[] = [];
  for (const { kind, name } of deletedObjects(words)) {
    const controllers = saved.some((o) => o.kind === 'Pod' && o.metadata.namespace === namespace && o.metadata.name === name);
    if (kind === 'Pod' && !controllers) pods.push({ namespace, name });
    else objects.push({ apiVersion: API_VERSIONS[kind] ?? 'v1', kind, metadata: { name, namespace } });
  }
  return { objects, pods };
}

/** The runtime's pods NAMED, as the runtime has them (its annotations give the grace period and preStop hooks); kubectl's error for each not there. */
export async function runtimePodsNamed(
  client: CriClient,
  named: { namespace: string; name: string }[],
): Promise<{ pods: Pod[]; missing: string[] }> {
  if (named.length === 0) return { pods: [], missing: [] };
  const all = await podsFromRuntime(client, (await client.version()).runtimeName);
  const pods: Pod[] = [];
  const missing: string[] = [];
  for (const { namespace, name } of named) {
    const pod = all.find((p) => p.metadata.namespace === namespace && p.metadata.name === name);
    if (pod) pods.push(pod);
    else missing.push(`Error from server (NotFound): pods "${name}" not found`);
  }
  return { pods, missing };
}
