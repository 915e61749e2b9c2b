import { readFileSync } from 'node:fs';
import { ESLint } from 'eslint';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';

// `npm test` runs `npm run lint` and `npm run format:check` over the tree; these
// tests show that each one refuses what it is there to refuse.
const fixture = (name: string) => readFileSync(new URL(`../../lint/fixtures/${name}`, import.meta.url), 'utf8');

// ESLint loads typescript-eslint and the import resolver on its first file: seconds on a busy machine.
describe('the layer rules', { timeout: 60_000 }, () => {
  const eslint = new ESLint({ cwd: new URL('../../..', import.meta.url).pathname });
  const lintAs = async (filePath: string, text: string) => {
    const [result] = await eslint.lintText(text, { filePath });
    return result.messages.map((m) => `${m.line} ${m.ruleId}`);
  };

  it('refuse ink, the UI and the embedded runtime in the engine', async () => {
    expect(await lintAs('src/engine/lint-fixture.ts', fixture('engine-imports-ui.ts'))).toEqual([
      '2 no-restricted-imports',
      '3 boundaries/dependencies',
      '4 boundaries/dependencies',
    ]);
  });

  it('let the commands import every layer', async () => {
    expect(await lintAs('src/commands/lint-fixture.ts', fixture('engine-imports-ui.ts'))).toEqual([]);
  });

  it('refuse the engine in util and in the embedded runtime', async () => {
    const importsEngine = "import { EventStream } from '../engine/events.js';\nexport const stream = EventStream;\n";
    expect(await lintAs('src/util/lint-fixture.ts', importsEngine)).toEqual(['1 boundaries/dependencies']);
    expect(await lintAs('src/runtime/lint-fixture.ts', importsEngine)).toEqual(['1 boundaries/dependencies']);
  });

  it("refuse the controllers' store in the ui: apply's task view gets its feed from the cli, as plain data", async () => {
    const importsStore = "import { rolloutState } from '../controllers/index.js';\nexport const state = rolloutState;\n";
    expect(await lintAs('src/ui/lint-fixture.ts', importsStore)).toEqual(['1 boundaries/dependencies']);
    expect(await lintAs('src/cli/lint-fixture.ts', importsStore)).toEqual([]);
  });
});

describe('the format check', () => {
  it('refuses a file Prettier did not write, and passes it once Prettier did', async () => {
    const options = { ...(await prettier.resolveConfig('src/engine/kubelet.ts')), filepath: 'src/engine/lint-fixture.ts' };
    const text = fixture('unformatted.ts');
    expect(await prettier.check(text, options)).toBe(false);
    expect(await prettier.check(await prettier.format(text, options), options)).toBe(true);
  });
});
