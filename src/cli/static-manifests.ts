import { closeSync, fchmodSync, fsyncSync, openSync, realpathSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { canonicalJson } from '../engine/config/static-pod.js';

// The objects of manifest files located to their document, so that one
// document can be rewritten in place and the rest of its file left as it is
// (`knode apply --replace` beside a node: the static dir's manifest rewritten).

/** YAML as the kubelet reads it (1.1), for locating documents; decodeManifest validates. */
const YAML_OPTIONS = { version: '1.1' } as const;

/** An object's identity, as kubectl replace finds the object to replace. */
export interface ObjectRef {
  kind: string;
  namespace: string;
  name: string;
}

/** Where an object is: its file, its 0-based document, and its item when the document is a List. */
export interface Located {
  file: string;
  document: number;
  /** The item's index in a List (or PodList) document. */
  item?: number;
  /** How many items that List has. */
  items?: number;
  ref: ObjectRef;
  value: Record<string, unknown>;
  /** The object's own text (the document's contents), when it is a document alone. */
  text?: string;
}

export function refKey(ref: ObjectRef): string {
  return `${ref.kind}/${ref.namespace}/${ref.name}`;
}

/** `pod "web"`, `Deployment "web"` (a namespace other than default: `pod "other/web"`), as the manifest errors name objects. */
export function describeRef(ref: ObjectRef): string {
  const name = ref.namespace === 'default' ? ref.name : `${ref.namespace}/${ref.name}`;
  return `${ref.kind === 'Pod' ? 'pod' : ref.kind} "${name}"`;
}

/** The objects of one file's text, with where each is; a document that does not parse, or holds no named object, is left out. */
export function locateObjects(file: string, text: string): Located[] {
  const out: Located[] = [];
  parseAllDocuments(text, YAML_OPTIONS).forEach((doc, document) => {
    if (doc.errors.length > 0 || !doc.contents) return;
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch {
      return;
    }
    if (!isObject(value)) return;
    const kind = value.kind;
    if ((kind === 'List' || kind === 'PodList') && Array.isArray(value.items)) {
      const items = value.items as unknown[];
      items.forEach((item, index) => {
        const object = isObject(item) && kind === 'PodList' ? { kind: 'Pod', apiVersion: 'v1', ...item } : item;
        const ref = refOf(object);
        if (ref) out.push({ file, document, item: index, items: items.length, ref, value: object as Record<string, unknown> });
      });
      return;
    }
    const ref = refOf(value);
    const [start, end] = doc.contents.range;
    if (ref) out.push({ file, document, ref, value, text: text.slice(start, end) });
  });
  return out;
}

/** One object to replace: what it is now (in the static dir), and what the given manifest makes it. */
export interface Replacement {
  target: Located;
  given: Located;
  /** The same object once decoded: the node keeps its pod as it runs. */
  unchanged: boolean;
}

/**
 * Pairs each given object with the one of the same kind, namespace and name
 * among the static dir's (as kubectl replace finds the object it replaces),
 * and gives each target file's new text. An object that is not there, is
 * there twice, is an item of a List among others, or is given twice, is an
 * error naming the file, document and object; nothing is written then.
 */
export function planReplacement(
  given: Located[],
  existing: Located[],
  texts: Map<string, string>,
  staticDir: string,
): { replacements: Replacement[]; files: Map<string, string>; errors: string[] } {
  const byRef = new Map<string, Located[]>();
  for (const located of existing) byRef.set(refKey(located.ref), [...(byRef.get(refKey(located.ref)) ?? []), located]);
  const errors: string[] = [];
  const replacements: Replacement[] = [];
  const taken = new Map<string, Located>();
  for (const object of given) {
    const at = `${where(object)}, ${describeRef(object.ref)}`;
    const found = byRef.get(refKey(object.ref)) ?? [];
    if (found.length === 0) {
      errors.push(
        `${at}: metadata.name: not found in the node's --static-dir (${staticDir}): no manifest there holds a ${object.ref.kind} of this name in namespace ${object.ref.namespace}`,
      );
      continue;
    }
    if (found.length > 1) {
      errors.push(`${at}: found ${found.length} times in the node's --static-dir (${found.map(where).join('; ')}): replace needs one`);
      continue;
    }
    const target = found[0];
    if (target.item !== undefined && (target.items ?? 0) > 1) {
      errors.push(
        `${at}: ${where(target)}: items[${target.item}]: it is an item of a List of ${target.items}; replace rewrites whole documents: give it a document of its own there`,
      );
      continue;
    }
    const slot = `${target.file}#${target.document}`;
    if (taken.has(slot)) {
      errors.push(`${at}: given twice (also ${where(taken.get(slot)!)})`);
      continue;
    }
    taken.set(slot, object);
    replacements.push({ target, given: object, unchanged: canonicalJson(target.value) === canonicalJson(object.value) });
  }
  const files = new Map<string, string>();
  if (errors.length > 0) return { replacements, files, errors };
  for (const file of new Set(replacements.map((r) => r.target.file))) {
    const mine = replacements.filter((r) => r.target.file === file && !r.unchanged);
    if (mine.length > 0) files.set(file, rewrite(file, texts.get(file)!, mine));
  }
  return { replacements, files, errors };
}

/** A file's new text: each replaced document's contents swapped for the given object's, the rest of the file byte for byte. */
function rewrite(file: string, text: string, replacements: Replacement[]): string {
  if (extname(file).toLowerCase() === '.json') return `${JSON.stringify(replacements[0].given.value, null, 2)}\n`;
  const docs = parseAllDocuments(text, YAML_OPTIONS);
  const spans = replacements
    .map((r) => {
      const [start, end] = docs[r.target.document].contents!.range;
      return { start, end, value: r.given };
    })
    .sort((a, b) => b.start - a.start);
  let out = text;
  for (const { start, end, value } of spans) {
    const fresh = (value.text ?? stringify(value.value, YAML_OPTIONS)).trimEnd();
    out = `${out.slice(0, start)}${fresh}${text.slice(start, end).endsWith('\n') ? '\n' : ''}${out.slice(end)}`;
  }
  return out;
}

/**
 * Writes a file as one atomic change, as editors do: the new text goes to a
 * hidden file beside it (a node's file source skips names starting with a
 * dot), synced, with the old file's mode, then renamed over it. A symlink is
 * followed: the file it points to is the one rewritten.
 */
export function writeAtomically(file: string, text: string): void {
  const real = realpathSync(file);
  const mode = statSync(real).mode & 0o7777;
  const temp = join(dirname(real), `.${basename(real)}.knode-replace-${process.pid}`);
  const fd = openSync(temp, 'w', mode);
  try {
    fchmodSync(fd, mode);
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(temp, real);
}

function where(located: Located): string {
  return `${located.file}, document ${located.document}`;
}

function refOf(value: unknown): ObjectRef | undefined {
  if (!isObject(value) || typeof value.kind !== 'string' || !isObject(value.metadata)) return undefined;
  const { name, namespace } = value.metadata;
  if (typeof name !== 'string' || name === '') return undefined;
  return { kind: value.kind, namespace: typeof namespace === 'string' && namespace !== '' ? namespace : 'default', name };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
