// How a sandboxed container runs as a non-root user without a user
// namespace: util-linux's setpriv, with the libraries and loader it links
// against, copied once into the runtime's directory and bound read-only
// into the sandbox at KIT_PATH. Inside, after bwrap has made the root, the
// loader runs setpriv, which takes the user and group and execs the
// program, as runc does between its setup and the program. The user is then
// the same on the host as in the container: files it writes are its own,
// not root's, and it can join the pod's PID namespace.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';

/** Where the kit is seen inside a sandbox. */
export const KIT_PATH = '/.knode';

export type SetuidKit = { ok: true; dir: string; loader: string } | { ok: false; reason: string };

/**
 * Copies setpriv (found at `setpriv`) and what `ldd` says it needs into
 * `dir`. Not ok where setpriv is missing or is not a dynamically linked
 * program whose loader ldd names.
 */
export function prepareSetuidKit(dir: string, setpriv: string | undefined): SetuidKit {
  if (!setpriv) return { ok: false, reason: 'setpriv (util-linux) is not installed' };
  const ldd = spawnSync('ldd', [setpriv], { encoding: 'utf8', timeout: 10_000 });
  if (ldd.error || ldd.status !== 0) return { ok: false, reason: `ldd ${setpriv} failed: ${ldd.error?.message ?? ldd.stderr.trim()}` };
  const libraries: string[] = [];
  let loader: string | undefined;
  for (const line of ldd.stdout.split('\n')) {
    const resolved = /=>\s+(\/\S+)/.exec(line);
    if (resolved) libraries.push(resolved[1]);
    else if (/^\s*(\/\S+)\s+\(/.test(line)) loader = line.trim().split(/\s+/)[0];
  }
  if (!loader) return { ok: false, reason: `ldd names no loader for ${setpriv}` };
  const partial = `${dir}.partial-${process.pid}`;
  try {
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    for (const file of [setpriv, loader, ...libraries]) copyFileSync(file, join(partial, basename(file)));
    rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
  } catch (err) {
    rmSync(partial, { recursive: true, force: true });
    return { ok: false, reason: `cannot copy setpriv and its libraries into ${dir}: ${(err as Error).message}` };
  }
  return { ok: true, dir, loader: basename(loader) };
}

/**
 * The argv before a program's that runs it as `uid`:`gid` with supplementary
 * `groups` (none when empty), inside a sandbox holding the kit; with
 * `capabilities`, the bounding set is those alone (root's program then has
 * them and no more; another user's, none).
 */
export function setuidPrefix(kit: Extract<SetuidKit, { ok: true }>, uid: number, gid: number, groups: readonly number[] = [], capabilities?: readonly string[]): string[] {
  const supplementary = groups.length > 0 ? `--groups=${groups.join(',')}` : '--clear-groups';
  const bounding = capabilities ? [`--bounding-set=${['-all', ...capabilities.map((c) => `+${c}`)].join(',')}`] : [];
  return [`${KIT_PATH}/${kit.loader}`, '--library-path', KIT_PATH, `${KIT_PATH}/setpriv`, `--reuid=${uid}`, `--regid=${gid}`, supplementary, ...bounding, '--'];
}
