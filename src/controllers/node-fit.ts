// Whether a pod fits this node as the scheduler's filters decide it: the
// node selector, the required node affinity (labels and the metadata.name
// field), and the node's taints against the pod's tolerations.
import type { Pod, PodSpec } from '../engine/api/v1.js';
import { matchesRequiredNodeAffinity } from '../engine/node-affinity.js';

export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

export type Toleration = NonNullable<PodSpec['tolerations']>[number];

interface NodeSelectorTerm {
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
  matchFields?: { key: string; operator: string; values?: string[] }[];
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
  return matchesRequiredNodeAffinity({ metadata: {}, spec } as Pod, node.labels, node.name);
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
