import type { Taint } from '../api/cluster.js';

const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

function qualifiedName(key: string): boolean {
  const slash = key.lastIndexOf('/');
  const [prefix, name] = slash < 0 ? ['', key] : [key.slice(0, slash), key.slice(slash + 1)];
  return name.length > 0 && name.length <= 63 && NAME.test(name) && (slash < 0 || (prefix.length <= 253 && SUBDOMAIN.test(prefix)));
}

/**
 * A taint as the kubelet's --register-with-taints reads one,
 * `<key>=<value>:<effect>` or `<key>:<effect>`; its errors (utiltaints.parseTaint).
 */
export function parseTaint(spec: string): Taint {
  const parts = spec.split(':');
  if (parts.length !== 2) throw new Error(`invalid taint spec: ${spec}`);
  const [kv, effect] = parts as [string, string];
  if (!EFFECTS.includes(effect)) throw new Error(`invalid taint effect: ${effect}, unsupported taint effect`);
  const pair = kv.split('=');
  if (pair.length > 2) throw new Error(`invalid taint spec: ${spec}`);
  const [key, value] = pair as [string, string | undefined];
  if (value !== undefined && !LABEL_VALUE.test(value))
    throw new Error(
      `invalid taint spec: ${spec}, a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
  if (!qualifiedName(key))
    throw new Error(
      `invalid taint spec: ${spec}, name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`,
    );
  return { key, ...(value ? { value } : {}), effect: effect as Taint['effect'] };
}

/** Comma-separated taints, as the flag takes them; a key and effect given twice is refused. */
export function parseTaints(text: string): Taint[] {
  const taints = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(parseTaint);
  const seen = new Set<string>();
  for (const t of taints) {
    const id = `${t.key}:${t.effect}`;
    if (seen.has(id)) throw new Error(`duplicated taints with the same key and effect: ${t.key}=${t.value ?? ''}:${t.effect}`);
    seen.add(id);
  }
  return taints;
}

/** registerWithTaints from a --config file: a list of {key, value, effect}; the kubelet's "invalid taint" for a bad one. */
export function checkTaintList(value: unknown): Taint[] {
  if (!Array.isArray(value)) throw new Error(`expected a list of taints ({key, value, effect}), got ${JSON.stringify(value)}`);
  return value.map((t: unknown) => {
    const taint = t as Partial<Taint> | null;
    if (!taint || typeof taint !== 'object' || typeof taint.key !== 'string' || typeof taint.effect !== 'string')
      throw new Error(`invalid taint: ${JSON.stringify(t)}`);
    if (taint.timeAdded !== undefined) throw new Error('invalid configuration: taint.TimeAdded is not nil');
    try {
      return parseTaint(`${taint.key}${taint.value ? `=${taint.value}` : ''}:${taint.effect}`);
    } catch {
      throw new Error(`invalid taint: ${JSON.stringify(t)}`);
    }
  });
}
