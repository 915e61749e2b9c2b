// Where knode's own files are. The same module runs from three places at
// different depths below the package's root: the TypeScript sources (tests),
// the compiled tree (dist/) and the bundled commands (dist/bundle/, which the
// CLI loads), so paths are found from the root, not from this file.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Whether knode runs from its TypeScript sources, so its own child processes must too. */
export const fromSources = import.meta.url.endsWith('.ts');

let root: string | undefined;

/** The package's root: the nearest directory above this code that holds a package.json. */
export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  return (root = dir);
}

/** The CLI's entry, for the commands knode starts as processes of their own (`knode runtime serve`). */
export function cliEntry(): string {
  return join(packageRoot(), 'bin', 'run.js');
}

/** The spawner's program: a process of its own beside the embedded runtime. */
export function spawnerMain(): string {
  return fromSources ? join(packageRoot(), 'src/runtime/spawner/main.ts') : join(packageRoot(), 'dist/runtime/spawner/main.js');
}
