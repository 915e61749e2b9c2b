import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cliEntry, fromSources, packageRoot, spawnerMain } from '../../../src/util/install-paths.js';

it('finds the package root above the sources, and the files knode starts from it', () => {
  const root = packageRoot();
  expect((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string }).name).toBe('knode');
  expect(fromSources).toBe(true);
  expect(cliEntry()).toBe(join(root, 'bin', 'run.js'));
  expect(spawnerMain()).toBe(join(root, 'src/runtime/spawner/main.ts'));
  expect(existsSync(spawnerMain())).toBe(true);
});
