// The bundle `npm run build` writes (scripts/bundle.js), which every command
// runs from: V8 holds each file's source as long as the process lives, one
// byte a character only if all of them are Latin-1, and the code cache reads
// a CommonJS file as Latin-1, the same text only while it is ASCII; and the CommonJS files,
// compiled through node:vm for their code cache, can have no import() of
// their own.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const bundle = join(import.meta.dirname, '../../../dist/bundle');
const files = readdirSync(bundle, { recursive: true, encoding: 'utf8' }).filter((f) => /\.c?js$/.test(f));
const source = (f: string) => readFileSync(join(bundle, f), 'utf8');

it('holds no character beyond ASCII and no comments, so each source stays one byte a character', () => {
  expect(files.length).toBeGreaterThan(10);
  const wide = files.filter((f) => /[^\0-\x7f]/.test(source(f)));
  expect(wide).toEqual([]);
  // A Go duration's micro sign, in a regular expression, escaped.
  expect(source('commands/apply.cjs')).toContain('|\\u00b5s|');
  // The apiserver client, the largest: whitespace and comments left out.
  const client = source('engine/cluster/client-node.js');
  expect(client).not.toMatch(/^\s*\* /m);
  expect(client.length).toBeLessThan(3_000_000);
});

it("has the entry and the short commands as strict CommonJS files whose import() is the boot file's", () => {
  const commonJs = files.filter((f) => f.endsWith('.cjs'));
  expect(commonJs).toContain('cli/main.cjs');
  expect(commonJs).toContain('cli/boot.cjs');
  expect(commonJs).toContain('commands/apply.cjs');
  expect(files).toContain('commands/run.js');
  // A method named import (`async import(file,baseName){`) is no import(): it stays as it is.
  const imports = (f: string) => source(f).match(/(?<![\w$.])import ?\((?![\w$,]*\)\{)(?!\))/g);
  for (const f of commonJs) {
    expect(source(f).startsWith("'use strict';\n"), f).toBe(true);
    expect(source(f), f).not.toMatch(/knodeImport\([\w$,]*\)\{/);
    // The banner's fallback, `import (s)`, is the only one left, but in the boot file, which Node compiles.
    if (f !== 'cli/boot.cjs') expect(imports(f), f).toEqual(['import (']);
  }
  expect(imports('cli/boot.cjs')).toEqual(['import (', 'import(']);
  // The runtime's server is one of them, and its image store keeps its import method.
  expect(commonJs).toContain('commands/runtime/serve.cjs');
  expect(source('commands/runtime/serve.cjs')).toContain('async import(file,baseName){');
  // oclif's loader imports the ES module commands through it.
  expect(source('cli/main.cjs')).toMatch(/await knodeImport\(/);
});

it('takes from prom-client only the classes knode uses, and loads zlib only to compress a log', () => {
  const apply = source('commands/apply.cjs');
  // Each a boolean, so that a failure does not print the bundle.
  const has = (text: string | RegExp) => (typeof text === 'string' ? apply.includes(text) : text.test(apply));
  expect(has('node_modules/prom-client/lib/histogram.js')).toBe(true);
  // Its index would load the Pushgateway (https, zlib) and the default metrics.
  expect(has('node_modules/prom-client/index.js')).toBe(false);
  expect(has('node_modules/prom-client/lib/pushgateway.js')).toBe(false);
  expect(has(/require\("(node:)?zlib"\)/)).toBe(false);
  expect(has('knodeImport("node:zlib")')).toBe(true);
});
