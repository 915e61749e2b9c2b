import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedDocs } from '../../../scripts/gen-docs.js';

const root = join(import.meta.dirname, '../../..');

describe('the generated docs', () => {
  // docs/configuration.md comes from the settings table, and docs/flags.md
  // from oclif.manifest.json: `npm run docs` rewrites both.
  it.each(Object.entries(generatedDocs(root)))('%s is up to date (run `npm run docs`)', (path, text) => {
    expect(readFileSync(join(root, path), 'utf8')).toBe(text);
  });
});
