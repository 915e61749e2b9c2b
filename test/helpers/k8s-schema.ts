import * as k8s from '@kubernetes/client-node';

type Attribute = { baseName: string; type: string; format: string };
type Model = { getAttributeTypeMap(): Attribute[] };

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
const ENUMS: Record<string, true> = {};

/**
 * Checks a JSON value against a Kubernetes API type as @kubernetes/client-node
 * models it (V1PodList, V1Pod ...): every field must be one the type has, with
 * the JSON type the model says (times as RFC 3339), recursively. Returns the
 * problems, each with its path; an empty list means the value is a valid object
 * of that type.
 */
export function schemaProblems(value: unknown, type: string, path = ''): string[] {
  if (value === null || value === undefined) return [];
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    if (!Array.isArray(value)) return [`${path}: expected an array`];
    return value.flatMap((v, i) => schemaProblems(v, array[1], `${path}[${i}]`));
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    if (typeof value !== 'object' || Array.isArray(value)) return [`${path}: expected an object`];
    return Object.entries(value).flatMap(([k, v]) => schemaProblems(v, map[1], `${path}[${k}]`));
  }
  switch (type) {
    case 'string':
      return typeof value === 'string' ? [] : [`${path}: expected a string, got ${typeof value}`];
    case 'number':
      return typeof value === 'number' ? [] : [`${path}: expected a number, got ${typeof value}`];
    case 'boolean':
      return typeof value === 'boolean' ? [] : [`${path}: expected a boolean, got ${typeof value}`];
    case 'Date':
      return typeof value === 'string' && RFC3339.test(value) ? [] : [`${path}: expected an RFC 3339 time, got ${JSON.stringify(value)}`];
    case 'any':
    case 'object':
      return [];
  }
  if (ENUMS[type]) return [];
  const model = (k8s as unknown as Record<string, Model | undefined>)[type];
  if (!model?.getAttributeTypeMap) return typeof value === 'string' ? [] : [`${path}: unknown type ${type}`];
  if (typeof value !== 'object' || Array.isArray(value)) return [`${path}: expected a ${type} object`];
  const attributes = new Map(model.getAttributeTypeMap().map((a) => [a.baseName, a]));
  const problems: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    const attribute = attributes.get(key);
    if (!attribute) problems.push(`${path}.${key}: not a field of ${type}`);
    else problems.push(...schemaProblems(v, attribute.type, `${path}.${key}`));
  }
  return problems;
}
