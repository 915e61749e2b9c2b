// Which objects `knode describe KIND NAME` shows, as kubectl picks them: the
// object named NAME; when there is none, every object of the kind whose name
// begins with NAME (kubectl's DescribeMatchingResources), so that
// `describe pod web` finds the static pod web-<node>.
import { Flags } from '@oclif/core';
import { compareStrings } from '../util/compare.js';
import { flagGiven } from './boolean-flags.js';
import type { Described } from './describe-command.js';

/**
 * The hidden flag `describe TYPE/NAME` and `describe TYPE NAME NAME...` give
 * each kind's command: kubectl reads a name by its beginning only in
 * `describe TYPE NAME` of one name.
 */
export const exactFlag = { exact: Flags.boolean({ hidden: true, description: 'Describe the object of this name only' }) };

export interface Matches<T> {
  objects: T[];
  /** Found by their names' beginning: kubectl then leaves the events out unless --show-events is given. */
  byPrefix: boolean;
  /** Every object of the kind (`describe TYPE`, no name): a blank line between. */
  all?: boolean;
}

/**
 * The object of ITEMS named NAME; none such (and not EXACT), those whose
 * names begin with NAME, by name; no NAME (`describe TYPE`), all of them.
 */
export function describedMatches<T>(items: T[], name: string, nameOf: (item: T) => string, exact: boolean): Matches<T> {
  if (name === '') return { objects: [...items].sort((a, b) => compareStrings(nameOf(a), nameOf(b))), byPrefix: false, all: true };
  const named = items.find((item) => nameOf(item) === name);
  if (named || exact) return { objects: named ? [named] : [], byPrefix: false };
  const objects = items.filter((item) => nameOf(item).startsWith(name)).sort((a, b) => compareStrings(nameOf(a), nameOf(b)));
  return { objects, byPrefix: true };
}

/**
 * Whether the events are shown: as asked, but, as kubectl's, for objects
 * found by prefix, or for more than one object of the type, only when
 * --show-events was given.
 */
export function showsEvents(matches: Matches<unknown>, showEvents: boolean, argv: string[]): boolean {
  const several = matches.byPrefix || (matches.all === true && matches.objects.length > 1);
  return showEvents && (!several || flagGiven(argv, 'show-events'));
}

/** The descriptions as kubectl writes them: one as it is; found by prefix, each followed by a blank line; all, a blank line between. */
export function joinDescriptions(matches: Matches<unknown>, texts: string[]): string {
  if (matches.all) return texts.join('\n\n');
  return texts.map((text) => (matches.byPrefix ? `${text}\n` : text)).join('');
}

/** What `describe TYPE` shows when it finds none: kubectl's line, on stderr, exit 0. */
export function noneFound(namespace: string): Described {
  return { text: '', notice: `No resources found in ${namespace} namespace.` };
}
