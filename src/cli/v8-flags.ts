// V8 flags set at run time, kept from costing the command its code caches.
// V8 hashes the flags that are off their defaults into every code cache and
// refuses a cache made under another hash: Node's cache of its built-in
// modules (made with none off) and knode's of its bundle files
// (src/cli/code-cache.ts). A flag on the command line, or one set before a
// module loads, has each of Node's modules compile from its source, which
// slowed every command's start (bench/notes/podman.md, session 32).
import { createRequire } from 'node:module';
import { V8_FLAG_DEFAULTS } from '../util/node-flags.js';

// A require for Node's own modules (where it starts from does not matter for those): this file is
// bundled into CommonJS (boot.cjs) and ES modules alike.
const requireBuiltin = createRequire(process.execPath);
/** The flags set so far, undone at exit. */
const set: string[] = [];
let undoing = false;

function setFlag(flag: string): void {
  // node:v8 only where it is used: loading it costs a few milliseconds.
  (requireBuiltin('node:v8') as typeof import('node:v8')).setFlagsFromString(flag);
}

/**
 * Gives the V8 flags of the command line their defaults back (the heap keeps
 * the layout they gave it), and has every flag set later undone at exit,
 * before anything writes a code cache: call it before any module loads, so
 * that its 'exit' listener is the first.
 */
export function restoreStartFlags(execArgv: readonly string[] = process.execArgv): void {
  for (const flag of execArgv) if (flag in V8_FLAG_DEFAULTS) setFlag(V8_FLAG_DEFAULTS[flag]);
  if (undoing) return;
  undoing = true;
  process.once('exit', () => {
    for (const flag of set.splice(0)) setFlag(V8_FLAG_DEFAULTS[flag]);
  });
}

/** Sets FLAGS (each one V8_FLAG_DEFAULTS can undo) for the rest of the process, once its code has loaded. */
export function setRunTimeFlags(flags: readonly string[]): void {
  for (const flag of flags) {
    if (!(flag in V8_FLAG_DEFAULTS)) throw new Error(`setRunTimeFlags: ${flag} has no default to go back to (V8_FLAG_DEFAULTS)`);
    setFlag(flag);
    set.push(flag);
  }
}
