// ESLint: the TypeScript rules that catch bugs, and the layers of docs/design.md
// as import boundaries, so a file that crosses a layer fails `npm test`.
import js from '@eslint/js';
import boundaries from 'eslint-plugin-boundaries';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The layers, by folder; a file belongs to the first pattern that matches. */
const elements = [
  { type: 'commands', pattern: 'src/{commands,hooks}/**' },
  { type: 'cli', pattern: 'src/cli/**' },
  { type: 'ui', pattern: 'src/ui/**' },
  { type: 'controllers', pattern: 'src/controllers/**' },
  { type: 'engine', pattern: 'src/engine/**' },
  { type: 'cri', pattern: 'src/cri/**' },
  { type: 'runtime', pattern: 'src/runtime/**' },
  { type: 'util', pattern: 'src/util/**' },
];

/**
 * Who may import whom. Commands are the top; the engine knows only the CRI
 * client and util; the embedded runtime is a program of its own that shares
 * the CRI types and util; util imports nothing of ours.
 */
const layerRules = [
  { from: 'commands', allow: ['commands', 'cli', 'ui', 'controllers', 'engine', 'cri', 'runtime', 'util'] },
  { from: 'cli', allow: ['cli', 'ui', 'controllers', 'engine', 'cri', 'util'] },
  { from: 'ui', allow: ['ui', 'engine', 'cri', 'util'] },
  { from: 'controllers', allow: ['controllers', 'engine', 'util'] },
  { from: 'engine', allow: ['engine', 'cri', 'util'] },
  { from: 'cri', allow: ['cri', 'util'] },
  { from: 'runtime', allow: ['runtime', 'cri', 'util'] },
  { from: 'util', allow: ['util'] },
];

/** Packages that draw or parse a command line: only commands, cli and ui may use them. */
const facePackages = ['ink', 'ink-*', 'react', 'react/*', '@oclif/*', 'listr2'];

const element = (types) => ({ element: { types: { anyOf: types } } });

/** The layer rules as boundaries policies: each layer may import the layers it lists, and nothing else of ours. */
const policies = layerRules.map(({ from, allow }) => ({ from: element([from]), allow: { to: element(allow) } }));

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'src/cri/gen/**', 'test/lint/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { files: ['**/*.js', '**/*.mjs'], languageOptions: { globals: globals.node } },
  {
    // CommonJS (bin/package.json), so that a short command never starts Node's ES module loader (src/cli/boot.ts).
    files: ['bin/run.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // The TUI's tests read a terminal's escape sequences.
    files: ['test/e2e/tui.test.ts'],
    rules: { 'no-control-regex': 'off' },
  },
  {
    // Go orders strings by their bytes, and ICU's collation costs a process about 3 MiB (src/util/compare.ts).
    files: ['src/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-properties': [
        'error',
        { property: 'localeCompare', message: 'Order strings with compareStrings (src/util/compare.ts), as Go does.' },
      ],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { boundaries },
    settings: {
      'boundaries/elements': elements,
      'boundaries/include': ['src/**/*'],
      'import/resolver': { typescript: { project: './tsconfig.json' } },
    },
    rules: {
      'boundaries/dependencies': ['error', { default: 'disallow', policies }],
    },
  },
  {
    // The boot file is the entry of every process knode starts, the embedded runtime's included:
    // it starts the runtime's host probes before the runtime's code loads (src/runtime/host-probes.ts).
    files: ['src/cli/boot.ts'],
    rules: {
      'boundaries/dependencies': [
        'error',
        { default: 'disallow', policies: [...policies, { from: element(['cli']), allow: { to: element(['runtime']) } }] },
      ],
    },
  },
  {
    files: ['src/{controllers,engine,cri,runtime,util}/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: facePackages, message: 'Only commands, cli and ui draw or parse a command line (docs/design.md).' }] },
      ],
    },
  },
);
