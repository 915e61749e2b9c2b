// A label selector as kubectl's -l takes it (apimachinery's labels.Parse):
// requirements joined by commas, each `key=value` (or `==`), `key!=value`,
// `key in (a,b)`, `key notin (a,b)`, `key` (it exists) or `!key` (it does not).
import type { LabelSelector, LabelSelectorRequirement } from './workloads.js';

/** Why a selector did not parse, in apimachinery's words. */
export class SelectorError extends Error {}

/**
 * TEXT as a LabelSelector that `selectorMatches` reads. `key!=value` is
 * NotIn of that one value, which, as upstream's, matches a pod without the
 * key too. An empty text selects everything.
 */
export function parseLabelSelector(text: string): LabelSelector {
  const matchLabels: Record<string, string> = {};
  const matchExpressions: LabelSelectorRequirement[] = [];
  for (const part of requirements(text)) {
    const set = /^([^\s!=(),]+)\s+(in|notin)\s*\(([^()]*)\)$/.exec(part);
    if (set) {
      const values = set[3].split(',').map((v) => v.trim());
      if (values.some((v) => v === '')) throw new SelectorError(`unable to parse requirement: ${part}: values must not be empty`);
      matchExpressions.push({ key: checkedKey(set[1]), operator: set[2] === 'in' ? 'In' : 'NotIn', values });
      continue;
    }
    const pair = /^([^\s!=(),]+)\s*(==|=|!=)\s*([^\s!=(),]*)$/.exec(part);
    if (pair) {
      const [, key, op, value] = pair;
      if (op === '!=') matchExpressions.push({ key: checkedKey(key), operator: 'NotIn', values: [value] });
      else matchLabels[checkedKey(key)] = value;
      continue;
    }
    const exists = /^(!?)\s*([^\s!=(),]+)$/.exec(part);
    if (exists) {
      matchExpressions.push({ key: checkedKey(exists[2]), operator: exists[1] ? 'DoesNotExist' : 'Exists' });
      continue;
    }
    throw new SelectorError(
      `unable to parse requirement: "${part}": expected key, !key, key=value, key!=value, key in (values) or key notin (values)`,
    );
  }
  return { matchLabels, matchExpressions };
}

/** The requirements of TEXT: split at the commas outside parentheses, trimmed. */
function requirements(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    if ((c === ',' && depth === 0) || i === text.length) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (parts.length === 1 && parts[0] === '') return [];
  if (parts.some((p) => p === '')) throw new SelectorError(`unable to parse requirement: empty requirement in "${text}"`);
  return parts;
}

/** A label key: an optional DNS prefix and a slash, then a name of at most 63 characters. */
function checkedKey(key: string): string {
  const name = key.slice(key.lastIndexOf('/') + 1);
  if (!/^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/.test(name))
    throw new SelectorError(`unable to parse requirement: invalid label key "${key}"`);
  return key;
}
