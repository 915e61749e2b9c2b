import { isStaticPod } from './api/pod-util.js';
import type { Pod } from './api/v1.js';
import { isMirrorPod } from './pod-manager.js';
import { podRequest } from './resource-request.js';
import { qosClassOf } from './status/qos.js';

/** scheduling.SystemCriticalPriority: from this priority up a pod is critical. */
const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

/** The event reason and message on a pod preempted for a critical one (pkg/kubelet/preemption). */
export const PREEMPT_REASON = 'Preempting';
export const PREEMPT_MESSAGE = 'Preempted in order to admit critical pod';

type Resource = 'pods' | 'cpu' | 'memory' | 'ephemeral-storage';
/** What a critical pod still lacks of one resource (the kubelet's admissionRequirement). */
interface Requirement {
  resource: Resource;
  quantity: number;
}

/** kubetypes.IsCriticalPod: static and mirror pods, and pods of system-critical priority. */
export function isCriticalPod(pod: Pod): boolean {
  return isStaticPod(pod) || isMirrorPod(pod) || (pod.spec.priority ?? -Infinity) >= SYSTEM_CRITICAL_PRIORITY;
}

/** kubetypes.Preemptable: a critical pod preempts any other; otherwise only a higher priority preempts a lower one. */
function preemptable(preemptor: Pod, preemptee: Pod): boolean {
  if (isCriticalPod(preemptor) && !isCriticalPod(preemptee)) return true;
  if (preemptor.spec.priority !== undefined && preemptee.spec.priority !== undefined)
    return preemptor.spec.priority > preemptee.spec.priority;
  return false;
}

/**
 * The kubelet's getPodsToPreempt (pkg/kubelet/preemption/preemption.go): for
 * each resource short (its requested minus what is free), the preemptable
 * pods that free it, BestEffort before Burstable before Guaranteed, each
 * class by least distance to what is still missing. The error is the
 * kubelet's text when no set of pods frees enough.
 */
export function podsToPreempt(
  pod: Pod,
  active: Pod[],
  short: { resource: Resource; requested: number; used: number; capacity: number }[],
): { pods: Pod[] } | { error: string } {
  const requirements = short.map((r) => ({ resource: r.resource, quantity: r.requested - (r.capacity - r.used) }));
  const byQos = { BestEffort: [] as Pod[], Burstable: [] as Pod[], Guaranteed: [] as Pod[] };
  for (const p of active) if (preemptable(pod, p)) byQos[qosClassOf(p)].push(p);
  const { BestEffort: bestEffort, Burstable: burstable, Guaranteed: guaranteed } = byQos;
  const unmet = subtract(requirements, [...bestEffort, ...burstable, ...guaranteed]);
  if (unmet.length > 0) return { error: `no set of running pods found to reclaim resources: ${toString(unmet)}` };
  const g = byDistance(guaranteed, subtract(requirements, [...bestEffort, ...burstable]));
  if ('error' in g) return g;
  const b = byDistance(burstable, subtract(requirements, [...bestEffort, ...g.pods]));
  if ('error' in b) return b;
  const be = byDistance(bestEffort, subtract(requirements, [...b.pods, ...g.pods]));
  if ('error' in be) return be;
  return { pods: [...be.pods, ...b.pods, ...g.pods] };
}

function byDistance(candidates: Pod[], requirements: Requirement[]): { pods: Pod[] } | { error: string } {
  const pods = [...candidates];
  const chosen: Pod[] = [];
  while (requirements.length > 0) {
    if (pods.length === 0) return { error: `no set of running pods found to reclaim resources: ${toString(requirements)}` };
    let best = requirements.length + 1;
    let index = 0;
    pods.forEach((p, i) => {
      const d = distance(requirements, p);
      if (d < best || (d === best && smallerRequest(p, pods[index]))) {
        best = d;
        index = i;
      }
    });
    requirements = subtract(requirements, [pods[index]]);
    chosen.push(pods[index]);
    pods[index] = pods[pods.length - 1];
    pods.pop();
  }
  return { pods: chosen };
}

function distance(requirements: Requirement[], pod: Pod): number {
  let d = 0;
  for (const r of requirements) {
    const remaining = r.quantity - podRequest(pod, r.resource);
    if (remaining > 0) d += (remaining / r.quantity) ** 2;
  }
  return d;
}

function subtract(requirements: Requirement[], pods: Pod[]): Requirement[] {
  const left: Requirement[] = [];
  for (const r of requirements) {
    let quantity = r.quantity;
    for (const p of pods) {
      quantity -= podRequest(p, r.resource);
      if (quantity <= 0) break;
    }
    if (quantity > 0) left.push({ resource: r.resource, quantity });
  }
  return left;
}

/** smallerResourceRequest: memory first, then CPU. */
function smallerRequest(a: Pod, b: Pod): boolean {
  for (const resource of ['memory', 'cpu'] as const) {
    const [ra, rb] = [podRequest(a, resource), podRequest(b, resource)];
    if (ra !== rb) return ra < rb;
  }
  return true;
}

/** admissionRequirementList.toString: `[(res: cpu, q: 1000), ]`. */
function toString(requirements: Requirement[]): string {
  return `[${requirements.map((r) => `(res: ${r.resource}, q: ${r.quantity}), `).join('')}]`;
}
