// The package as people install it: `npm pack`, then `npm install` of the
// tarball in an empty project (dependencies from npm's cache, as `npm ci` left
// it), then `npx knode` from there: --version, and apply of an example.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { repoRoot } from '../helpers/runtimes.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'knode-pack-'));
const root = join(dir, 'state');
const env = { ...process.env, NO_COLOR: '1' };

afterAll(async () => {
  await run('npx', ['knode', 'runtime', 'stop', '--root-dir', root], { cwd: dir, env }).catch(() => undefined);
});

it('packs into a tarball that installs and runs with npx knode', async () => {
  await run('npm', ['pack', '--pack-destination', dir], { cwd: repoRoot, env });
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
  expect(tarball).toMatch(/^knode-\d+\.\d+\.\d+\.tgz$/);
  await run('npm', ['init', '-y'], { cwd: dir, env });
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${tarball}`], { cwd: dir, env, timeout: 300_000 });

  const version = await run('npx', ['knode', '--version'], { cwd: dir, env });
  expect(version.stdout).toMatch(/^knode\/\d+\.\d+\.\d+ linux-\w+ node-v20\./);
  const applied = await run(
    'npx',
    ['knode', 'apply', '-f', join(repoRoot, 'examples', 'hello.yaml'), '--root-dir', root, '--node-name', 'packed', '-o', 'json'],
    { cwd: dir, env },
  );
  const list = JSON.parse(applied.stdout) as { items: { metadata: { name: string }; status: { phase: string } }[] };
  expect(list.items.map((p) => [p.metadata.name, p.status.phase])).toEqual([['hello-packed', 'Running']]);
}, 300_000);
