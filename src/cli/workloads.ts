import { LocalWorkloads } from '../controllers/index.js';
import type { Pod } from '../engine/api/v1.js';
import type { KubeletConfiguration } from '../engine/config/kubelet-config.js';
import type { EventStream } from '../engine/events.js';
import { nodeLabels } from '../engine/sync-handler.js';
import { nodeAllocatable } from '../engine/admission.js';
import { pressureTaints, type PressureCondition } from '../engine/eviction/thresholds.js';
import { rootPaths } from '../util/paths.js';

/** The local controllers of a standalone node, their objects saved under the root dir (a node in a cluster has none). */
export function localWorkloads(config: KubeletConfiguration, rootDir: string): LocalWorkloads {
  return new LocalWorkloads({
    nodeName: config.nodeName,
    nodeLabels: { ...nodeLabels(config.nodeName), ...config.nodeLabels },
    allocatable: nodeAllocatable(config.maxPods),
    file: rootPaths(rootDir).objects,
    claimsDir: rootPaths(rootDir).claims,
  });
}

/**
 * Starts the controllers, their events reported on the node's stream; the
 * scheduler sees the node's pressure taints (and tries again when they
 * change) and counts the static pods' requests beside its own pods'.
 */
export function startWorkloads(
  workloads: LocalWorkloads,
  events: EventStream,
  node: { pressure: () => readonly PressureCondition[]; staticPods: () => Pod[] },
): void {
  events.subscribe((e) => {
    if (e.type === 'NodePressureChanged') workloads.nodeChanged();
  });
  workloads.start(
    ({ object, type, reason, message }) =>
      events.emit({
        type: 'WorkloadEvent',
        pod: '',
        uid: object.metadata.uid ?? '',
        reason,
        message: `${object.kind.toLowerCase()}/${object.metadata.name}: ${message}`,
        detail: { kind: object.kind, namespace: object.metadata.namespace ?? '', name: object.metadata.name ?? '', eventType: type },
      }),
    { taints: () => pressureTaints(node.pressure()), otherPods: node.staticPods },
  );
}
