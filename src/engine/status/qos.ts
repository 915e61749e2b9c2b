import type { Pod } from '../api/v1.js';

/**
 * The pod's QoS class: BestEffort without any requests or limits, Guaranteed
 * when every container limits CPU and memory and requests exactly that,
 * Burstable otherwise.
 */
export function qosClassOf(pod: Pod): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  const containers = [...(pod.spec.initContainers ?? []), ...pod.spec.containers];
  let any = false;
  let guaranteed = true;
  for (const c of containers) {
    const requests = c.resources?.requests ?? {};
    const limits = c.resources?.limits ?? {};
    if (Object.keys(requests).length || Object.keys(limits).length) any = true;
    for (const resource of ['cpu', 'memory']) {
      const limit = limits[resource];
      const request = requests[resource] ?? limit;
      if (limit === undefined || String(request) !== String(limit)) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
