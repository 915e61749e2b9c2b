import { statfsSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import type { Pod } from './api/v1.js';
import { parseCpu, parseMemory } from './api/quantity.js';
import { matchesRequiredNodeAffinity } from './node-affinity.js';
import { isCriticalPod, podsToPreempt } from './preemption.js';
import { podRequest } from './resource-request.js';

export interface NodeAllocatable {
  /** Millicores. */
  cpu: number;
  /** Bytes. */
  memory: number;
  pods: number;
  /** Bytes of the filesystem holding the root dir (its capacity, as the node reports it); undefined: not checked. */
  'ephemeral-storage'?: number;
}

/** What the node can hold; with ROOT_DIR, ephemeral storage too (the capacity of its filesystem). */
export function nodeAllocatable(maxPods: number, rootDir?: string): NodeAllocatable {
  const out: NodeAllocatable = { cpu: cpus().length * 1000, memory: totalmem(), pods: maxPods };
  if (rootDir !== undefined) {
    try {
      const fs = statfsSync(rootDir);
      out['ephemeral-storage'] = fs.blocks * fs.bsize;
    } catch {
      // no such dir yet: ephemeral storage is not checked
    }
  }
  return out;
}

export interface AdmitResult {
  admit: boolean;
  reason?: string;
  message?: string;
  /** Admitted as a critical pod once these pods are preempted (the kubelet's CriticalPodAdmissionHandler). */
  preempt?: Pod[];
}

/** A reason the kubelet's generalFilter gives: a resource short (InsufficientResourceError) or a predicate failed. */
export type FailureReason =
  | { kind: 'resource'; resource: 'pods' | 'cpu' | 'memory' | 'ephemeral-storage'; requested: number; used: number; capacity: number }
  | { kind: 'predicate'; name: string; desc: string };

/**
 * The kubelet's predicate admit handler (pkg/kubelet/lifecycle/predicate.go),
 * in its order and with its words: the pod's `kubernetes.io/os` label, its
 * OS field, then every general filter at once (room for one more pod, CPU
 * and memory requests, required node affinity and nodeSelector, host
 * ports), the first failure reported. A critical pod (static, mirror or
 * system-critical priority) short of resources alone goes through the
 * preemption path instead (preemption.ts).
 */
export function canAdmitPod(
  pod: Pod,
  active: Pod[],
  node: NodeAllocatable,
  nodeLabels: Record<string, string> = {},
  nodeName = '',
): AdmitResult {
  const osLabel = pod.metadata.labels?.['kubernetes.io/os'];
  if (osLabel !== undefined && osLabel !== 'linux') {
    return {
      admit: false,
      reason: 'PodOSSelectorNodeLabelDoesNotMatch',
      message: "Failed to admit pod as the `kubernetes.io/os` label doesn't match node label",
    };
  }
  if (pod.spec.os && pod.spec.os.name !== 'linux') {
    return { admit: false, reason: 'PodOSNotSupported', message: "Failed to admit pod as the OS field doesn't match node OS" };
  }
  let reasons = generalFilter(pod, active, node, nodeLabels, nodeName);
  if (reasons.length === 0) return { admit: true };
  if (isCriticalPod(pod)) {
    const others = reasons.filter((r) => r.kind !== 'resource');
    if (others.length === 0) {
      const outcome = podsToPreempt(pod, active, reasons as Extract<FailureReason, { kind: 'resource' }>[]);
      if ('error' in outcome)
        return {
          admit: false,
          reason: 'UnexpectedAdmissionError',
          message: `Unexpected error while attempting to recover from admission failure: preemption: error finding a set of pods to preempt: ${outcome.error}`,
        };
      return { admit: true, preempt: outcome.pods };
    }
    reasons = others;
  }
  const first = reasons[0];
  if (first.kind === 'predicate') return { admit: false, reason: first.name, message: `Predicate ${first.name} failed: ${first.desc}` };
  return {
    admit: false,
    reason: `OutOf${first.resource}`,
    message: `Node didn't have enough resource: ${first.resource}, requested: ${first.requested}, used: ${first.used}, capacity: ${first.capacity}`,
  };
}

/** scheduler.AdmissionCheck with every failure: resources (pods, cpu, memory, ephemeral-storage), NodeAffinity, NodePorts. */
function generalFilter(pod: Pod, active: Pod[], node: NodeAllocatable, labels: Record<string, string>, nodeName: string): FailureReason[] {
  const reasons: FailureReason[] = [];
  if (active.length + 1 > node.pods)
    reasons.push({ kind: 'resource', resource: 'pods', requested: 1, used: active.length, capacity: node.pods });
  for (const resource of ['cpu', 'memory', 'ephemeral-storage'] as const) {
    const capacity = node[resource];
    const requested = podRequest(pod, resource);
    if (requested === 0 || capacity === undefined) continue;
    const used = active.reduce((sum, p) => sum + podRequest(p, resource), 0);
    if (used + requested > capacity) reasons.push({ kind: 'resource', resource, requested, used, capacity });
  }
  if (!matchesRequiredNodeAffinity(pod, labels, nodeName))
    reasons.push({ kind: 'predicate', name: 'NodeAffinity', desc: "node(s) didn't match Pod's node affinity/selector" });
  // The active pods' ports are gathered only for a pod that asks for one: most ask for none.
  const wanted = hostPorts(pod);
  const taken = wanted.length > 0 ? active.flatMap(hostPorts) : [];
  if (wanted.some((p) => taken.some((t) => portsConflict(p, t))))
    reasons.push({ kind: 'predicate', name: 'NodePorts', desc: "node(s) didn't have free ports for the requested pod ports" });
  return reasons;
}

interface HostPort {
  protocol: string;
  ip: string;
  port: number;
}

function hostPorts(pod: Pod): HostPort[] {
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers].flatMap((c) =>
    (c.ports ?? []).filter((p) => p.hostPort).map((p) => ({ protocol: p.protocol ?? 'TCP', ip: p.hostIP || '0.0.0.0', port: p.hostPort! })),
  );
}

/** Same protocol and port, and the same IP or either one the wildcard 0.0.0.0. */
function portsConflict(a: HostPort, b: HostPort): boolean {
  return a.protocol === b.protocol && a.port === b.port && (a.ip === b.ip || a.ip === '0.0.0.0' || b.ip === '0.0.0.0');
}

export { parseCpu, parseMemory };
