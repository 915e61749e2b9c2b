import { cpus, totalmem } from 'node:os';
import type { Pod } from './api/v1.js';

export interface NodeAllocatable {
  /** Millicores. */
  cpu: number;
  /** Bytes. */
  memory: number;
  pods: number;
}

export function nodeAllocatable(maxPods: number): NodeAllocatable {
  return { cpu: cpus().length * 1000, memory: totalmem(), pods: maxPods };
}

export interface AdmitResult {
  admit: boolean;
  reason?: string;
  message?: string;
}

/**
 * The kubelet's admission: a pod fits when the node's pod count, CPU and
 * memory requests and host ports leave room for it beside the pods already
 * admitted, and when it asks for this node's OS.
 */
export function canAdmitPod(pod: Pod, active: Pod[], node: NodeAllocatable): AdmitResult {
  const os = pod.spec.os?.name ?? pod.spec.nodeSelector?.['kubernetes.io/os'];
  if (os && os !== 'linux') {
    return { admit: false, reason: 'PodOSNotSupported', message: `Failed to admit pod as the OS field "${os}" does not match node OS "linux"` };
  }
  if (active.length + 1 > node.pods) {
    return { admit: false, reason: 'OutOfpods', message: `Node didn't have enough resource: pods, requested: 1, used: ${active.length}, capacity: ${node.pods}` };
  }
  for (const [resource, capacity, parse] of [
    ['cpu', node.cpu, parseCpu],
    ['memory', node.memory, parseMemory],
  ] as const) {
    const requested = podRequest(pod, resource, parse);
    if (requested === 0) continue;
    const used = active.reduce((sum, p) => sum + podRequest(p, resource, parse), 0);
    if (used + requested > capacity) {
      return { admit: false, reason: `OutOf${resource}`, message: `Node didn't have enough resource: ${resource}, requested: ${requested}, used: ${used}, capacity: ${capacity}` };
    }
  }
  const taken = new Set(active.flatMap(hostPorts));
  const clash = hostPorts(pod).find((p) => taken.has(p));
  if (clash) {
    return { admit: false, reason: 'NodePorts', message: `Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports (${clash})` };
  }
  return { admit: true };
}

function hostPorts(pod: Pod): string[] {
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers].flatMap((c) =>
    (c.ports ?? []).filter((p) => p.hostPort).map((p) => `${p.protocol ?? 'TCP'}/${p.hostIP || '0.0.0.0'}:${p.hostPort}`),
  );
}

/** A pod's effective request: the sum of its containers, or the largest init container if that is more. */
function podRequest(pod: Pod, resource: string, parse: (q: string | number) => number): number {
  const sum = pod.spec.containers.reduce((s, c) => s + parse(c.resources?.requests?.[resource] ?? c.resources?.limits?.[resource] ?? 0), 0);
  const init = Math.max(0, ...(pod.spec.initContainers ?? []).map((c) => parse(c.resources?.requests?.[resource] ?? c.resources?.limits?.[resource] ?? 0)));
  return Math.max(sum, init);
}

/** CPU quantity in millicores ("500m", "1.5", 2). */
export function parseCpu(q: string | number): number {
  if (typeof q === 'number') return Math.round(q * 1000);
  if (q.endsWith('m')) return Number(q.slice(0, -1)) || 0;
  return Math.round((Number(q) || 0) * 1000);
}

const MEMORY_SUFFIXES: Record<string, number> = {
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
  k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18, m: 1e-3,
};

/** Memory quantity in bytes ("64Mi", "1G", 1024, "1e3"). */
export function parseMemory(q: string | number): number {
  if (typeof q === 'number') return q;
  const match = /^([0-9.]+(?:e[0-9]+)?)([A-Za-z]*)$/.exec(q.trim());
  if (!match) return 0;
  const factor = match[2] === '' ? 1 : MEMORY_SUFFIXES[match[2]];
  return factor === undefined ? 0 : Math.round(Number(match[1]) * factor);
}
