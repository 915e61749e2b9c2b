// What knode says of a command it does not have, as kubectl says it
// (`unknown command "x" for "kubectl"`), with the way to do the same on
// knode: kubectl's verbs that would change a workload's spec point to its
// manifest, which owns the spec here; a word near a command names it.

/** kubectl's verbs that change an object's spec in place: here the manifest owns it. */
const SPEC_VERBS = new Set(['edit', 'patch', 'set', 'label', 'annotate', 'autoscale', 'replace']);
/** Under `rollout`: kubectl's subcommands that change the spec. */
const ROLLOUT_VERBS = new Set(['undo', 'pause', 'resume']);
const MANIFEST_OWNS =
  'the manifests own the spec on a knode node: edit the manifest, then `knode apply -f FILE` again (or save it in the node’s --static-dir, which the node reads)';

/** Other kubectl verbs, and what knode has for them. */
const OTHER: Record<string, string> = {
  create: 'knode apply -f FILE creates what a manifest holds',
  get: 'knode get',
  version: 'knode --version',
  'api-resources': 'knode get lists pods, the workload kinds, ConfigMaps, Secrets and claims; knode --help lists the commands',
};

/** Levenshtein distance between A and B. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

/** The candidates WORD likely meant, as cobra suggests them: two edits away or fewer, or beginning with it. */
function suggestions(word: string, candidates: string[]): string[] {
  return candidates.filter((c) => distance(word, c) <= 2 || (word.length > 1 && c.startsWith(word)));
}

/**
 * The error for oclif's command ID (its words joined by `:`, the arguments
 * after the command among them) given the commands knode has (their ids),
 * with its hint.
 */
export function unknownCommand(id: string, commandIds: string[]): { message: string; hint: string } {
  const words = id.split(':');
  const topics = new Set(commandIds.filter((c) => c.includes(':')).map((c) => c.split(':')[0]));
  const topic = topics.has(words[0]) && words.length > 1 ? words[0] : undefined;
  const word = topic ? words[1] : words[0];
  const message = `unknown command "${word}" for "knode${topic ? ` ${topic}` : ''}"`;
  if (topic === 'rollout' && ROLLOUT_VERBS.has(word)) return { message, hint: MANIFEST_OWNS };
  if (!topic && SPEC_VERBS.has(word)) return { message, hint: MANIFEST_OWNS };
  if (!topic && OTHER[word]) return { message, hint: OTHER[word] };
  const siblings = topic
    ? commandIds.filter((c) => c.startsWith(`${topic}:`) && c.split(':').length === 2).map((c) => c.split(':')[1])
    : [...new Set(commandIds.map((c) => c.split(':')[0]))].filter((c) => !c.startsWith('_'));
  const near = suggestions(word, siblings.sort());
  if (near.length > 0) return { message, hint: `did you mean ${near.map((n) => `knode ${topic ? `${topic} ` : ''}${n}`).join(', ')}?` };
  return { message, hint: topic ? `knode ${topic} takes ${siblings.join(', ')}` : 'knode --help lists the commands' };
}
