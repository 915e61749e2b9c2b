import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The Summary API's shape as upstream defines it: the Go structs of
 * k8s.io/kubelet/pkg/apis/stats/v1alpha1/types.go, read from the module cache
 * that test/peers/build.sh fills when it builds Kubernetes (the same release
 * as the peers). Each struct becomes its JSON fields and their JSON types, so
 * a test checks knode's /stats/summary against the real definition, not
 * against a copy of it.
 */
const KUBELET_MODULE = 'k8s.io/kubelet@v0.37.2';

type Field = { json: string; type: string };

export function summaryTypesFile(): string {
  const peers = process.env.KNODE_PEERS_DIR || join(homedir(), '.cache/knode/peers');
  return join(peers, 'go/mod', KUBELET_MODULE, 'pkg/apis/stats/v1alpha1/types.go');
}

/** struct name → its JSON fields (embedded structs with `json:""` flattened). */
export function loadSummaryStructs(file = summaryTypesFile()): Map<string, Field[]> {
  if (!existsSync(file)) throw new Error(`${file} is missing: build the Kubernetes peers first (bash test/peers/build.sh kube)`);
  const raw = new Map<string, { embedded: string[]; fields: Field[] }>();
  let current: { embedded: string[]; fields: Field[] } | undefined;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const start = /^type (\w+) struct \{/.exec(line);
    if (start) {
      current = { embedded: [], fields: [] };
      raw.set(start[1], current);
      continue;
    }
    if (!current) continue;
    if (/^\}/.test(line)) {
      current = undefined;
      continue;
    }
    const embedded = /^\s+(\w+)\s+`json:""`/.exec(line);
    if (embedded) {
      current.embedded.push(embedded[1]);
      continue;
    }
    const field = /^\s+\w+\s+(\S+)\s+`json:"([^",]+)/.exec(line);
    if (field) current.fields.push({ json: field[2], type: field[1] });
  }
  const flat = new Map<string, Field[]>();
  const resolve = (name: string): Field[] => {
    const s = raw.get(name);
    if (!s) return [];
    return [...s.embedded.flatMap(resolve), ...s.fields];
  };
  for (const name of raw.keys()) flat.set(name, resolve(name));
  return flat;
}

/** Where `value` departs from the Go type `type` (field names and JSON types), with paths. */
export function summaryProblems(structs: Map<string, Field[]>, value: unknown, type = 'Summary', path = '$'): string[] {
  const t = type.replace(/^\*/, '');
  if (t.startsWith('[]')) {
    if (!Array.isArray(value)) return [`${path}: expected an array (${type})`];
    return value.flatMap((v, i) => summaryProblems(structs, v, t.slice(2), `${path}[${i}]`));
  }
  if (t.startsWith('map[string]')) {
    if (typeof value !== 'object' || value === null) return [`${path}: expected an object (${type})`];
    return Object.entries(value).flatMap(([k, v]) => summaryProblems(structs, v, t.slice('map[string]'.length), `${path}.${k}`));
  }
  if (t === 'metav1.Time')
    return typeof value === 'string' && !Number.isNaN(Date.parse(value))
      ? []
      : [`${path}: expected an RFC 3339 time, got ${JSON.stringify(value)}`];
  if (t === 'string' || t === 'UserDefinedMetricType') return typeof value === 'string' ? [] : [`${path}: expected a string`];
  if (/^(u?int(8|16|32|64)?|float(32|64))$/.test(t)) {
    if (typeof value !== 'number') return [`${path}: expected a number (${t}), got ${JSON.stringify(value)}`];
    return t.startsWith('uint') && (value < 0 || !Number.isInteger(value))
      ? [`${path}: expected a non-negative integer, got ${value}`]
      : [];
  }
  const fields = structs.get(t);
  if (!fields) return [`${path}: type ${t} is not in the upstream file`];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${path}: expected an object (${t})`];
  const problems: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    const f = fields.find((x) => x.json === k);
    if (!f) problems.push(`${path}.${k}: ${t} has no field "${k}"`);
    else problems.push(...summaryProblems(structs, v, f.type, `${path}.${k}`));
  }
  return problems;
}
