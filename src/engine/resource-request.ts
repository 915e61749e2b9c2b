import type { Pod } from './api/v1.js';
import { parseCpu, parseMemory } from './api/quantity.js';

/** A pod's effective request (the kubelet's GetResourceRequest): the sum of its containers, or the largest init container if that is more; 1 for `pods`. */
export function podRequest(pod: Pod, resource: 'pods' | 'cpu' | 'memory' | 'ephemeral-storage'): number {
  if (resource === 'pods') return 1;
  const parse = resource === 'cpu' ? parseCpu : parseMemory;
  const sum = pod.spec.containers.reduce((s, c) => s + parse(c.resources?.requests?.[resource] ?? c.resources?.limits?.[resource] ?? 0), 0);
  const init = Math.max(
    0,
    ...(pod.spec.initContainers ?? []).map((c) => parse(c.resources?.requests?.[resource] ?? c.resources?.limits?.[resource] ?? 0)),
  );
  return Math.max(sum, init);
}
