// The bundle `npm run build` writes (scripts/bundle.js), which every command
// runs from: V8 holds each file's source as long as the process lives, one
// byte a character only if all of them are Latin-1.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const bundle = join(import.meta.dirname, '../../../dist/bundle');

it('holds no character beyond Latin-1 and no comments, so each source stays one byte a character', () => {
  const files = readdirSync(bundle, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
  expect(files.length).toBeGreaterThan(10);
  const wide = files.filter((f) => /[^\0-\xff]/.test(readFileSync(join(bundle, f), 'utf8')));
  expect(wide).toEqual([]);
  // The apiserver client's chunk, the largest: whitespace and comments left out.
  const client = files.find((f) => f.includes('client-node'))!;
  const source = readFileSync(join(bundle, client), 'utf8');
  expect(source).not.toMatch(/^\s*\* /m);
  expect(source.length).toBeLessThan(3_000_000);
});
