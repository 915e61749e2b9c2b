import { relative, resolve, isAbsolute } from 'node:path';
import { NodeClient } from './node-client.js';
import { UserError } from '../util/user-error.js';

/**
 * `knode apply` beside a `knode run` node on the same root dir: the node runs
 * only what its sources hold, so its housekeeping would stop the applied pods
 * as orphans within seconds, after apply had reported them Running. Refused
 * before anything is read or started (exit 2), naming where the manifests
 * belong: the node's --static-dir, or another --root-dir. With --replace the
 * node and its --static-dir are given back: the manifests replace the objects
 * of the same names there. Undefined when no node runs.
 */
export async function besideNode(
  rootDir: string,
  filename: string,
  replace: boolean,
): Promise<{ node: NodeClient; staticDir: string } | undefined> {
  const node = await NodeClient.find(rootDir);
  if (!node) return undefined;
  const staticDir = await nodeStaticDir(node);
  const path = filename === '-' ? undefined : resolve(filename);
  if (staticDir && path && within(staticDir, path))
    throw new UserError(
      'usage',
      `the node running under ${rootDir} already runs ${filename} from its --static-dir`,
      'edit the manifests there: the node applies the changes itself',
    );
  if (replace && staticDir) return { node, staticDir };
  if (replace)
    throw new UserError(
      'usage',
      `the node running under ${rootDir} has no --static-dir: apply --replace rewrites the manifests of a node's --static-dir`,
      'apply under another --root-dir',
    );
  throw new UserError(
    'usage',
    `a node runs under ${rootDir}: it would stop the pods of ${filename} as orphans, since none of its sources holds them`,
    `put the manifests in the node's --static-dir${staticDir ? ` (${staticDir})` : ''}, or apply under another --root-dir${staticDir ? '; --replace replaces the objects of the same names there' : ''}`,
  );
}

/** The node's --static-dir, from its /configz; undefined when it has none or does not say. */
export async function nodeStaticDir(node: NodeClient): Promise<string | undefined> {
  try {
    const { body } = await node.json<{ kubeletconfig?: { staticPodPath?: string } }>('/configz');
    return body.kubeletconfig?.staticPodPath || undefined;
  } catch {
    return undefined;
  }
}

function within(dir: string, path: string): boolean {
  const rel = relative(resolve(dir), path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
