import type { Pod } from './api/v1.js';

interface Requirement {
  key: string;
  operator: string;
  values?: string[];
}

interface Term {
  matchExpressions?: Requirement[];
  matchFields?: Requirement[];
}

/**
 * GetRequiredNodeAffinity(pod).Match(node) (component-helpers' nodeaffinity):
 * the nodeSelector's labels all present with their values, and, when the pod
 * has required node affinity, one of its terms matching: every expression on
 * the node's labels and every field (only `metadata.name`) on the node. A term
 * with neither matches nothing.
 */
export function matchesRequiredNodeAffinity(pod: Pod, labels: Record<string, string>, nodeName: string): boolean {
  for (const [key, value] of Object.entries(pod.spec.nodeSelector ?? {})) if (labels[key] !== value) return false;
  const affinity = (
    pod.spec as { affinity?: { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: Term[] } } } }
  ).affinity;
  const required = affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (!required) return true;
  return (required.nodeSelectorTerms ?? []).some((term) => {
    const expressions = term.matchExpressions ?? [];
    const fields = term.matchFields ?? [];
    if (expressions.length === 0 && fields.length === 0) return false;
    return (
      expressions.every((r) => matches(r, labels)) &&
      fields.every((r) => r.key === 'metadata.name' && matches(r, { 'metadata.name': nodeName }))
    );
  });
}

function matches(r: Requirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = labels[r.key];
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In':
      return has && values.includes(value);
    case 'NotIn':
      return !has || !values.includes(value);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      if (!has || values.length !== 1 || !/^-?\d+$/.test(value) || !/^-?\d+$/.test(values[0])) return false;
      return r.operator === 'Gt' ? BigInt(value) > BigInt(values[0]) : BigInt(value) < BigInt(values[0]);
    }
    default:
      return false;
  }
}
