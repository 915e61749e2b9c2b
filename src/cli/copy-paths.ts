import { posix, join, relative } from 'node:path';
import { KubectlError } from '../util/user-error.js';

/** One side of `knode cp`: a local path, or a path in a pod (`[[NAMESPACE/]POD:]PATH`, as kubectl's fileSpec). */
export interface FileSpec {
  pod?: string;
  namespace?: string;
  file: string;
}

/**
 * Reads an argument of `cp` as kubectl's extractFileSpec does: no colon is a
 * local path; `POD:PATH` or `NAMESPACE/POD:PATH` a path in a pod; a leading
 * colon or more than one slash before it is refused with kubectl's words.
 */
export function parseFileSpec(arg: string): FileSpec {
  const colon = arg.indexOf(':');
  const malformed = () => new KubectlError('error: filespec must match the canonical format: [[namespace/]pod:]file/path');
  if (colon === 0) throw malformed();
  if (colon < 0) return { file: stripTrailingSlash(arg) };
  const pieces = arg.slice(0, colon).split('/');
  const file = remotePath(arg.slice(colon + 1));
  if (pieces.length === 1) return { pod: pieces[0], file };
  if (pieces.length === 2) return { namespace: pieces[0], pod: pieces[1], file };
  throw malformed();
}

/** A path in the container: always `/`-separated, without a trailing slash. */
export function remotePath(path: string): string {
  return stripTrailingSlash(path.replaceAll('\\', '/'));
}

function stripTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/** Removes the leading `../` runs, a lone `.` or `..`, and one leading slash: what kubectl's stripPathShortcuts leaves. */
export function stripPathShortcuts(path: string): string {
  let rest = path;
  while (rest.startsWith('../')) rest = rest.slice(3);
  if (rest === '.' || rest === '..') rest = '';
  return rest.startsWith('/') ? rest.slice(1) : rest;
}

/**
 * The prefix every entry of `tar cf - SRC` starts with in the pod: SRC cleaned,
 * without its leading slashes (tar drops them) or `../` (which cannot climb
 * above / in the container).
 */
export function archivePrefix(source: string): string {
  return stripPathShortcuts(remotePath(posix.normalize(source.replace(/^[/\\]+/, ''))));
}

/** What to do with an entry of the pod's archive. */
export type EntryPlace = { kind: 'inside'; path: string } | { kind: 'outside'; path: string } | { kind: 'corrupted' };

/**
 * Where an entry named `name` of the pod's archive lands under `destination`,
 * as kubectl's untarAll decides it: an entry without the prefix means the
 * archive was tampered with; one whose name climbs out of the destination
 * (`..`, however spelled) is outside and must be skipped.
 */
export function placeEntry(name: string, prefix: string, destination: string): EntryPlace {
  if (!name.startsWith(prefix)) return { kind: 'corrupted' };
  const path = join(destination, remotePath(name.slice(prefix.length)));
  return isRelative(destination, path) ? { kind: 'inside', path } : { kind: 'outside', path };
}

/** Whether `target` is `base` or below it, lexically (kubectl's isRelative). */
export function isRelative(base: string, target: string): boolean {
  const rel = relative(base, target);
  if (rel === '' || rel === '.') return true;
  return rel === stripPathShortcuts(rel) && rel !== '..' && !rel.startsWith('../');
}
