import { cpus, totalmem } from 'node:os';
import type { Pod } from './api/v1.js';
import { parseCpu, parseMemory } from './api/quantity.js';

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
    return {
      admit: false,
      reason: 'PodOSNotSupported',
      message: `Failed to admit pod as the OS field "${os}" does not match node OS "linux"`,
    };
  }
  const mismatch = Object.entries(pod.spec.nodeSelector ?? {}).find(([key, value]) => nodeLabels[key] !== value);
  if (mismatch) {
    return {
      admit: false,
      reason: 'NodeAffinity',
      message: `Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector (${mismatch[0]}=${mismatch[1]})`,
    };
  }
  if (active.length + 1 > node.pods) {
    return {
      admit: false,
      reason: 'OutOfpods',
      message: `Node didn't have enough resource: pods, requested: 1, used: ${active.length}, capacity: ${node.pods}`,
    };
  }
  for (const [resource, capacity, parse] of [
    ['cpu', node.cpu, parseCpu],
    ['memory', node.memory, parseMemory],
  ] as const) {
    const requested = podRequest(pod, resource, parse);
    if (requested === 0) continue;
    const used = active.reduce((sum, p) => sum + podRequest(p, resource, parse), 0);
    if (used + requested > capacity) {
      return {
        admit: false,
        reason: `OutOf${resource}`,
        message: `Node didn't have enough resource: ${resource}, requested: ${requested}, used: ${used}, capacity: ${capacity}`,
      };
    }
  }
  const taken = active.flatMap(hostPorts);
  const clash = hostPorts(pod).find((p) => taken.some((t) => portsConflict(p, t)));
  if (clash) {
    return {
      admit: false,
      reason: 'NodePorts',
      message: `Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports (${clash.protocol} ${clash.ip}:${clash.port})`,
    };
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
  const init = Math.max(
    0,
    ...(pod.spec.initContainers ?? []).map((c) => parse(c.resources?.requests?.[resource] ?? c.resources?.limits?.[resource] ?? 0)),
  );
  return Math.max(sum, init);
}

export { parseCpu, parseMemory };
