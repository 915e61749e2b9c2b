// kubectl's -l, as the commands that list pods take it.
import { Flags } from '@oclif/core';
import { parseLabelSelector, SelectorError } from '../engine/api/label-selector.js';
import { selectorMatches, type LabelSelector } from '../engine/api/workloads.js';
import { UserError } from '../util/user-error.js';

export const selectorFlag = Flags.string({
  char: 'l',
  description: 'Only the pods whose labels match this selector (key=value, key!=value, key in (a,b), key, !key)',
});

/** The -l text as a selector; a usage error in apimachinery's words when it does not parse. */
export function parseSelectorFlag(text: string): LabelSelector {
  try {
    return parseLabelSelector(text);
  } catch (err) {
    if (err instanceof SelectorError) throw new UserError('usage', err.message);
    throw err;
  }
}

/** The objects whose labels SELECTOR matches; all of them without one. */
export function selected<T extends { metadata?: { labels?: Record<string, string> } }>(
  objects: T[],
  selector: LabelSelector | undefined,
): T[] {
  return selector ? objects.filter((o) => selectorMatches(selector, o.metadata?.labels)) : objects;
}
