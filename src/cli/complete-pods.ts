// Pod names for the shell's completion (`knode __complete pods WORD…`):
// where on a command line a pod (or another object) belongs, and the names to
// offer there, from the running node or else the runtime, and the node's
// saved objects, never starting anything.
import { deletedKind, describedKind, parseTarget, targetKind, TYPE_WORDS } from './target-kinds.js';

/** The commands that take a pod, and which of their arguments is one: the first, either side of cp as POD:PATH, or any (delete's names). */
export const POD_COMMANDS: Record<string, 'first' | 'cp' | 'many'> = {
  delete: 'many',
  get: 'many',
  status: 'many',
  'rollout:status': 'first',
  'rollout:history': 'first',
  'rollout:restart': 'first',
  scale: 'first',
  exec: 'first',
  attach: 'first',
  logs: 'first',
  'port-forward': 'first',
  'describe:pod': 'first',
  cp: 'cp',
};

/** The kind a rollout command takes by a TYPE word (Deployments, StatefulSets, DaemonSets), or undefined. */
function rolledOutKind(word: string): string | undefined {
  const kind = targetKind(word)?.kind;
  return kind === 'Deployment' || kind === 'StatefulSet' || kind === 'DaemonSet' ? kind : undefined;
}

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
  /** `describe KIND`'s or `delete KIND`'s name goes here: the names are of that kind's objects (pods when absent). */
  kind?: string;
  /** kubectl's TYPE/NAME goes here too (logs, exec, attach, port-forward): `deployments/` and the like, then their names. */
  types: boolean;
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
  let described: string | undefined;
  let deleting = false;
  if (command === 'delete' || command === 'get' || command === 'status') {
    // kubectl's delete (and get) TYPE NAME... (as many names as wanted) or TYPE/NAME...; get's first word alone
    // is a pod's name, as status always took one, or TYPE/ and a name.
    const own = flagsOf(command === 'delete' ? command : 'status');
    const at = own ? firstPositional(rest.slice(0, -1), own) : -1;
    described = at >= 0 ? deletedKind(rest[at]) : undefined;
    if (described) rest = [...rest.slice(0, at), ...rest.slice(at + 1)];
    else if ((at >= 0 || command === 'delete') && !rest[rest.length - 1].includes('/')) return undefined;
    deleting = command === 'delete' || at >= 0;
    if (!deleting) command = 'status';
  } else if (command === 'rollout' || command === 'scale') {
    // rollout status|history|restart and scale: TYPE NAME or TYPE/NAME, of the kinds that roll out.
    if (command === 'rollout') {
      if (rest[0] !== 'status' && rest[0] !== 'history' && rest[0] !== 'restart') return undefined;
      command = `rollout:${rest[0]}`;
      rest = rest.slice(1);
    }
    const own = flagsOf(command);
    const at = own ? firstPositional(rest.slice(0, -1), own) : -1;
    described = at >= 0 ? rolledOutKind(rest[at]) : undefined;
    if (described) rest = [...rest.slice(0, at), ...rest.slice(at + 1)];
    else if (!rest[rest.length - 1]?.includes('/')) return undefined;
  } else if (command === 'describe') {
    // describe's subcommands and their aliases (deploy, rs…) are kubectl's type words; flagsOf knows which exist.
    described = rest.length >= 2 ? describedKind(rest[0]) : undefined;
    if (described) {
      command = `describe:${rest[0]}`;
      rest = rest.slice(1);
    } else if (!rest[rest.length - 1]?.includes('/')) return undefined; // else kubectl's describe TYPE/NAME
  }
  const kind = deleting ? 'many' : described || command === 'describe' ? 'first' : POD_COMMANDS[command];
  const flags = flagsOf(deleting && command !== 'delete' ? 'status' : command);
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
  if (!containerOf && (kind === 'first' ? positional !== 0 : kind === 'cp' && positional > 1)) return undefined;
  return {
    command,
    prefix: current,
    namespace: values.namespace,
    rootDir: values['root-dir'],
    runtimeEndpoint: values['runtime-endpoint'],
    colon: kind === 'cp',
    ...(containerOf !== undefined ? { containerOf } : {}),
    ...(described && described !== 'Pod' ? { kind: described } : {}),
    types: (kind === 'first' || kind === 'many') && !described,
  };
}

