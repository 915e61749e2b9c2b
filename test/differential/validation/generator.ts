// The validation differential's corpus: pod manifests made from the valid
// bases (bases.ts) by the mutations of mutations-pod.ts and
// mutations-container.ts, the same on every run for a seed. First every
// (field, value) of the tables alone, on a base that has the field's parent,
// then every compound mutation on each base, then seeded random combinations
// of two or three, up to the count asked for.
import { prng } from '../../helpers/prng.js';
import { BASES } from './bases.js';
import { DELETE, type FieldMutation } from './mutation-values.js';
import { CONTAINER_MUTATIONS } from './mutations-container.js';
import { COMPOUND_MUTATIONS, POD_MUTATIONS } from './mutations-pod.js';

const FIELD_MUTATIONS = [...POD_MUTATIONS, ...CONTAINER_MUTATIONS];

type Json = Record<string, unknown>;

export interface GeneratedManifest {
  /** What was changed, e.g. `web: spec.containers.0.ports.0.containerPort=0`. */
  name: string;
  /** The manifest as JSON text, as both sides read it. */
  text: string;
}

export function generateManifests(seed: number, count: number): GeneratedManifest[] {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const out: GeneratedManifest[] = [];
  const seen = new Set<string>();
  const add = (name: string, pod: Json) => {
    const text = JSON.stringify(pod);
    if (seen.has(text)) return;
    seen.add(text);
    out.push({ name, text });
  };
  BASES.forEach((base) => add(`${base.name}: unchanged`, base()));
  for (const mutation of FIELD_MUTATIONS) {
    const holders = BASES.filter((base) => hasParent(base(), mutation.at));
    const candidates = holders.length > 0 ? holders : BASES;
    mutation.values.forEach((value, v) => {
      const base = candidates[v % candidates.length];
      add(`${base.name}: ${describe(mutation, value)}`, set(base(), mutation.at, value));
    });
  }
  for (const base of BASES) {
    COMPOUND_MUTATIONS.forEach((mutate, i) => {
      const pod = base();
      mutate(pod);
      add(`${base.name}: compound #${i}`, pod);
    });
  }
  for (let attempts = 0; out.length < count && attempts < count * 10; attempts++) {
    const base = pick(BASES);
    const pod = base();
    const names: string[] = [];
    const n = 2 + Math.floor(random() * 2);
    for (let k = 0; k < n; k++) {
      if (random() < 0.15) {
        const i = Math.floor(random() * COMPOUND_MUTATIONS.length);
        COMPOUND_MUTATIONS[i](pod);
        names.push(`compound #${i}`);
      } else {
        const mutation = pick(FIELD_MUTATIONS);
        const value = pick(mutation.values);
        set(pod, mutation.at, value);
        names.push(describe(mutation, value));
      }
    }
    add(`${base.name}: ${names.join(', ')}`, pod);
  }
  return out.slice(0, count);
}

function describe(mutation: FieldMutation, value: unknown): string {
  if (value === DELETE) return `${mutation.at} deleted`;
  const shown = JSON.stringify(value) ?? String(value);
  return `${mutation.at}=${shown.length > 60 ? `${shown.slice(0, 57)}...` : shown}`;
}

/** Whether the object or array that holds `at` exists in the pod. */
function hasParent(pod: Json, at: string): boolean {
  const keys = at.split('.');
  let node: unknown = pod;
  for (const key of keys.slice(0, -1)) {
    if (typeof node !== 'object' || node === null) return false;
    node = (node as Json)[key];
  }
  return typeof node === 'object' && node !== null;
}

/** Puts `value` at the dotted path (numeric keys index arrays), making the parents it lacks; DELETE removes the field. */
function set(pod: Json, at: string, value: unknown): Json {
  const keys = at.split('.');
  let node = pod as Json;
  for (const [i, key] of keys.slice(0, -1).entries()) {
    let next = node[key];
    if (typeof next !== 'object' || next === null) {
      next = /^\d+$/.test(keys[i + 1]) ? [] : {};
      node[key] = next;
    }
    node = next as Json;
  }
  const last = keys.at(-1)!;
  if (value === DELETE) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else {
    node[last] = structuredClone(value);
  }
  return pod;
}
