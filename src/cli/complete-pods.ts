// Pod names for the shell's completion (`knode __complete pods WORD…`):
// where on a command line a pod belongs, and the pods to offer there, from
// the running node or else the runtime, never starting anything.

/** The commands that take a pod, and which of their arguments is one: the first, or either side of cp as POD:PATH. */
export const POD_COMMANDS: Record<string, 'first' | 'cp'> = {
  exec: 'first',
  attach: 'first',
  logs: 'first',
  'port-forward': 'first',
  'describe:pod': 'first',
  cp: 'cp',
};

/** A command's flags as the completion needs them: whether each takes a value, and its short letter. */
export type FlagSpecs = Record<string, { type: 'boolean' | 'option'; char?: string }>;

/** A place on the command line where a pod name goes. */
export interface PodPlace {
  command: string;
  /** What is typed of the pod so far. */
  prefix: string;
  /** The -n/--namespace given, if any. */
  namespace?: string;
  rootDir?: string;
  runtimeEndpoint?: string;
  /** Candidates end with a colon (cp's POD:PATH), and take no space after. */
  colon: boolean;
  /** The word typed is -c's value: the candidates are this pod's containers, not pods. */
  containerOf?: string;
}

/**
 * Reads the words after `knode` up to the cursor (the last one is the word
 * being typed, maybe empty): the pod place when that word is a command's pod
 * argument; undefined anywhere else (a flag, a flag's value, after `--`, a
 * later argument), where the shell's own completion goes on.
 */
export function podPlace(words: string[], flagsOf: (command: string) => FlagSpecs | undefined): PodPlace | undefined {
  if (words.length < 2) return undefined;
  let command = words[0];
  let rest = words.slice(1);
  if (command === 'describe') {
    if (rest.length < 2 || rest[0] !== 'pod') return undefined;
    command = 'describe:pod';
    rest = rest.slice(1);
  }
  const kind = POD_COMMANDS[command];
  const flags = flagsOf(command);
  if (!kind || !flags) return undefined;
  const values: Record<string, string> = {};
  const current = rest[rest.length - 1];
  let pod: string | undefined;
  let positional = 0;
  let containerOf: string | undefined;
  for (let i = 0; i < rest.length - 1; i++) {
    const word = rest[i];
    if (word === '--') return undefined;
    if (!word.startsWith('-') || word === '-') {
      pod ??= word;
      positional++;
      continue;
    }
    const taking = valueFlag(word, flags);
    if (taking && !word.includes('=')) {
      if (i + 1 < rest.length - 1) values[taking] = rest[++i];
      // The word typed is this flag's value: a container of the pod named before it, or nothing to offer.
      else if (taking === 'container' && kind === 'first' && pod !== undefined) containerOf = pod;
      else return undefined;
    } else if (taking) values[taking] = word.slice(word.indexOf('=') + 1);
  }
  if (current.startsWith('-')) return undefined;
  if (!containerOf && (kind === 'first' ? positional !== 0 : positional > 1)) return undefined;
  return {
    command,
    prefix: current,
    namespace: values.namespace,
    rootDir: values['root-dir'],
    runtimeEndpoint: values['runtime-endpoint'],
    colon: kind === 'cp',
    ...(containerOf !== undefined ? { containerOf } : {}),
  };
}

/** The long name of the flag a word gives when that flag takes a value (`-n`, `--namespace`, `--namespace=x`, `-cn`…). */
function valueFlag(word: string, flags: FlagSpecs): string | undefined {
  if (word.startsWith('--')) {
    const name = word.slice(2).split('=', 1)[0];
    return flags[name]?.type === 'option' ? name : undefined;
  }
  // Short flags run together: a value-taking one ends the run (its value follows, or is the rest of the word).
  for (const char of word.slice(1).split('=', 1)[0]) {
    const found = Object.entries(flags).find(([, spec]) => spec.char === char);
    if (found?.[1].type === 'option') return found[0];
  }
  return undefined;
}

/** A pod a completion may offer, with its containers' names (init containers first, as kubectl lists them). */
export interface PodToComplete {
  namespace: string;
  name: string;
  containers?: string[];
}

/** The containers of the pod named POD (NAME in -n's namespace or default, or NAMESPACE/NAME) that start with what is typed. */
function containerCandidates(pods: PodToComplete[], place: PodPlace, pod: string): string[] {
  const [namespace, name] = pod.includes('/') ? pod.split('/', 2) : [place.namespace ?? 'default', pod];
  const found = pods.find((p) => p.namespace === namespace && p.name === name);
  return [...new Set(found?.containers ?? [])].filter((c) => c.startsWith(place.prefix));
}

/**
 * The candidates: pods of the namespace given by name; without one, those of
 * `default` by name and the others as NAMESPACE/NAME (as the commands take
 * them); with a colon for cp. Only those that start with what is typed, sorted.
 */
export function podCandidates(pods: PodToComplete[], place: PodPlace): string[] {
  if (place.containerOf !== undefined) return containerCandidates(pods, place, place.containerOf);
  if (place.colon && place.prefix.includes(':')) return [];
  const names = pods.flatMap(({ namespace, name }) => {
    if (place.namespace !== undefined) return namespace === place.namespace ? [name] : [];
    return [namespace === 'default' ? name : `${namespace}/${name}`];
  });
  const suffix = place.colon ? ':' : '';
  return [...new Set(names)]
    .map((n) => `${n}${suffix}`)
    .filter((n) => n.startsWith(place.prefix))
    .sort();
}
