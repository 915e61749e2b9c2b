// Which objects `describe KIND NAME` shows (src/cli/describe-matching.ts), as kubectl's describe picks them.
import { describe, expect, it } from 'vitest';
import { flagGiven } from '../../../src/cli/boolean-flags.js';
import { describedMatches, joinDescriptions, showsEvents } from '../../../src/cli/describe-matching.js';

const names = ['web-b', 'web', 'web-a', 'db'];
const same = (n: string) => n;

describe('describedMatches', () => {
  it('takes the object of that name, even where others begin with it', () => {
    expect(describedMatches(names, 'web', same, false)).toEqual({ objects: ['web'], byPrefix: false });
  });

  it("takes those whose names begin with it, by name, when none has it, as kubectl's DescribeMatchingResources", () => {
    expect(describedMatches(names, 'web-', same, false)).toEqual({ objects: ['web-a', 'web-b'], byPrefix: true });
    expect(describedMatches(names, 'cache', same, false)).toEqual({ objects: [], byPrefix: true });
  });

  it('takes all of them, by name, with no name (describe TYPE, exact or not), and joins them a blank line apart', () => {
    const all = describedMatches(names, '', same, false);
    expect(all).toEqual({ objects: ['db', 'web', 'web-a', 'web-b'], byPrefix: false, all: true });
    // kubectl's: more than one object goes without its events unless --show-events is given; one keeps them.
    expect(showsEvents(all, true, [])).toBe(false);
    expect(showsEvents(all, true, ['--show-events'])).toBe(true);
    expect(showsEvents(describedMatches(['db'], '', same, false), true, [])).toBe(true);
    expect(describedMatches(names, '', same, true).objects).toHaveLength(4);
    expect(joinDescriptions(all, ['a\n', 'b\n'])).toBe('a\n\n\nb\n');
    expect(joinDescriptions(describedMatches(names, 'web-', same, false), ['a\n', 'b\n'])).toBe('a\n\nb\n\n');
  });

  it('takes only the object of that name when exact', () => {
    expect(describedMatches(names, 'web-', same, true)).toEqual({ objects: [], byPrefix: false });
    expect(describedMatches(names, 'db', same, true)).toEqual({ objects: ['db'], byPrefix: false });
  });
});

describe('showsEvents', () => {
  it('leaves the events of objects found by prefix out unless --show-events is given', () => {
    const byPrefix = describedMatches(names, 'web-', same, false);
    const named = describedMatches(names, 'web', same, false);
    expect(showsEvents(named, true, ['web'])).toBe(true);
    expect(showsEvents(byPrefix, true, ['web-'])).toBe(false);
    expect(showsEvents(byPrefix, true, ['web-', '--show-events'])).toBe(true);
    expect(showsEvents(byPrefix, false, ['web-', '--show-events=false'])).toBe(false);
  });
});

describe('flagGiven', () => {
  it('sees the flag in any spelling, and nothing after --', () => {
    expect(flagGiven(['--show-events'], 'show-events')).toBe(true);
    expect(flagGiven(['--no-show-events'], 'show-events')).toBe(true);
    expect(flagGiven(['--show-events=true'], 'show-events')).toBe(true);
    expect(flagGiven(['--show-events-extra'], 'show-events')).toBe(false);
    expect(flagGiven(['--', '--show-events'], 'show-events')).toBe(false);
  });
});
