// V8 flags set at run time (src/cli/v8-flags.ts), in child processes: V8's
// flags are process-wide. A code cache is taken only under the tag of the
// flags it was made with, which v8.cachedDataVersionTag() gives.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { V8_FLAG_DEFAULTS } from '../../../src/util/node-flags.js';
import { v8FlagsFor } from '../../../src/cli/boot.js';

const v8Flags = join(import.meta.dirname, '../../../src/cli/v8-flags.ts');

/** The cache tags a fresh Node started with NODE_ARGS reports at each step of SCRIPT (`tag()` records one), and at its exit. */
function tags(nodeArgs: string[], script: string): number[] {
  const out = execFileSync(
    process.execPath,
    [
      ...nodeArgs,
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `
      const { cachedDataVersionTag } = await import('node:v8');
      const { restoreStartFlags, setRunTimeFlags } = await import(${JSON.stringify(v8Flags)});
      const seen = [];
      const tag = () => seen.push(cachedDataVersionTag());
      ${script}
      // After restoreStartFlags's listener, as a code cache's writer is.
      process.on('exit', () => {
        tag();
        console.log(JSON.stringify(seen));
      });
      `,
    ],
    { encoding: 'utf8', timeout: 20_000 },
  );
  return JSON.parse(out.trim().split('\n').pop()!) as number[];
}

it("gives the command line's flags their defaults back, and undoes the run-time ones at exit", () => {
  const [plain] = tags([], '');
  const seen = tags(
    ['--max-semi-space-size=1'],
    `tag(); restoreStartFlags(); tag(); setRunTimeFlags(['--no-opt', '--heap-growing-percent=50']); tag();`,
  );
  // Off Node's own tag with the flag on the command line, Node's again once it is given back; off it
  // while the command's flags are set, and Node's again once the exit has undone them.
  expect(seen[0]).not.toBe(plain);
  expect(seen[1]).toBe(plain);
  expect(seen[2]).not.toBe(plain);
  expect(seen[3]).toBe(plain);
});

it('refuses a flag it could not undo', () => {
  expect(() => tags([], `restoreStartFlags(); setRunTimeFlags(['--max-lazy']);`)).toThrow(/--max-lazy has no default to go back to/);
});

it("undoes every flag a command sets, and every flag of the command line's it knows", () => {
  for (const command of ['run', 'join', 'apply', 'delete'])
    for (const flag of v8FlagsFor(command)) expect(V8_FLAG_DEFAULTS[flag], `${command}: ${flag}`).toBeDefined();
});
