#!/usr/bin/env node
// Bundles the CLI's entry (dist/cli/main.js, with @oclif/core) and the built
// commands (dist/commands) into dist/bundle, which bin/run.js loads: each
// command is one file and the code they share is split into chunks, so a
// command's start reads a dozen files instead of the seven hundred modules of
// its import graph (knode's and its dependencies'). Part of `npm run build`,
// after tsc. The apiserver client is bundled too, in a chunk of its own that
// only a node joining a cluster loads: from its thousand modules it took
// 46 MiB more memory and 400 ms more to load. The certificate library and the
// TUI, loaded on demand, stay outside. Whitespace and comments are left out
// (names stay): V8 holds a script's source for as long as the process runs,
// and the client's chunk is half as large without them.
import { build } from 'esbuild';
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const out = join(dist, 'bundle');
const commands = readdirSync(join(dist, 'commands'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.js'))
  .map((f) => join(dist, 'commands', f));
const entryPoints = [join(dist, 'cli', 'main.js'), ...commands];

/**
 * @oclif/core sorts a plugin's commands with localeCompare on every start,
 * which loads ICU's collation data: about 3 MiB of each knode process's
 * memory, `knode run` included, for good. Its command ids are ASCII, so code
 * unit order is the same order. The build fails if oclif's line changed.
 */
let oclifPatched = false;
const oclifWithoutCollation = {
  name: 'oclif-without-collation',
  setup(b) {
    b.onLoad({ filter: /@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const sort = '.sort((a, b) => a.id.localeCompare(b.id))';
      if (!source.includes(sort)) throw new Error(`${args.path}: no \`${sort}\` to replace; see scripts/bundle.js`);
      oclifPatched = true;
      return { contents: source.replace(sort, '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))'), loader: 'js' };
    });
  },
};

rmSync(out, { recursive: true, force: true });
await build({
  entryPoints,
  outbase: dist,
  outdir: out,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  minifyWhitespace: true,
  logLevel: 'warning',
  plugins: [oclifWithoutCollation],
  external: [
    '@peculiar/x509',
    'reflect-metadata',
    'ink',
    'react',
    'react/jsx-runtime',
    // Loaded by @oclif/core and @grpc/grpc-js only for what knode does not use (TypeScript commands, channelz).
    'typescript',
    '@grpc/proto-loader',
  ],
  // The CommonJS packages inside a chunk ask for Node's modules with require().
  banner: {
    js: "import { createRequire as knodeCreateRequire } from 'node:module';\nconst require = knodeCreateRequire(import.meta.url);",
  },
});
if (!oclifPatched) throw new Error('scripts/bundle.js: @oclif/core/lib/config/plugin.js was not bundled, so its sort was not replaced');

/**
 * V8 keeps each script's source in the heap for its lazily compiled
 * functions, one byte a character only while every character is Latin-1.
 * One dash or curly quote made the apiserver client's 4.8 MB chunk a
 * two-byte string of 9.6 MB in every joined node. Whitespace minification
 * drops the comments those came in, and esbuild escapes strings; this
 * escapes whatever is left beyond Latin-1 (a legal comment, a regular
 * expression): \uXXXX is the same character there, and plain text in a comment.
 */
for (const file of readdirSync(out, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'))) {
  const path = join(out, file);
  const source = readFileSync(path, 'utf8');
  if (!/[^\0-\xff]/.test(source)) continue;
  writeFileSync(
    path,
    source.replace(/[^\0-\xff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  );
}
