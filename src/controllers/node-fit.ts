// Whether a pod fits this node as the scheduler's filters decide it: the
// node selector, the required node affinity (labels and the metadata.name
// field), and the node's taints against the pod's tolerations.
import type { PodSpec } from '../engine/api/v1.js';

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

export type Toleration = NonNullable<PodSpec['tolerations']>[number];

interface NodeSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';
  values?: string[];
}

interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

export interface NodeAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: NodeSelectorTerm[] };
  [field: string]: unknown;
}

export interface Node {
  name: string;
  labels: Record<string, string>;
  taints: Taint[];
}

/** The pod spec's affinity, which the engine's PodSpec type leaves out. */
export function affinityOf(spec: PodSpec): { nodeAffinity?: NodeAffinity; [field: string]: unknown } | undefined {
  return (spec as PodSpec & { affinity?: { nodeAffinity?: NodeAffinity } }).affinity;
}

/** nodeaffinity.NewRequiredNodeAffinity(...).Match: the node selector, and one of the required terms (none: any node). */
export function fitsNodeAffinity(spec: PodSpec, node: Node): boolean {
  for (const [k, v] of Object.entries(spec.nodeSelector ?? {})) if (node.labels[k] !== v) return false;
  const terms = affinityOf(spec)?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms) return true;
  const fields: Record<string, string> = { 'metadata.name': node.name };
  return terms.some(
    (t) =>
      ((t.matchExpressions ?? []).length > 0 || (t.matchFields ?? []).length > 0) &&
      (t.matchExpressions ?? []).every((r) => requirementMatches(r, node.labels)) &&
      (t.matchFields ?? []).every((r) => requirementMatches(r, fields)),
  );
}

function requirementMatches(r: NodeSelectorRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = labels[r.key];
  switch (r.operator) {
    case 'In':
      return has && (r.values ?? []).includes(value);
    case 'NotIn':
      return !has || !(r.values ?? []).includes(value);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'Gt':
    case 'Lt': {
      const [a, b] = [Number(value), Number(r.values?.[0])];
      if (!has || !Number.isInteger(a) || !Number.isInteger(b)) return false;
      return r.operator === 'Gt' ? a > b : a < b;
    }
    default:
      return false;
  }
}

/** v1helper.TolerationsTolerateTaint for one taint. */
export function tolerates(tolerations: Toleration[], taint: Taint): boolean {
  return tolerations.some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.operator === 'Exists') return !t.key || t.key === taint.key;
    return t.key === taint.key && (t.value ?? '') === (taint.value ?? '');
  });
}

/** The node's NoSchedule and NoExecute taints that the tolerations leave untolerated. */
export function untoleratedTaints(tolerations: Toleration[], node: Node): Taint[] {
  return node.taints.filter((t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !tolerates(tolerations, t));
}
