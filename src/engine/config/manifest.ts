import { parseAllDocuments, type Tags } from 'yaml';
import type { Pod } from '../api/v1.js';
import type { KubeObject } from '../api/workloads.js';
import { validateObject, WORKLOAD_KINDS } from './object-validation.js';
import { parseSimpleYaml } from './simple-yaml.js';
import { validatePod } from './validation.js';

/** One problem with one manifest, named so a user can find it: file, document, pod, field. */
export interface ManifestError {
  /** File path or URL. */
  source: string;
  /** 0-based index of the YAML document; problems inside a List's items name `items[i]` in the field. */
  document: number;
  pod?: string;
  /** An object other than a pod, as `Deployment "web"`. */
  object?: string;
  field?: string;
  message: string;
}

export function formatManifestError(e: ManifestError): string {
  const where = [`${e.source}`, `document ${e.document}`];
  if (e.pod) where.push(`pod "${e.pod}"`);
  else if (e.object) where.push(e.object);
  return `${where.join(', ')}${e.field ? `: ${e.field}` : ''}: ${e.message}`;
}

export interface DecodedPod {
  pod: Pod;
  document: number;
}

export interface DecodedObject {
  object: KubeObject;
  document: number;
}

export interface DecodedManifest {
  pods: DecodedPod[];
  /** Objects of the other kinds a standalone node runs (WORKLOAD_KINDS), valid. */
  objects: DecodedObject[];
  errors: ManifestError[];
  /** Objects of kinds a node does not run (a Service, an Ingress), each named once. */
  skipped: ManifestError[];
  /** The text did not parse at all (a syntax error, or a file caught mid-write). */
  unreadable: boolean;
}

/**
 * YAML as the kubelet reads it (sigs.k8s.io/yaml, YAML 1.1 as go-yaml v2 reads
 * it): unquoted y/n/yes/no/on/off are booleans, 0644 is octal (a volume's
 * defaultMode), 1_000 a number. Like go-yaml, no sexagesimal numbers (1:20 stays
 * a string) and no timestamps (a date stays a string).
 */
const KUBE_YAML = {
  version: '1.1',
  customTags: (tags: Tags) => tags.filter((t) => typeof t === 'string' || (t.format !== 'TIME' && t.tag !== 'tag:yaml.org,2002:timestamp')),
} as const;

/**
 * Limits that keep hostile input (alias bombs, huge or deeply nested
 * documents) from costing more than a bad file should: decoding runs on the
 * sync loop's thread. 3 MiB is the apiserver's own limit on a request body.
 */
const MAX_ALIASES = 100;
/** The largest manifest knode reads: files, stdin and URL bodies are refused past it, before they are read whole. */
export const MAX_MANIFEST_BYTES = 3 * 1024 * 1024;
const MAX_BYTES = MAX_MANIFEST_BYTES;
const MAX_FLOW_DEPTH = 100;

/**
 * Decodes a manifest file: YAML or JSON, several documents, each a Pod or a
 * v1 List/PodList of pods. Every bad document becomes an error; the good ones
 * are returned, so one broken pod never stops the others.
 */
export function decodeManifest(source: string, text: string, nameSuffixLength = 0): DecodedManifest {
  const out: DecodedManifest = { pods: [], objects: [], errors: [], skipped: [], unreadable: false };
  if (text.length > MAX_BYTES) {
    out.errors.push({ source, document: 0, message: `manifest is larger than ${MAX_BYTES} bytes` });
    out.unreadable = true;
    return out;
  }
  const depth = flowDepth(text);
  if (depth > MAX_FLOW_DEPTH) {
    out.errors.push({
      source,
      document: 0,
      message: `brackets nested deeper than ${MAX_FLOW_DEPTH} levels; a pod manifest needs a handful`,
    });
    out.unreadable = true;
    return out;
  }
  const values = parseSimpleYaml(text) ?? libraryDocuments(source, text, out);
  values.forEach((value, index) => {
    if (value === null || value === undefined) return; // an empty document
    if (refersToItself(value)) {
      out.errors.push({
        source,
        document: index,
        message: 'YAML: an alias refers to the node that contains it (a cycle); a manifest must be a tree',
      });
      return;
    }
    for (const [prefix, obj] of objectsOf(value, source, index, out.errors)) {
      const name = nameOf(obj);
      const kind = String(obj.kind);
      if (kind === 'Pod') {
        const problems = validatePod(obj, { nameSuffixLength });
        for (const p of problems)
          out.errors.push({ source, document: index, pod: name, field: `${prefix}${p.field}` || undefined, message: p.message });
        if (problems.length === 0) out.pods.push({ pod: obj as unknown as Pod, document: index });
      } else if (Object.hasOwn(WORKLOAD_KINDS, kind)) {
        const problems = validateObject(obj);
        const object = `${kind} ${JSON.stringify(name ?? '')}`;
        for (const p of problems)
          out.errors.push({ source, document: index, object, field: `${prefix}${p.field}` || undefined, message: p.message });
        if (problems.length === 0) out.objects.push({ object: obj as KubeObject, document: index });
      } else {
        out.skipped.push({
          source,
          document: index,
          object: `${kind} ${JSON.stringify(name ?? '')}`,
          message: `a ${kind} is not run on a node; skipped (knode runs Pods and ${Object.keys(WORKLOAD_KINDS).join(', ')})`,
        });
      }
    }
  });
  return out;
}

