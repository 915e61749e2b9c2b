import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fillGenerated, generatedDocs } from '../../../scripts/gen-docs.js';

const root = join(import.meta.dirname, '../../..');

describe('the generated docs', () => {
  // docs/configuration.md comes from the settings table, and docs/cli.md's flag
  // reference from oclif.manifest.json: `npm run docs` rewrites both.
  it.each(Object.entries(generatedDocs(root)))('%s is up to date (run `npm run docs`)', (path, text) => {
    expect(readFileSync(join(root, path), 'utf8')).toBe(text);
  });

  it('replaces only what lies between the markers', () => {
    const text = 'before\n<!-- generated:cli:start -->\nold\n<!-- generated:cli:end -->\nafter\n';
    expect(fillGenerated(text, 'new')).toBe('before\n<!-- generated:cli:start -->\nnew\n<!-- generated:cli:end -->\nafter\n');
    expect(() => fillGenerated('no markers', 'new')).toThrow(/markers/);
  });
});
