// The V8 code cache of the CommonJS bundles (src/cli/code-cache.ts), in child
// processes: the loader replaces Node's for .cjs files, process-wide.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';

const codeCache = join(import.meta.dirname, '../../../src/cli/code-cache.ts');
const v8Flags = join(import.meta.dirname, '../../../src/cli/v8-flags.ts');

let dir: string;
let bundle: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'knode-code-cache-'));
  bundle = join(dir, 'bundle');
  execFileSync('mkdir', ['-p', join(bundle, 'commands')]);
  writeCommand('a');
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writeCommand(tag: string): void {
  const file = join(bundle, 'commands', 'greet.cjs');
  writeFileSync(
    file,
    `'use strict';\nconst { basename } = require('node:path');\nexports.greet = (n) => 'hello ' + n + ' from ' + basename(__filename) + ' ${tag}';\n`,
  );
  // A rebuild within the same second still differs by its time.
  const when = new Date(Date.now() + (tag === 'a' ? 0 : 5_000));
  utimesSync(file, when, when);
}

/**
 * Loads the command (after the BEFORE ones) in a fresh Node with the cache
 * installed, then sets FLAGS as src/cli/boot.ts does: what it says, and how
 * each was compiled.
 */
function run(env: Record<string, string> = {}, before: string[] = [], flags: string[] = []): { said: string; from: string } {
  // tsx turns source maps on for the TypeScript it runs; a plain \`node\` has them off.
  const script = `
    if (!process.env.NODE_OPTIONS?.includes('--enable-source-maps')) process.setSourceMapsEnabled(false);
    const { installCodeCache, codeCacheDir, compiledFrom } = await import(${JSON.stringify(codeCache)});
    const { restoreStartFlags, setRunTimeFlags } = await import(${JSON.stringify(v8Flags)});
    const { createRequire } = await import('node:module');
    restoreStartFlags();
    installCodeCache(${JSON.stringify(bundle)}, codeCacheDir());
    const load = createRequire(${JSON.stringify(join(bundle, 'x.js'))});
    for (const b of ${JSON.stringify(before)}) load(b);
    const m = load('./commands/greet.cjs');
    setRunTimeFlags(JSON.parse(process.env.KNODE_TEST_V8_FLAGS));
    console.log(JSON.stringify({ said: m.greet('you'), from: [...compiledFrom.values()].join(',') }));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    // The flags go by the environment: the script is part of the command line, which names a cache too.
    env: { ...process.env, XDG_CACHE_HOME: join(dir, 'xdg'), KNODE_TEST_V8_FLAGS: JSON.stringify(flags), ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return JSON.parse(out.trim().split('\n').pop()!) as { said: string; from: string };
}

const caches = () => readdirSync(join(dir, 'xdg', 'knode', 'code-cache'));

it('compiles from source once, leaves the cache at exit, and runs from it after', () => {
  expect(run()).toEqual({ said: 'hello you from greet.cjs a', from: 'source' });
  expect(caches()).toHaveLength(1);
  expect(caches()[0]).toMatch(/^commands_greet\.cjs\.[0-9a-z]+\.[0-9a-z]+\.v8$/);
  expect(run()).toEqual({ said: 'hello you from greet.cjs a', from: 'cache' });
});

it('compiles a rebuilt file from its source, and replaces the old build cache', () => {
  run();
  const first = caches();
  writeCommand('b');
  expect(run()).toEqual({ said: 'hello you from greet.cjs b', from: 'source' });
  const second = caches();
  expect(second).toHaveLength(1);
  expect(second).not.toEqual(first);
  expect(run().from).toBe('cache');
});

it('reads a file whole after a larger one, its source and its cache', () => {
  // The loader reads every file into one buffer: what a larger file left there is not the smaller one's.
  writeFileSync(join(bundle, 'commands', 'big.cjs'), `'use strict';\nexports.x = '${'x'.repeat(300_000)}';\n`);
  const said = 'hello you from greet.cjs a';
  expect(run({}, ['./commands/big.cjs'])).toEqual({ said, from: 'source,source' });
  expect(run({}, ['./commands/big.cjs'])).toEqual({ said, from: 'cache,cache' });
});

it('shares one cache between commands that set V8 flags once their code has loaded and those that set none', () => {
  const said = 'hello you from greet.cjs a';
  expect(run({}, [], ['--no-opt', '--no-sparkplug'])).toEqual({ said, from: 'source' });
  expect(caches()).toHaveLength(1);
  // Written after the flags were undone: a run without them takes it, and one with them too.
  expect(run()).toEqual({ said, from: 'cache' });
  expect(run({}, [], ['--no-opt', '--no-sparkplug'])).toEqual({ said, from: 'cache' });
  expect(caches()).toHaveLength(1);
});

it('makes a cache V8 refuses again', () => {
  run();
  const [name] = caches();
  writeFileSync(join(dir, 'xdg', 'knode', 'code-cache', name), 'not a code cache');
  expect(run()).toEqual({ said: 'hello you from greet.cjs a', from: 'source' });
  expect(run().from).toBe('cache');
});

it('is off with KNODE_CODE_CACHE=off, and under --enable-source-maps', () => {
  expect(run({ KNODE_CODE_CACHE: 'off' })).toEqual({ said: 'hello you from greet.cjs a', from: '' });
  expect(run({ NODE_OPTIONS: '--enable-source-maps' })).toEqual({ said: 'hello you from greet.cjs a', from: '' });
  expect(() => caches()).toThrow(/ENOENT/);
});

it('runs on when the cache cannot be written, and where Node could not make its directory (under /proc)', () => {
  expect(run({ XDG_CACHE_HOME: '/proc/knode-no-such-dir' })).toEqual({ said: 'hello you from greet.cjs a', from: 'source' });
  expect(run({ XDG_CACHE_HOME: '/proc/knode-no-such-dir' }).from).toBe('source');
});
