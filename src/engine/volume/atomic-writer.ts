import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';

/** A file of a projected volume: its content and its mode. */
export interface VolumeFile {
  data: Buffer;
  mode: number;
}

/**
 * Writes a volume's files the way the kubelet's AtomicWriter does, so a
 * container never sees half an update: the files go into a fresh
 * `..<timestamp>` directory, the `..data` symlink is swapped to it in one
 * rename, and each top-level name is a symlink through `..data`. Unchanged
 * content is not rewritten (content only, as the kubelet's shouldWriteFile:
 * a mode the volume's ownership changed is no change). `setPerms` runs once
 * the new version is written and before it is swapped in, as the kubelet's
 * fsGroup hook. Paths must be relative and stay inside the volume.
 */
export function writeAtomically(dir: string, files: Map<string, VolumeFile>, now: number, setPerms?: () => void): void {
  for (const path of files.keys()) {
    if (path === '' || path.startsWith('/') || path.split('/').some((p) => p === '..' || p.startsWith('..'))) {
      throw new Error(`invalid path "${path}": it must be relative, stay inside the volume and not start with ".."`);
    }
  }
  mkdirSync(dir, { recursive: true });
  const dataLink = join(dir, '..data');
  const current = existsSync(dataLink) ? readlinkSync(dataLink) : undefined;
  if (current && unchanged(join(dir, current), files)) return;

  const version = `..${new Date(now).toISOString().replace(/[-:]/g, '_')}.${process.pid}${Math.floor(Math.random() * 1e6)}`;
  const target = join(dir, version);
  mkdirSync(target, { recursive: true });
  chmodSync(target, 0o755);
  for (const [path, file] of files) {
    mkdirSync(dirname(join(target, path)), { recursive: true });
    writeFileSync(join(target, path), file.data);
    chmodSync(join(target, path), file.mode);
  }
  setPerms?.();
  const tmpLink = join(dir, '..data_tmp');
  rmSync(tmpLink, { force: true });
  symlinkSync(version, tmpLink);
  renameSync(tmpLink, dataLink);

  const top = new Set([...files.keys()].map((p) => p.split('/')[0]));
  for (const name of top) {
    const link = join(dir, name);
    if (!isSymlink(link)) {
      rmSync(link, { recursive: true, force: true });
      symlinkSync(join('..data', name), link);
    }
  }
  for (const entry of readdirSync(dir)) {
    if (entry === '..data' || entry === version) continue;
    if (entry.startsWith('..') || !top.has(entry)) rmSync(join(dir, entry), { recursive: true, force: true });
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function unchanged(current: string, files: Map<string, VolumeFile>): boolean {
  try {
    if (countFiles(current) !== files.size) return false;
    for (const [path, file] of files) {
      const full = join(current, path);
      if (!readFileSync(full).equals(file.data)) return false;
    }
    return true;
  } catch {
    return false;
  }
}

function countFiles(dir: string): number {
  let n = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) n += entry.isDirectory() ? countFiles(join(dir, entry.name)) : 1;
  return n;
}
