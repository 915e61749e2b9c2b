import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { libraryDocuments, type DecodedManifest } from '../../../../src/engine/config/manifest.js';
import { parseSimpleYaml } from '../../../../src/engine/config/simple-yaml.js';
import { prng } from '../../../helpers/prng.js';

// parseSimpleYaml held to the yaml library as decodeManifest configures it:
// whenever it gives documents, they are the library's, document for document.

function library(text: string): unknown[] | 'errors' {
  const out: DecodedManifest = { pods: [], objects: [], errors: [], skipped: [], unreadable: false };
  const docs = libraryDocuments('test', text, out);
  return out.errors.length > 0 ? 'errors' : docs;
}

function agrees(text: string): boolean {
  const simple = parseSimpleYaml(text);
  if (simple === undefined) return false;
  expect({ text, docs: simple }).toStrictEqual({ text, docs: library(text) });
  return true;
}

const examples = join(import.meta.dirname, '../../../../examples');
const exampleFiles = [
  ...readdirSync(examples).filter((f) => f.endsWith('.yaml')),
  ...readdirSync(join(examples, 'more')).map((f) => join('more', f)),
].map((f) => join(examples, f));

// Scalars as manifests hold them, and (TRICKY) of every other sort YAML 1.1 resolves, most of which send the text to the library.
const COMMON = [
  'busybox:1.36',
  'docker.io/library/busybox:1.36',
  'hello world',
  'a-b_c.d/e',
  '/data/x',
  'http://x:80/y',
  'sh -c echo $HOME;',
  '0',
  '7',
  '-3',
  '3600',
  '"3600"',
  'true',
  'false',
  '10m',
  '128Mi',
  'IfNotPresent',
  '"sh"',
  "'-c'",
];
const TRICKY = [
  '010',
  '0x1F',
  '0o17',
  '1_000',
  '1.5',
  '.5',
  '1e3',
  '-.inf',
  '.nan',
  '+5',
  '-0',
  '123456789012345678',
  '10m',
  '128Mi',
  '1Gi',
  '2k',
  '1e',
  '3h',
  '1:20',
  '190:20:30',
  'true',
  'false',
  'True',
  'FALSE',
  'yes',
  'No',
  'on',
  'OFF',
  'y',
  'N',
  'null',
  'Null',
  '~',
  '',
  'a: b',
  'a #b',
  'a#b',
  'x:',
  '@x',
  '`x',
  '!x',
  '&x',
  '*x',
  '%x',
  '|',
  '>',
  '-',
  '- x',
  '? x',
  '[x]',
  '{x}',
  'a,b',
  "it's",
  '"quoted"',
  "'single'",
  '"with \\"escape\\""',
  '"tab\\there"',
  '"uni\\u00e9"',
  "'it''s'",
  '"open',
  "'open",
  '"a" b',
];

const KEYS = ['name', 'image', 'app.kubernetes.io/name', 'x-y_z', '"quoted key"', "'single'", 'command', 'args', 'ports', 'env'];
const TRICKY_KEYS = ['y', 'on', 'null', '80', '__proto__', 'a b', '<<', '"a\\qb"', 'k:'];

type Rand = () => number;
const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
const scalar = (rand: Rand) => pick(rand, rand() < 0.04 ? TRICKY : COMMON);
const keyOf = (rand: Rand) => pick(rand, rand() < 0.02 ? TRICKY_KEYS : KEYS);

