// kubectl delete's grace-period rules and its --flag=false spelling, as knode delete takes them.
import { describe, expect, it } from 'vitest';
import { booleanFlagValues } from '../../../src/cli/boolean-flags.js';
import { cascadePolicy, deleteMode, FORCE_WARNING } from '../../../src/cli/delete-options.js';

describe('deleteMode', () => {
  it.each([
    [
      { 'grace-period': -1, now: false, force: false },
      { gracePeriod: undefined, operation: 'deleted' },
    ],
    [
      { 'grace-period': 30, now: false, force: false },
      { gracePeriod: 30, operation: 'deleted' },
    ],
    [
      { 'grace-period': -1, now: true, force: false },
      { gracePeriod: 1, operation: 'deleted' },
    ],
    // 0 without --force is 1: no data lost by accident.
    [
      { 'grace-period': 0, now: false, force: false },
      { gracePeriod: 1, operation: 'deleted' },
    ],
    [
      { 'grace-period': -1, now: false, force: true },
      { gracePeriod: 0, operation: 'force deleted', warning: FORCE_WARNING },
    ],
    [
      { 'grace-period': 0, now: false, force: true },
      { gracePeriod: 0, operation: 'force deleted', warning: FORCE_WARNING },
    ],
  ])('%o', (flags, mode) => expect(deleteMode(flags)).toEqual(mode));

  it.each([
    [{ 'grace-period': 5, now: true, force: false }, 'error: --now and --grace-period cannot be specified together'],
    [{ 'grace-period': 0, now: true, force: false }, 'error: --now and --grace-period cannot be specified together'],
    [{ 'grace-period': 5, now: false, force: true }, 'error: --force and --grace-period greater than 0 cannot be specified together'],
    [{ 'grace-period': -1, now: true, force: true }, 'error: --force and --grace-period greater than 0 cannot be specified together'],
  ])('refuses %o', (flags, message) => expect(() => deleteMode(flags)).toThrow(message));
});

describe('booleanFlagValues', () => {
  it('rewrites --flag=true|false for the named flags only, and nothing after --', () => {
    expect(booleanFlagValues(['-f', 'x', '--wait=false', '--now=true', '--other=false', '--', '--wait=false'], ['wait', 'now'])).toEqual([
      '-f',
      'x',
      '--no-wait',
      '--now',
      '--other=false',
      '--',
      '--wait=false',
    ]);
  });
});

describe('cascadePolicy', () => {
  it.each([
    ['foreground', { policy: 'Foreground' }],
    ['background', { policy: 'Background' }],
    ['orphan', { policy: 'Orphan' }],
    [
      'true',
      {
        policy: 'Background',
        warning: 'warning: --cascade=true is deprecated (boolean value) and can be replaced with --cascade=background.',
      },
    ],
    ['F', { policy: 'Orphan', warning: 'warning: --cascade=F is deprecated (boolean value) and can be replaced with --cascade=orphan.' }],
  ])('%s', (value, parsed) => expect(cascadePolicy(value)).toEqual(parsed));

  it.each(['Foreground', 'yes', ''])("refuses %j with kubectl's error", (value) =>
    expect(() => cascadePolicy(value)).toThrow(`error: invalid cascade value (${value}). Must be "background", "foreground", or "orphan"`),
  );
});
