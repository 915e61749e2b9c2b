// A V8 code cache for the CLI's CommonJS bundles (scripts/bundle.js): a
// short command's start is mostly V8 compiling its code, and Node 20 has no
// module.enableCompileCache. src/cli/boot.ts installs this before it loads the
// entry; every .cjs file under the bundle directory is then compiled with the
// bytecode a previous run left, and a run that found none (or a stale one)
// leaves it at its exit, with every function that run compiled.
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { createRequire, Module } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { Script } from 'node:vm';

/** The directory the caches go to, or undefined when KNODE_CODE_CACHE=off turns them off. */
export function codeCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.KNODE_CODE_CACHE === 'off') return undefined;
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'knode', 'code-cache');
}

/**
 * A cache's file name: the bundle file, the build of it, and the V8 that made
 * it (the same Node with the same command line: V8 refuses a cache made
 * under other flags, and src/cli/v8-flags.ts sets the flags of a command only
 * after its code has loaded, and undoes them before the caches are written).
 */
export function cacheFileName(bundleDir: string, file: string, built: { size: number; mtimeMs: number }): { prefix: string; name: string } {
  const prefix = relative(bundleDir, file).split(sep).join('_');
  const build = `${built.size.toString(36)}${Math.trunc(built.mtimeMs).toString(36)}`;
  const v8 = fnv1a(`${process.version} ${process.arch} ${process.execArgv.join(' ')}`);
  return { prefix, name: `${prefix}.${build}.${v8}.v8` };
}

type Loader = (module: Module, filename: string) => void;

/** How each bundle file of this process was compiled: from its cache, or from its source (its cache then written at exit). */
export const compiledFrom = new Map<string, 'cache' | 'source'>();

/**
 * Compiles the .cjs files under `bundleDir` with the caches in `cacheDir`.
 * A cache V8 refuses (another Node, other flags) is made again; one that
 * cannot be read or written only costs the compile it would have saved.
 */
export function installCodeCache(bundleDir: string, cacheDir: string | undefined): void {
  if (!cacheDir) return;
  const extensions = (Module as unknown as { _extensions: Record<string, Loader> })._extensions;
  const plain = extensions['.cjs'] ?? extensions['.js'];
  const within = bundleDir.endsWith(sep) ? bundleDir : bundleDir + sep;
  extensions['.cjs'] = (module, filename) => {
    // Source maps are Node's own loader's: `node --enable-source-maps` compiles as it would without a cache.
    if (!filename.startsWith(within) || process.sourceMapsEnabled) return plain(module, filename);
    loadCached(module, filename, bundleDir, cacheDir);
  };
}

function loadCached(module: Module, filename: string, bundleDir: string, cacheDir: string): void {
  // The build writes ASCII only (scripts/bundle.js): as Latin-1 it is the same text, copied rather than decoded.
  const { data, stats } = readScratch(filename);
  const source = data.toString('latin1');
  const { prefix, name } = cacheFileName(bundleDir, filename, stats);
  const cacheFile = join(cacheDir, name);
  const cachedData = readOptional(cacheFile);
  // No import() in it: the build routes each one through bin/run.js's (scripts/bundle.js). V8 has read the
  // cache once the script is made, so the scratch buffer may take the next file.
  const script = new Script(Module.wrap(source), { filename, cachedData });
  const fresh = !cachedData || script.cachedDataRejected === true;
  compiledFrom.set(filename, fresh ? 'source' : 'cache');
  if (fresh) process.once('exit', () => writeCache(script, cacheDir, cacheFile, prefix));
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  const require = createRequire(filename);
  wrapper.call(module.exports, module.exports, require, module, filename, dirname(filename));
}

/**
 * One buffer for every file loadCached reads (a bundle file, then its cache,
 * then the next): a read into it fills memory already mapped, where a buffer
 * of its own would be fresh pages, and a page fault is dear on a small VM
 * (bench/notes/podman.md, session 25). Its pages are touched only as far as
 * the largest file; it is made with room to spare, so that it is made once.
 */
let scratch: Buffer | undefined;
const SCRATCH_BYTES = 4 << 20;

/** FILE's bytes in the scratch buffer (valid until the next read), and its stats. */
function readScratch(file: string): { data: Buffer; stats: Stats } {
  const fd = openSync(file, 'r');
  try {
    const stats = fstatSync(fd);
    const size = stats.size;
    if (!scratch || scratch.length < size) scratch = Buffer.allocUnsafeSlow(Math.max(size, SCRATCH_BYTES));
    let read = 0;
    for (let n = -1; read < size && n !== 0; read += n) n = readSync(fd, scratch, read, size - read, read);
    return { data: scratch.subarray(0, read), stats };
  } finally {
    closeSync(fd);
  }
}

/** A cache's bytes (readScratch), or undefined when there is none yet, or it cannot be read. */
function readOptional(file: string): Buffer | undefined {
  try {
    return readScratch(file).data;
  } catch {
    return undefined;
  }
}

/** Writes the cache (every function compiled so far), replacing older builds' caches of the same file. */
function writeCache(script: Script, dir: string, file: string, prefix: string): void {
  try {
    const data = script.createCachedData();
    makeDirectory(dir);
    const name = file.slice(dir.length + 1);
    const build = name.slice(prefix.length + 1, name.indexOf('.', prefix.length + 1));
    // Older builds' caches of this file, whatever flags made them (those of this build are kept), and what a
    // writer killed before its rename left.
    for (const old of readdirSync(dir)) {
      if (!old.startsWith(`${prefix}.`) || old === name) continue;
      if (!old.startsWith(`${prefix}.${build}.`) || /\.v8\.\d+$/.test(old)) rmSync(join(dir, old), { force: true });
    }
    // Written whole, then renamed: a command started meanwhile reads the old cache or the new one.
    const temp = `${file}.${process.pid}`;
    const fd = openSync(temp, 'w', 0o600);
    try {
      writeSync(fd, data);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch {
    // A read-only home or a full disk: the next run compiles again.
  }
}

/**
 * Makes DIR and the directories above it that are missing, one at a time:
 * Node 20's recursive mkdirSync never returns for a path it cannot make
 * under /proc (XDG_CACHE_HOME=/proc/x).
 */
function makeDirectory(dir: string): void {
  const missing: string[] = [];
  for (let d = dir; !existsSync(d); d = dirname(d)) {
    if (dirname(d) === d) break;
    missing.unshift(d);
  }
  for (const d of missing) {
    try {
      mkdirSync(d, 0o700);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** FNV-1a, 32 bits, in base 36: a short stable tag, without loading node:crypto. */
function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}
