import type { Pod, Quantity } from '../api/v1.js';
import { parseCpu, parseMemory } from '../api/quantity.js';

const COMPUTE: Record<string, (q: Quantity) => number> = { cpu: parseCpu, memory: parseMemory };

/**
 * The pod's QoS class: BestEffort without any (non-zero) CPU or memory
 * requests or limits, Guaranteed when every container limits CPU and memory
 * and requests exactly that (compared as quantities: 1 = 1000m), Burstable
 * otherwise.
 */
export function qosClassOf(pod: Pod): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const containers = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const requests = c.resources?.requests ?? {};
    const limits = c.resources?.limits ?? {};
    for (const [resource, parse] of Object.entries(COMPUTE)) {
      const limit = limits[resource] === undefined ? 0 : parse(limits[resource]);
      const request = requests[resource] === undefined ? limit : parse(requests[resource]);
      if (limit > 0 || request > 0) any = true;
      if (limit === 0 || request !== limit) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
