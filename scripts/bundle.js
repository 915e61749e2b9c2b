#!/usr/bin/env node
// Bundles the CLI's entry (dist/cli/main.js, with @oclif/core) and the built
// commands (dist/commands) into dist/bundle, which bin/run.js loads, so a
// command's start reads a few files instead of the seven hundred modules of
// its import graph (knode's and its dependencies'). Part of `npm run build`,
// after tsc. Two kinds of output, for two kinds of command:
// - the entry and the short commands (apply, status, logs…) are CommonJS
//   files, one each, that bin/run.js compiles with a V8 code cache
//   (src/cli/code-cache.ts): their start is mostly compiling, which the cache
//   skips from the second run on;
// - the commands that run as long as a node or a runtime does are ES modules
//   with shared chunks, and so are the apiserver client and the TUI, which
//   every command loads on demand: from its thousand modules the client took
//   46 MiB more memory and 400 ms more to load, and Ink has a top-level await.
// The certificate library stays outside. Whitespace and comments are left out
// (names stay): V8 holds a script's source for as long as the process runs,
// and the client's chunk is half as large without them.
import { build } from 'esbuild';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const out = join(dist, 'bundle');
const commandFiles = readdirSync(join(dist, 'commands'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.js'))
  .map((f) => f.replace(/\\/g, '/'));

/**
 * The node's commands stay ES modules with shared chunks: a node loads the
 * apiserver client's chunk only once it joins a cluster, and nothing of a
 * command it does not run. Every other command is one CommonJS file that
 * bin/run.js compiles with a V8 code cache (src/cli/code-cache.ts): a short
 * command's start is mostly compiling its code, and the cache skips that
 * from its second run on. So is the embedded runtime's server (runtime
 * serve): a command that finds no runtime waits for it to start, and
 * compiling its ES modules was a third of that wait.
 */
const LONG_RUNNING = new Set(['run.js', 'join.js']);

/**
 * ES modules the CommonJS commands load with import(), bundled once with
 * the long-running commands: the apiserver client (2.3 MB, loaded only to
 * talk to one) and the TUI (Ink is an ES module with a top-level await,
 * which require() cannot load). The CommonJS files name them by the
 * package's subpath imports (package.json "imports").
 */
const ISLANDS = {
  'engine/cluster/client-node.js': '#knode/client-node',
  'ui/tui/render.js': '#knode/tui',
};

const esmEntries = [
  ...commandFiles.filter((f) => LONG_RUNNING.has(f)).map((f) => join(dist, 'commands', f)),
  ...Object.keys(ISLANDS).map((f) => join(dist, f)),
];
const cjsEntries = [
  ...commandFiles.filter((f) => !LONG_RUNNING.has(f)).map((f) => join(dist, 'commands', f)),
  // package.json's oclif.hooks.
  join(dist, 'hooks', 'command-not-found.js'),
];

const EXTERNAL = [
  '@peculiar/x509',
  'reflect-metadata',
  'ink',
  'react',
  'react/jsx-runtime',
  // Loaded by @oclif/core and @grpc/grpc-js only for what knode does not use (TypeScript commands, channelz).
  'typescript',
  '@grpc/proto-loader',
];

/**
 * Two lines of @oclif/core that every command's start paid for, each
 * replaced by the same result; the build fails if either line changed.
 * - config/plugin.js sorts a plugin's commands with localeCompare, which
 *   loads ICU's collation data: about 3 MiB of each knode process's memory,
 *   `knode run` included, for good. Command ids are ASCII, so code unit
 *   order is the same order.
 * - config/plugin-loader.js matches package.json's `oclif.plugins` against
 *   the dependencies by compiling a minimatch pattern for each dependency,
 *   about 6 ms of a start. knode's patterns are package names, which match
 *   only themselves; a pattern with a glob character still goes to minimatch,
 *   which is loaded only then.
 */
const OCLIF_PATCHES = [
  {
    file: /@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin\.js$/,
    from: '.sort((a, b) => a.id.localeCompare(b.id))',
    to: '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))',
  },
  {
    file: /@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin-loader\.js$/,
    from: 'patterns.some((w) => (0, minimatch_1.minimatch)(p, w))',
    to: 'patterns.some((w) => (/[*?[\\]{}()!+\\\\]/.test(w) ? require("minimatch").minimatch(p, w) : p === w))',
  },
  {
    file: /@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin-loader\.js$/,
    from: 'const minimatch_1 = require("minimatch");\n',
    to: '',
  },
];
const oclifPatched = new Set();
const oclifPatches = {
  name: 'oclif-patches',
  setup(b) {
    b.onLoad({ filter: /@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin(-loader)?\.js$/ }, (args) => {
      let source = readFileSync(args.path, 'utf8');
      for (const patch of OCLIF_PATCHES.filter((p) => p.file.test(args.path))) {
        if (!source.includes(patch.from)) throw new Error(`${args.path}: no \`${patch.from}\` to replace; see scripts/bundle.js`);
        source = source.replace(patch.from, patch.to);
        oclifPatched.add(patch);
      }
      return { contents: source, loader: 'js' };
    });
  },
};

/**
 * prom-client's index loads all of the package: its Pushgateway (https and
 * zlib), its default metrics (perf_hooks and a module for each) and its
 * cluster aggregator. knode uses four of its classes, so the bundles take
 * those from their own files: Node's zlib alone costs a command about 5 ms
 * of CPU to load. The build fails if knode imports another name.
 */
const PROM_CLIENT = { Counter: 'counter', Gauge: 'gauge', Histogram: 'histogram', Registry: 'registry' };
const promClientUsed = {
  name: 'prom-client-used',
  setup(b) {
    b.onResolve({ filter: /^prom-client$/ }, () => ({ path: 'prom-client', namespace: 'knode-prom-client' }));
    b.onLoad({ filter: /.*/, namespace: 'knode-prom-client' }, () => ({
      // An ES module, so that esbuild refuses an import of a name it does not export.
      contents: Object.entries(PROM_CLIENT)
        .map(([name, file]) => `export { default as ${name} } from 'prom-client/lib/${file}';`)
        .join('\n'),
      resolveDir: root,
      loader: 'js',
    }));
  },
};

/**
 * What every command shares with the CLI's entry: @oclif/core is the entry's
 * copy (main.ts hands it over), so there is one Command class and one config;
 * the islands are imported, not bundled. scripts/oclif-manifest.js loads the
 * commands without the entry: the package's own @oclif/core stands in there.
 */
const sharedWithEntry = {
  name: 'shared-with-entry',
  setup(b) {
    b.onResolve({ filter: /^@oclif\/core$/ }, (args) =>
      args.namespace === 'knode-oclif' ? { path: args.path, external: true } : { path: 'oclif', namespace: 'knode-oclif' },
    );
    b.onLoad({ filter: /.*/, namespace: 'knode-oclif' }, () => ({
      contents: "module.exports = globalThis[Symbol.for('knode.oclif')] ?? require('@oclif/core');",
      loader: 'js',
    }));
    b.onResolve({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith('.') || b.initialOptions.format !== 'cjs') return undefined;
      const island = ISLANDS[relative(dist, join(args.resolveDir, args.path)).replace(/\\/g, '/')];
      return island ? { path: island, external: true } : undefined;
    });
  },
};

const common = {
  outbase: dist,
  outdir: out,
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  minifyWhitespace: true,
  logLevel: 'warning',
  external: EXTERNAL,
};
/**
 * CommonJS: install-paths.ts finds the package's root from its own URL, and
 * import() goes through boot.cjs's (src/cli/boot.ts; see routeDynamicImports). The fallback
 * is written `import (s)` so that the rewrite below leaves it alone.
 */
const commonJs = {
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  define: { 'import.meta.url': 'knodeModuleUrl' },
  banner: {
    js: [
      // A directive only at the very top: esbuild's own comes after the banner.
      "'use strict';",
      "const knodeModuleUrl = require('node:url').pathToFileURL(__filename).href;",
      "const knodeImport = globalThis[Symbol.for('knode.import')] ?? ((s) => import (s));",
    ].join('\n'),
  },
};

/** What bin/run.js loads (src/cli/boot.ts), with Node's own loader. */
const BOOT = join('cli', 'boot.cjs');

/** import( as code, not in a word, not `.import(`, and not the text "import()" of an error message. */
const DYNAMIC_IMPORT = /(?<![\w$.])import\((?!\))/g;

/**
 * Whether the import( at AT in SOURCE begins a method named import (the
 * runtime's image store has one, `async import(file, baseName) {`): its
 * parameters' closing parenthesis is followed by a body, which no call is.
 */
function isMethod(source, at) {
  let depth = 0;
  for (let i = source.indexOf('(', at); i < source.length; i++) {
    if (source[i] === '(') depth++;
    else if (source[i] === ')' && --depth === 0) return /^\s*\{/.test(source.slice(i + 1, i + 8));
  }
  return false;
}

/**
 * A script compiled through node:vm, as the code cache compiles the
 * CommonJS files, has no import() without an experimental flag or warning:
 * each one in them becomes a call of boot.cjs's import(), which resolves
 * what they ask for (file URLs, the package's "imports", its dependencies)
 * as their own would. The build fails if an import( is left.
 */
function routeDynamicImports(file) {
  const source = readFileSync(file, 'utf8');
  const routed = source.replace(DYNAMIC_IMPORT, (found, at) => (isMethod(source, at) ? found : 'knodeImport('));
  if (routed !== source) writeFileSync(file, routed);
}

rmSync(out, { recursive: true, force: true });
await build({
  ...common,
  ...commonJs,
  entryPoints: [join(dist, 'cli', 'main.js'), join(dist, 'cli', 'boot.js')],
  plugins: [oclifPatches],
});
await build({ ...common, ...commonJs, entryPoints: cjsEntries, plugins: [sharedWithEntry, promClientUsed] });
// boot.cjs is the one that Node's own loader compiles, and the one whose import() the others call.
for (const file of readdirSync(out, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.cjs') && f !== BOOT))
  routeDynamicImports(join(out, file));
await build({
  ...common,
  entryPoints: esmEntries,
  chunkNames: 'chunks/[name]-[hash]',
  splitting: true,
  format: 'esm',
  plugins: [sharedWithEntry, promClientUsed],
  // The CommonJS packages inside a chunk ask for Node's modules with require().
  banner: {
    js: "import { createRequire as knodeCreateRequire } from 'node:module';\nconst require = knodeCreateRequire(import.meta.url);",
  },
});
if (oclifPatched.size !== OCLIF_PATCHES.length)
  throw new Error('scripts/bundle.js: a file of @oclif/core that OCLIF_PATCHES names was not bundled, so a line of it was not replaced');

/**
 * Every file the build writes is ASCII. V8 keeps each script's source in the
 * heap for its lazily compiled functions, one byte a character only while
 * every character is Latin-1: one dash or curly quote made the apiserver
 * client's 4.8 MB chunk a two-byte string of 9.6 MB in every joined node.
 * And the code cache's loader (src/cli/code-cache.ts) reads a CommonJS file
 * as Latin-1, a copy, where UTF-8 is decoded and checked. Whitespace
 * minification drops the comments those came in, and esbuild escapes
 * strings; this escapes whatever
 * is left (a legal comment, a regular expression such as a Go duration's
 * `µs`): \uXXXX is the same character there, and plain text in a comment.
 */
for (const file of readdirSync(out, { recursive: true, encoding: 'utf8' }).filter((f) => /\.c?js$/.test(f))) {
  const path = join(out, file);
  const source = readFileSync(path, 'utf8');
  if (!/[^\0-\x7f]/.test(source)) continue;
  writeFileSync(
    path,
    source.replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  );
}
