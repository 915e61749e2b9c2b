import { expect, it } from 'vitest';
import { v8FlagsFor } from '../../../src/cli/boot.js';

it('runs the node without TurboFan and with a slower-growing heap, apply and delete without either compiler, and the rest with both', () => {
  expect(v8FlagsFor('run')).toEqual(['--no-opt', '--heap-growing-percent=50']);
  expect(v8FlagsFor('join')).toEqual(['--no-opt', '--heap-growing-percent=50']);
  expect(v8FlagsFor('apply')).toEqual(['--no-sparkplug', '--no-opt']);
  expect(v8FlagsFor('delete')).toEqual(['--no-sparkplug', '--no-opt']);
  for (const command of ['logs', 'exec', 'port-forward', 'status', 'constructor', '']) expect(v8FlagsFor(command)).toEqual([]);
});