/** A random document, rendered as YAML in the block styles people write (and some they should not). */
function render(rand: Rand, depth: number, indent: number, out: string[], compact: boolean): void {
  const pad = ' '.repeat(indent);
  const n = 1 + Math.floor(rand() * 4);
  if (rand() < 0.35 && depth < 4) {
    for (let i = 0; i < n; i++) {
      const r = rand();
      if (r < 0.3 && depth < 3) {
        out.push(`${pad}- ${keyOf(rand)}: ${scalar(rand)}`);
        if (rand() < 0.7) out.push(`${pad}  ${keyOf(rand)}: ${scalar(rand)}`);
      } else if (r < 0.45) out.push(`${pad}- [${scalar(rand)}, ${scalar(rand)}]`);
      else out.push(`${pad}- ${scalar(rand)}`);
    }
    return;
  }
  for (let i = 0; i < n; i++) {
    const key = keyOf(rand);
    const r = rand();
    if (r < 0.35 && depth < 4) {
      out.push(`${pad}${key}:`);
      render(rand, depth + 1, compact && rand() < 0.5 ? indent : indent + 2, out, compact);
    } else if (r < 0.45) out.push(`${pad}${key}: [${scalar(rand)}, ${scalar(rand)}]`);
    else if (r < 0.5) out.push(`${pad}${key}: ${pick(rand, ['{}', '[]', ''])}`);
    else if (r < 0.53) out.push(`${pad}# a comment`);
    else if (r < 0.55) out.push(`${pad}${key}: x # trailing`);
    else out.push(`${pad}${key}: ${scalar(rand)}`);
  }
}

describe('parseSimpleYaml', () => {
  it.each(exampleFiles)('reads %s, and reads it as the yaml library does', (file) => {
    expect(agrees(readFileSync(file, 'utf8'))).toBe(true);
  });

  it('reads a static pod in the shape the benchmarks write', () => {
    const text = `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p-1\nspec:\n  hostNetwork: true\n  terminationGracePeriodSeconds: 1\n  containers:\n    - name: main\n      image: docker.io/library/busybox:1.36\n      imagePullPolicy: IfNotPresent\n      command: ["sleep", "3600"]\n`;
    expect(agrees(text)).toBe(true);
  });

  it.each([
    ['documents between ---', 'a: 1\n---\nb: 2\n'],
    ['a leading ---', '---\na: 1\n'],
    ['an empty document', 'a: 1\n---\n---\nb: 2\n'],
    ['a trailing ---', 'a: 1\n---\n'],
    ['a sequence at its key\u2019s indent', 'a:\n- x\n- z\nb: 2\n'],
    ['mappings in a sequence', 'a:\n  - k: 1\n    m:\n      - 2\n  - k: 3\n'],
    ['a top level indented', '  a: 1\n  b: 2\n'],
    ['comments between lines', '# head\na: 1\n  # deeper\nb:\n  # inside\n  c: 2\n'],
    ['empty values', 'a:\nb: ""\nc: []\nd: {}\n'],
  ])('agrees with the library on %s', (_name, text) => {
    expect(agrees(text)).toBe(true);
  });

  it.each([
    ['a repeated key', 'a: 1\na: 2\n'],
    ['an anchor', 'a: &x 1\nb: *x\n'],
    ['a block scalar', 'a: |\n  x\n'],
    ['a tab', 'a:\n\tb: 1\n'],
    ['a continued plain scalar', 'a: b\n  c\n'],
    ['YAML 1.1 booleans', 'a: yes\n'],
    ['a float', 'a: 1.5\n'],
    ['an octal', 'a: 010\n'],
    ['a trailing comment', 'a: 1 # one\n'],
    ['a flow mapping', 'a: {b: 1}\n'],
    ['bad indentation', 'a:\n    b: 1\n  c: 2\n'],
    ['a __proto__ key', '"__proto__": 1\n'],
  ])('leaves %s to the library', (_name, text) => {
    expect(parseSimpleYaml(text)).toBeUndefined();
  });

  it('agrees with the library on every text it reads, over 3,000 seeded documents', () => {
    const rand = prng(11);
    let read = 0;
    for (let i = 0; i < 3000; i++) {
      const out: string[] = [];
      render(rand, 0, 0, out, rand() < 0.5);
      if (agrees(out.join('\n') + '\n')) read++;
    }
    // The corpus is built so that both paths are taken often.
    expect(read).toBeGreaterThan(300);
    expect(read).toBeLessThan(2700);
  });
});