/**
 * The objects a document holds, each with the field prefix that locates it:
 * itself ('') when it is an object, its items (`items[i].`) when it is a List
 * or PodList. What kind each is decides the caller.
 */
function* objectsOf(
  value: unknown,
  source: string,
  document: number,
  errors: ManifestError[],
): Generator<[string, Record<string, unknown>]> {
  if (typeof value !== 'object' || Array.isArray(value) || value === null) {
    errors.push({
      source,
      document,
      message: `expected a Pod, List or other API object, got ${Array.isArray(value) ? 'an array' : typeof value}`,
    });
    return;
  }
  const obj = value as Record<string, unknown>;
  const kind = obj.kind;
  // The kubelet's decoder (the apimachinery JSON serializer) wants both before anything else, kind first.
  for (const [key, label] of [
    ['kind', 'Kind'],
    ['apiVersion', 'apiVersion'],
  ] as const) {
    if (obj[key] === undefined || obj[key] === null || obj[key] === '') {
      const data = JSON.stringify(obj);
      errors.push({
        source,
        document,
        pod: nameOf(obj),
        field: key,
        message: `Object '${label}' is missing in '${data.length > 200 ? `${data.slice(0, 197)}...` : data}'`,
      });
      return;
    }
  }
  if (kind === 'List' || kind === 'PodList') {
    if (!Array.isArray(obj.items)) {
      errors.push({ source, document, field: 'items', message: `a ${kind} needs an items array` });
      return;
    }
    for (const [i, item] of obj.items.entries()) {
      const itemObj = item as Record<string, unknown> | null;
      if (kind === 'PodList') yield [`items[${i}].`, { kind: 'Pod', apiVersion: 'v1', ...itemObj }];
      else if (typeof itemObj?.kind !== 'string' || itemObj.kind === '' || itemObj.kind === 'List')
        errors.push({
          source,
          document,
          field: `items[${i}].kind`,
          message: `${itemObj?.kind === 'List' ? 'Unsupported value: "List": a List inside a List' : 'Required value'}`,
        });
      else yield [`items[${i}].`, itemObj];
    }
    return;
  }
  if (typeof kind !== 'string') {
    const type = Array.isArray(kind) ? 'array' : typeof kind === 'object' ? 'object' : typeof kind;
    errors.push({
      source,
      document,
      pod: nameOf(obj),
      field: 'kind',
      message: `json: cannot unmarshal ${type} into Go struct field .kind of type string`,
    });
    return;
  }
  yield ['', obj];
}

function nameOf(obj: Record<string, unknown>): string | undefined {
  const name = (obj.metadata as Record<string, unknown> | undefined)?.name;
  return typeof name === 'string' ? name : undefined;
}

/**
 * Whether a value holds itself (`a: &a [*a]`): aliases may share a node, but
 * a cycle would never end when walked. Iterative, so deep nesting cannot
 * overflow the stack here.
 */
function refersToItself(root: unknown): boolean {
  const onPath = new Set<object>();
  const done = new Set<object>();
  const stack: [object, boolean][] = [];
  if (typeof root === 'object' && root !== null) stack.push([root, false]);
  while (stack.length > 0) {
    const [node, leaving] = stack.pop()!;
    if (leaving) {
      onPath.delete(node);
      done.add(node);
      continue;
    }
    if (done.has(node)) continue;
    onPath.add(node);
    stack.push([node, true]);
    for (const child of Object.values(node)) {
      if (typeof child !== 'object' || child === null) continue;
      if (onPath.has(child)) return true;
      if (!done.has(child)) stack.push([child, false]);
    }
  }
  return false;
}

/**
 * The documents of TEXT as the `yaml` library reads them (YAML 1.1, as the
 * apiserver's decoder), for what parseSimpleYaml does not take: each
 * document's value, or undefined for one that could not be read, whose error
 * goes into OUT.
 */
export function libraryDocuments(source: string, text: string, out: DecodedManifest): unknown[] {
  const docs = parseAllDocuments(text, { prettyErrors: true, uniqueKeys: true, ...KUBE_YAML });
  if (!Array.isArray(docs)) {
    out.errors.push({ source, document: 0, message: 'not a YAML document stream' });
    out.unreadable = true;
    return [];
  }
  return docs.map((doc, index) => {
    if (doc.errors.length > 0) {
      out.unreadable = true;
      out.errors.push({ source, document: index, message: `YAML: ${doc.errors[0].message.split('\n')[0]}` });
      return undefined;
    }
    try {
      return doc.toJS({ maxAliasCount: MAX_ALIASES }) as unknown;
    } catch (err) {
      out.errors.push({ source, document: index, message: `YAML: ${(err as Error).message}` });
      return undefined;
    }
  });
}

/**
 * How deep `[` and `{` nest outside quoted strings and comments: a linear scan
 * that stops counting past the limit, so a file of a million brackets is
 * refused before the YAML parser spends seconds on it.
 */
function flowDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === '\\' && quote === '"') i++;
      else if (ch === quote) quote = '';
      continue;
    }
    if (ch === '"' || (ch === "'" && (i === 0 || /[\s[{,:]/.test(text[i - 1])))) quote = ch;
    else if (ch === '#' && (i === 0 || /\s/.test(text[i - 1]))) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
    } else if (ch === '[' || ch === '{') {
      if (++depth > max) max = depth;
      if (max > MAX_FLOW_DEPTH) return max;
    } else if ((ch === ']' || ch === '}') && depth > 0) depth--;
  }
  return max;
}
