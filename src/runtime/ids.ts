import { randomBytes } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { invalid, notFound, RuntimeError } from './errors.js';

/** A 64-hex-digit id, like containerd's. */
export function newId(): string {
  return randomBytes(32).toString('hex');
}

/**
 * Finds a record by full id or by a unique id prefix (crictl users type
 * prefixes). An ambiguous prefix is an invalid argument, not a guess.
 */
export function lookup<T>(records: Map<string, T>, id: string, what: string): T {
  if (id === '') throw invalid(`${what} id is empty`);
  const exact = records.get(id);
  if (exact) return exact;
  let found: T | undefined;
  let matches = 0;
  for (const [key, record] of records) {
    if (key.startsWith(id)) {
      found = record;
      matches++;
    }
  }
  if (matches > 1) throw invalid(`${what} id prefix "${id}" is ambiguous`);
  if (!found) throw notFound(what, id);
  return found;
}

/** Like lookup, but an id that matches nothing gives undefined (calls that must be idempotent). */
export function lookupOptional<T>(records: Map<string, T>, id: string, what: string): T | undefined {
  try {
    return lookup(records, id, what);
  } catch (err) {
    if (err instanceof RuntimeError && err.code === status.NOT_FOUND) return undefined;
    throw err;
  }
}

let lastNs = 0;

/** Wall-clock nanoseconds, strictly increasing within this process so creation order is never a tie. */
export function nowNs(): number {
  let t = Date.now() * 1e6;
  if (t <= lastNs) t = lastNs + 1024;
  lastNs = t;
  return t;
}