/** The index of the first of WORDS that is an argument, not a flag nor a flag's value; -1 when there is none. */
function firstPositional(words: string[], flags: FlagSpecs): number {
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (word === '--') return -1;
    if (!word.startsWith('-') || word === '-') return i;
    if (valueFlag(word, flags) && !word.includes('=')) i++;
  }
  return -1;
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

/** An object but a pod that a completion may offer (a Deployment, a ConfigMap…), a workload with its pod template's containers. */
export interface ObjectToComplete extends PodToComplete {
  kind: string;
}

/** The pods and other objects a completion chooses from. */
export interface ToComplete {
  pods: PodToComplete[];
  objects: ObjectToComplete[];
}

/** Whether a place may offer objects but pods, so that they are read only then. */
export function wantsObjects(place: PodPlace): boolean {
  return place.kind !== undefined || place.types;
}

/** The object ARG names (NAME in -n's namespace or default, NAMESPACE/NAME, or a TYPE/NAME where the place takes one). */
function named(from: ToComplete, place: PodPlace, arg: string): PodToComplete | undefined {
  const target = parseTarget(arg, place.namespace, place.types);
  const kind = target.kind === 'Pod' ? (place.kind ?? 'Pod') : target.kind;
  const objects = kind === 'Pod' ? from.pods : from.objects.filter((w) => w.kind === kind);
  return objects.find((o) => o.namespace === target.namespace && o.name === target.name);
}

/** Names as the commands take them: the namespace given's by name; without one, default's by name and the others as NAMESPACE/NAME. */
function byNamespace(objects: PodToComplete[], place: PodPlace): string[] {
  return objects.flatMap(({ namespace, name }) => {
    if (place.namespace !== undefined) return namespace === place.namespace ? [name] : [];
    return [namespace === 'default' ? name : `${namespace}/${name}`];
  });
}

/** Those of NAMES that start with what is typed, once each, sorted. */
function fitting(names: string[], place: PodPlace): string[] {
  return [...new Set(names)].filter((n) => n.startsWith(place.prefix)).sort();
}

/**
 * The candidates: pods (or, after `describe KIND`, that kind's objects) by
 * namespace, with a colon for cp; where kubectl's TYPE/NAME goes, the
 * `TYPE/` words too, and after one of them the names of that type in the
 * namespace given (default without one). For -c, the containers of the
 * pod or workload named before it. Only those that start with what is typed.
 */
export function podCandidates(from: ToComplete, place: PodPlace): string[] {
  if (place.containerOf !== undefined) {
    const containers = named(from, place, place.containerOf)?.containers ?? [];
    return fitting(containers, place).sort((a, b) => containers.indexOf(a) - containers.indexOf(b));
  }
  if (place.colon && place.prefix.includes(':')) return [];
  if (place.kind)
    return fitting(
      byNamespace(
        from.objects.filter((w) => w.kind === place.kind),
        place,
      ),
      place,
    );
  const slash = place.prefix.indexOf('/');
  // delete and get take more kinds than those with pods to pick.
  const kindOf = (word: string) =>
    place.command === 'delete' || place.command === 'get' || place.command === 'status' ? deletedKind(word) : targetKind(word)?.kind;
  const type = place.types && slash >= 0 ? kindOf(place.prefix.slice(0, slash)) : undefined;
  if (type) {
    const word = place.prefix.slice(0, slash);
    const objects = type === 'Pod' ? from.pods : from.objects.filter((w) => w.kind === type);
    const namespace = place.namespace ?? 'default';
    return fitting(
      objects.filter((o) => o.namespace === namespace).map((o) => `${word}/${o.name}`),
      place,
    );
  }
  const suffix = place.colon ? ':' : '';
  const names = byNamespace(from.pods, place).map((n) => `${n}${suffix}`);
  return fitting([...names, ...(place.types ? TYPE_WORDS.map((w) => `${w}/`) : [])], place);
}
