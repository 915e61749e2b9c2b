#!/usr/bin/env -S GLIBC_TUNABLES=glibc.malloc.trim_threshold=131072:glibc.malloc.mmap_threshold=131072:glibc.malloc.arena_max=2 node --max-semi-space-size=1 --heap-growing-percent=50
// NO_COLOR (no-color.org) and --no-color turn colour off everywhere: listr2
// reads NO_COLOR, Ink's chalk reads FORCE_COLOR, so both are set before either loads.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

if (process.env.NO_COLOR || process.argv.includes('--no-color')) {
  process.env.NO_COLOR = '1';
  process.env.FORCE_COLOR = '0';
}
// The commands and @oclif/core run from the bundles `npm run build` writes
// (docs/design.md); the CommonJS ones compiled with a V8 code cache.
const bundle = new URL('../dist/bundle/', import.meta.url);
const codeCache = await import(new URL('../dist/cli/code-cache.js', import.meta.url).href).catch((err) => {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND') throw err;
  console.error(`knode is not built (${bundle.pathname} is missing): run npm ci && npm run build`);
  process.exit(1);
});
// What the CommonJS bundles' import() calls (scripts/bundle.js, routeDynamicImports).
globalThis[Symbol.for('knode.import')] = (specifier) => import(specifier);
// The long-running commands, which the build leaves ES modules, compile lazily as Node does: a cache's
// bytecode is loaded all at once and stays in their heap (about 1 MiB of a node's memory).
const [first = '', second = ''] = process.argv.slice(2);
const esModule = (id) => /^[a-z][a-z/-]*$/.test(id) && existsSync(fileURLToPath(new URL(`commands/${id}.js`, bundle)));
const longRunning = esModule(first) || esModule(`${first}/${second}`);
codeCache.installCodeCache(fileURLToPath(bundle), longRunning ? undefined : codeCache.codeCacheDir());
const { execute } = createRequire(import.meta.url)('../dist/bundle/cli/main.cjs');

await execute({ dir: import.meta.url });
// A short command is done: it ends now rather than once the event loop drains, where Node first
// finishes any garbage collection under way (about 10 ms after an apply). Its output is written: on
// Linux stdout and stderr are synchronous, files, terminals and pipes alike. A long-running command
// (run, join, runtime serve) ends as Node ends it, after whatever its stop left to finish.
if (!longRunning) process.exit();
