import type { LinuxContainerResources } from '../../cri/gen/runtime/v1/LinuxContainerResources.js';
import { parseCpu, parseMemory } from '../api/quantity.js';
import type { Container, Pod } from '../api/v1.js';
import { qosClassOf } from '../status/qos.js';

/** The kubelet's CFS period and its limits on shares and quota. */
const CPU_PERIOD = 100_000;
const MIN_SHARES = 2;
const MAX_SHARES = 262_144;
const MIN_QUOTA = 1_000;

/**
 * A container's Linux resources as the kubelet sends them: CPU shares from the
 * request, a CFS quota from the limit, the memory limit, and the OOM score
 * adjustment of its QoS class.
 */
export function linuxContainerResources(pod: Pod, container: Container, memoryCapacity: number): LinuxContainerResources {
  const requests = container.resources?.requests ?? {};
  const limits = container.resources?.limits ?? {};
  const cpuLimit = limits.cpu !== undefined ? parseCpu(limits.cpu) : 0;
  const cpuRequest = requests.cpu !== undefined ? parseCpu(requests.cpu) : cpuLimit;
  const memoryLimit = limits.memory !== undefined ? parseMemory(limits.memory) : 0;
  const out: LinuxContainerResources = {
    cpuShares: Math.min(MAX_SHARES, Math.max(MIN_SHARES, Math.floor((cpuRequest * 1024) / 1000))),
    memoryLimitInBytes: memoryLimit,
    oomScoreAdj: oomScoreAdjust(pod, container, memoryCapacity),
  };
  if (cpuLimit > 0) {
    out.cpuPeriod = CPU_PERIOD;
    out.cpuQuota = Math.max(MIN_QUOTA, Math.floor((cpuLimit * CPU_PERIOD) / 1000));
  }
  return out;
}

/** Guaranteed -997, BestEffort 1000, Burstable by how much of the node's memory it requests (2..999). */
export function oomScoreAdjust(pod: Pod, container: Container, memoryCapacity: number): number {
  const qos = qosClassOf(pod);
  if (qos === 'Guaranteed') return -997;
  if (qos === 'BestEffort') return 1000;
  const request = container.resources?.requests?.memory ?? container.resources?.limits?.memory;
  const requested = request !== undefined ? parseMemory(request) : 0;
  const adjust = 1000 - Math.floor((1000 * requested) / Math.max(1, memoryCapacity));
  if (adjust < 2) return 2;
  if (adjust >= 1000) return 999;
  return adjust;
}
