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
export function canAdmitPod(pod: Pod, active: Pod[], node: NodeAllocatable, nodeLabels: Record<string, string> = {}): AdmitResult {
  const os = pod.spec.os?.name;
  if (os && os !== 'linux') {
    return { admit: false, reason: 'PodOSNotSupported', message: `Failed to admit pod as the OS field "${os}" does not match node OS "linux"` };
  }
  const mismatch = Object.entries(pod.spec.nodeSelector ?? {}).find(([key, value]) => nodeLabels[key] !== value);
  if (mismatch) {
    return { admit: false, reason: 'NodeAffinity', message: `Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector (${mismatch[0]}=${mismatch[1]})` };
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
  const taken = active.flatMap(hostPorts);
  const clash = hostPorts(pod).find((p) => taken.some((t) => portsConflict(p, t)));
  if (clash) {
    return { admit: false, reason: 'NodePorts', message: `Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports (${clash.protocol} ${clash.ip}:${clash.port})` };
  }
  return { admit: true };
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

/** A pod's effective request: the sum of its containers, or the largest init container if that is more. */
function podRequest(pod: Pod, resource: string, parse: (q: string | number) => number): number {
  const sum = pod.spec.containers.reduce((s, c) => s + parse(c.resources?.requests?.[resource] ?? c.resources?.limits?.[resource] ?? 0), 0);
  const init = Math.max(0, ...(pod.spec.initContainers ?? []).map((c) => parse(c.resources?.requests?.[resource] ?? c.resources?.limits?.[resource] ?? 0)));
  return Math.max(sum, init);
}

/** CPU quantity in millicores, rounded up as Kubernetes does ("500m", "1.5", 2, "100u" is 1m). */
export function parseCpu(q: string | number): number {
  // The epsilon keeps float noise (0.1 * 1000 = 100.00000000000001) from rounding up; || 0 turns -0 into 0.
  return Math.ceil(parseQuantity(q) * 1000 - 1e-9) || 0;
}

const SUFFIXES: Record<string, number> = {
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
  n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
};

/** A Kubernetes quantity as a number: binary and decimal suffixes, or a decimal exponent ("1e3", "1E3"). 0 when malformed. */
export function parseQuantity(q: string | number): number {
  if (typeof q === 'number') return q;
  const match = /^([+-]?[0-9]*\.?[0-9]+|[+-]?[0-9]+\.)(?:[eE]([+-]?[0-9]+)|([a-zA-Z]{1,2}))?$/.exec(q.trim());
  if (!match) return 0;
  const value = Number(match[1]);
  if (match[2] !== undefined) return value * 10 ** Number(match[2]);
  if (match[3] === undefined) return value;
  const factor = SUFFIXES[match[3]];
  return factor === undefined ? 0 : value * factor;
}

/** Memory quantity in bytes, rounded up ("64Mi", "1G", 1024, "1e3"). */
export function parseMemory(q: string | number): number {
  return Math.ceil(parseQuantity(q) - 1e-9) || 0;
}
