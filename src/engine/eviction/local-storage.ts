// Local ephemeral storage past its limits (upstream's localStorageEviction):
// an emptyDir over its sizeLimit, a pod over the sum of its containers'
// ephemeral-storage limits, or a container over its own limit is evicted at
// once, whatever the node's thresholds.
import { canonicalQuantity, formatByteQuantity, parseMemory } from '../api/quantity.js';
import type { Container, Pod } from '../api/v1.js';
import type { PodStats } from '../stats/types.js';

/** The containers whose limits count: regular ones and sidecars (restartable init containers). */
function limitedContainers(pod: Pod): Container[] {
  return [...pod.spec.containers, ...(pod.spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always')];
}

const limitOf = (c: Container) => c.resources?.limits?.['ephemeral-storage'];

/** Whether the pod has a limit this check enforces: only such pods' usage needs reading. */
export function hasLocalStorageLimits(pod: Pod): boolean {
  const sizeLimited = (pod.spec.volumes ?? []).some((v) => v.emptyDir?.sizeLimit !== undefined && v.emptyDir.medium !== 'Memory');
  return sizeLimited || limitedContainers(pod).some((c) => limitOf(c) !== undefined);
}

/**
 * PodLimits for ephemeral-storage: the containers' limits summed, or the
 * largest init container's if more, as bytes and as Go prints the sum (in
 * the binary units of the first limit when it has them).
 */
function podLimit(pod: Pod): { bytes: number; text: string } | undefined {
  const limits = pod.spec.containers.map(limitOf).filter((q) => q !== undefined);
  const inits = (pod.spec.initContainers ?? []).map(limitOf).filter((q) => q !== undefined);
  if (limits.length === 0 && inits.length === 0) return undefined;
  const bytes = Math.max(
    limits.reduce((n: number, q) => n + parseMemory(q), 0),
    ...inits.map((q) => parseMemory(q)),
  );
  const binary = /[KMGTPE]i$/.test(String(limits[0] ?? inits[0]));
  return { bytes, text: binary ? formatByteQuantity(bytes) : canonicalQuantity(String(bytes)) };
}

/** Why the pod is evicted for its local storage (the kubelet's message), or undefined when it is within its limits. */
export function localStorageViolation(pod: Pod, stats: PodStats): string | undefined {
  const used = new Map((stats.volume ?? []).map((v) => [v.name, v.usedBytes ?? 0]));
  for (const volume of pod.spec.volumes ?? []) {
    const limit = volume.emptyDir?.sizeLimit;
    if (limit === undefined || volume.emptyDir?.medium === 'Memory') continue;
    const size = parseMemory(limit);
    const usage = used.get(volume.name);
    if (usage !== undefined && size > 0 && usage > size)
      return `Usage of EmptyDir volume "${volume.name}" exceeds the limit "${canonicalQuantity(limit)}". `;
  }
  const total = podLimit(pod);
  if (total !== undefined && (stats['ephemeral-storage']?.usedBytes ?? 0) > total.bytes)
    return `Pod ephemeral local storage usage exceeds the total limit of containers ${total.text}. `;
  for (const container of limitedContainers(pod)) {
    const limit = limitOf(container);
    if (limit === undefined || parseMemory(limit) === 0) continue;
    const cs = stats.containers.find((c) => c.name === container.name);
    if (!cs) continue;
    const usage = (cs.logs?.usedBytes ?? 0) + (cs.rootfs?.usedBytes ?? 0);
    if (usage > parseMemory(limit))
      return `Container ${container.name} exceeded its local ephemeral storage limit "${canonicalQuantity(limit)}". `;
  }
  return undefined;
}
