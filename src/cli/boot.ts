// What bin/run.js starts: the CLI's entry and its commands from the bundles
// `npm run build` writes (docs/design.md), the CommonJS ones compiled with a
// V8 code cache. It is a CommonJS bundle itself (dist/bundle/cli/boot.cjs),
// and so is bin/run.js: an ES module entry costs a short command the ES
// module loader's start and a facade for each of Node's modules it imports
// (about 7 ms of `knode --version` on the VM of 2026-12-05). A command that
// needs an ES module (a long-running one, the TUI, the apiserver client)
// still imports it.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HEAP_GROWING_FLAG } from '../util/node-flags.js';
import { startRuntimeEarly } from '../cri/runtime-spawn.js';
import { codeCacheDir, installCodeCache } from './code-cache.js';
import { earlyProbesFor, earlyRuntimeRoot } from './early-runtime.js';
import { startHostProbesEarly } from '../runtime/host-probes.js';
import { restoreStartFlags, setRunTimeFlags } from './v8-flags.js';

interface Entry {
  execute(options: { dir: string }): Promise<unknown>;
}

/**
 * V8 flags by command, set once the command's code has loaded:
 * - the commands that drive pods and end once they are done (apply,
 *   delete) end before V8's optimising compilers pay off. Sparkplug's
 *   baseline code and TurboFan's (on a thread of its own, beside the
 *   runtime's processes on a small machine) cost them CPU and fresh pages
 *   they never win back: without them an apply or a delete takes less of
 *   both, and less time (bench/notes/podman.md, session 25);
 * - the node (run, join) runs without TurboFan. Its work is I/O and native
 *   code (syscalls, JSON, HTTP/2, TLS); TurboFan's code, its compiler's
 *   pages and its zone memory kept 5–11 MiB more resident, from the first
 *   pod to a thousand, for no CPU it measurably saved
 *   (bench/notes/sli.md, session 29). Its old generation grows by half
 *   (HEAP_GROWING_FLAG).
 * The commands that may stream for long (logs -f, exec, port-forward) keep
 * both compilers.
 */
const COMMAND_V8_FLAGS = new Map<string, readonly string[]>([
  ['apply', ['--no-sparkplug', '--no-opt']],
  ['delete', ['--no-sparkplug', '--no-opt']],
  ['run', ['--no-opt', HEAP_GROWING_FLAG]],
  ['join', ['--no-opt', HEAP_GROWING_FLAG]],
]);

/** The V8 flags COMMAND (the first word of a command line) runs with. */
export function v8FlagsFor(command: string): readonly string[] {
  return COMMAND_V8_FLAGS.get(command) ?? [];
}

/** Runs the command line of this process; BIN is bin/run.js, whose package is the CLI's. */
export async function start(bin: string): Promise<void> {
  // NO_COLOR (no-color.org) and --no-color turn colour off everywhere: listr2
  // reads NO_COLOR, Ink's chalk reads FORCE_COLOR, so both are set before either loads.
  if (process.env.NO_COLOR || process.argv.includes('--no-color')) {
    process.env.NO_COLOR = '1';
    process.env.FORCE_COLOR = '0';
  }
  // A reader that went away (`knode logs -f POD | head -1`) ends the command, as SIGPIPE ends kubectl (its
  // exit status as a shell shows one killed by it). oclif swallows the EPIPE, which left a follow or a watch
  // writing to nobody until it was killed. Node ignores SIGPIPE itself, so the status is given by hand.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(128 + 13);
  });
  const require = createRequire(bin);
  // A command that connects to the embedded runtime first thing (apply, run) has it started now, so
  // that the runtime's start overlaps the command's own instead of following it.
  const runtimeRoot = earlyRuntimeRoot(process.argv.slice(2));
  const childProcess = () => require('node:child_process') as typeof import('node:child_process');
  if (runtimeRoot) startRuntimeEarly(childProcess().spawn, bin, runtimeRoot);
  // The runtime itself asks what its host can do while its code loads.
  const probes = earlyProbesFor(process.argv.slice(2));
  if (probes) startHostProbesEarly(childProcess().spawn, probes.runtimeDir, probes.sandboxes);
  const root = join(dirname(bin), '..');
  const bundle = join(root, 'dist', 'bundle');
  // What the CommonJS bundles' import() calls (scripts/bundle.js, routeDynamicImports). This file
  // is compiled by Node's own loader, so its import() works, and resolves the package's "imports".
  const importModule = (specifier: string) => import(specifier);
  (globalThis as Record<symbol, unknown>)[Symbol.for('knode.import')] = importModule;
  // The node's commands, which the build leaves ES modules, compile lazily as Node does: a cache's
  // bytecode is loaded all at once and stays in their heap (about 1 MiB of a node's memory).
  const [first = '', second = ''] = process.argv.slice(2);
  const esModule = (id: string) => /^[a-z][a-z/-]*$/.test(id) && existsSync(join(bundle, 'commands', `${id}.js`));
  const longRunning = esModule(first) || esModule(`${first}/${second}`);
  const v8Flags = v8FlagsFor(first);
  // Flags off their defaults make V8 refuse Node's code cache of its modules and knode's (v8-flags.ts):
  // the command line's go back to theirs now, and the command's are set once its code has loaded.
  restoreStartFlags();
  installCodeCache(bundle, longRunning ? undefined : codeCacheDir());
  const { execute } = require(join(bundle, 'cli', 'main.cjs')) as Entry;
  if (v8Flags.length > 0) {
    // The command's module, loaded here as oclif loads it (its loader's caches then hand oclif this one).
    const file = join(bundle, 'commands', `${first}.${longRunning ? 'js' : 'cjs'}`);
    if (longRunning) await importModule(pathToFileURL(file).href);
    else require(file);
    setRunTimeFlags(v8Flags);
  }

  // oclif finds the package above the file it is given: not bin/package.json, which only says bin/ is CommonJS.
  await execute({ dir: pathToFileURL(join(root, 'package.json')).href });
  // A short command is done: it ends now rather than once the event loop drains, where Node first
  // finishes any garbage collection under way (about 10 ms after an apply). Its output is written: on
  // Linux stdout and stderr are synchronous, files, terminals and pipes alike (runtime serve's ends once
  // its containers are stopped). The node (run, join) ends as Node ends it, after whatever its stop left to finish.
  if (!longRunning) process.exit();
}
