import { parseAllDocuments } from 'yaml';
import type { Pod } from '../api/v1.js';
import { validatePod } from './validation.js';

/** One problem with one manifest, named so a user can find it: file, document, pod, field. */
export interface ManifestError {
  /** File path or URL. */
  source: string;
  /** 0-based index of the YAML document; problems inside a List's items name `items[i]` in the field. */
  document: number;
  pod?: string;
  field?: string;
  message: string;
}

export function formatManifestError(e: ManifestError): string {
  const where = [`${e.source}`, `document ${e.document}`];
  if (e.pod) where.push(`pod "${e.pod}"`);
  return `${where.join(', ')}${e.field ? `: ${e.field}` : ''}: ${e.message}`;
}

export interface DecodedPod {
  pod: Pod;
  document: number;
}

export interface DecodedManifest {
  pods: DecodedPod[];
  errors: ManifestError[];
  /** The text did not parse at all (a syntax error, or a file caught mid-write). */
  unreadable: boolean;
}

/** Limits that keep hostile input (alias bombs, huge documents) from costing more than a bad file should. */
const MAX_ALIASES = 100;
const MAX_BYTES = 10 * 1024 * 1024;

/**
 * Decodes a manifest file: YAML or JSON, several documents, each a Pod or a
 * v1 List/PodList of pods. Every bad document becomes an error; the good ones
 * are returned, so one broken pod never stops the others.
 */
export function decodeManifest(source: string, text: string, nameSuffixLength = 0): DecodedManifest {
  const out: DecodedManifest = { pods: [], errors: [], unreadable: false };
  if (text.length > MAX_BYTES) {
    out.errors.push({ source, document: 0, message: `manifest is larger than ${MAX_BYTES} bytes` });
    out.unreadable = true;
    return out;
  }
  const docs = parseAllDocuments(text, { prettyErrors: true, uniqueKeys: true });
  if (!Array.isArray(docs)) {
    out.errors.push({ source, document: 0, message: 'not a YAML document stream' });
    out.unreadable = true;
    return out;
  }
  docs.forEach((doc, index) => {
    if (doc.errors.length > 0) {
      out.unreadable = true;
      out.errors.push({ source, document: index, message: `YAML: ${doc.errors[0].message.split('\n')[0]}` });
      return;
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIASES });
    } catch (err) {
      out.errors.push({ source, document: index, message: `YAML: ${(err as Error).message}` });
      return;
    }
    if (value === null || value === undefined) return; // an empty document
    for (const [prefix, pod] of objectsOf(value, source, index, out.errors)) {
      const name = nameOf(pod);
      const problems = validatePod(pod, { nameSuffixLength });
      if (problems.length > 0) {
        for (const p of problems) out.errors.push({ source, document: index, pod: name, field: `${prefix}${p.field}` || undefined, message: p.message });
      } else {
        out.pods.push({ pod: pod as unknown as Pod, document: index });
      }
    }
  });
  return out;
}

/**
 * The pods a document holds, each with the field prefix that locates it:
 * itself ('') when it is a Pod, its items (`items[i].`) when it is a List or PodList.
 */
function* objectsOf(value: unknown, source: string, document: number, errors: ManifestError[]): Generator<[string, Record<string, unknown>]> {
  if (typeof value !== 'object' || Array.isArray(value) || value === null) {
    errors.push({ source, document, message: `expected a Pod, List or PodList object, got ${Array.isArray(value) ? 'an array' : typeof value}` });
    return;
  }
  const obj = value as Record<string, unknown>;
  const kind = obj.kind;
  if (kind === 'Pod') {
    yield ['', obj];
    return;
  }
  if (kind === 'List' || kind === 'PodList') {
    if (!Array.isArray(obj.items)) {
      errors.push({ source, document, field: 'items', message: `a ${kind} needs an items array` });
      return;
    }
    for (const [i, item] of obj.items.entries()) {
      const kindOfItem = (item as Record<string, unknown> | null)?.kind;
      if (kind === 'List' && kindOfItem !== 'Pod') {
        errors.push({ source, document, field: `items[${i}].kind`, message: `Unsupported value: ${JSON.stringify(kindOfItem ?? null)}: knode runs Pods` });
        continue;
      }
      yield [`items[${i}].`, { kind: 'Pod', apiVersion: 'v1', ...(item as Record<string, unknown>) }];
    }
    return;
  }
  errors.push({ source, document, pod: nameOf(obj), field: 'kind', message: `Unsupported value: ${JSON.stringify(kind ?? null)}: supported kinds: "Pod", "List", "PodList"` });
}

function nameOf(obj: Record<string, unknown>): string | undefined {
  const name = (obj.metadata as Record<string, unknown> | undefined)?.name;
  return typeof name === 'string' ? name : undefined;
}
