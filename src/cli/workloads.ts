import { LocalWorkloads } from '../controllers/index.js';
import type { Pod } from '../engine/api/v1.js';
import type { KubeletConfiguration } from '../engine/config/kubelet-config.js';
import type { EventStream } from '../engine/events.js';
import { nodeLabels } from '../engine/sync-handler.js';
import { nodeAllocatable } from '../engine/admission.js';
import { pressureTaints, type PressureCondition } from '../engine/eviction/thresholds.js';
import type { KubeObject } from '../engine/api/workloads.js';
import { workloadRow } from '../ui/workload-table.js';
import { rootPaths } from '../util/paths.js';

/** The kinds whose rows the faces show, as `kubectl get all` lists them. */
const SHOWN_KINDS = ['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob'];

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

/** The taint a node carries until its conditions are known (the node lifecycle controller's, for a node not yet Ready). */
const NOT_READY_TAINT = { key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' as const };

/**
 * Starts the controllers, their events reported on the node's stream; the
 * scheduler sees the node's pressure taints (and tries again when they
 * change) and counts the static pods' requests beside its own pods'. Until
 * PRESSURE_KNOWN resolves (the eviction manager's first look at the node)
 * the node is tainted not-ready, so no pod is placed on a node whose
 * pressure is not known yet, as no pod is placed on a new node in a cluster
 * before its first status.
 */
export function startWorkloads(
  workloads: LocalWorkloads,
  events: EventStream,
  node: { pressure: () => readonly PressureCondition[]; staticPods: () => Pod[]; pressureKnown?: Promise<void> },
): { announce(): void } {
  const rows = reportRows(workloads, events);
  events.subscribe((e) => {
    if (e.type === 'NodePressureChanged') workloads.nodeChanged();
  });
  let known = !node.pressureKnown;
  void node.pressureKnown?.then(() => {
    known = true;
    workloads.nodeChanged();
  });
  const taints = () => (known ? pressureTaints(node.pressure()) : [NOT_READY_TAINT, ...pressureTaints(node.pressure())]);
  workloads.start(
    ({ object, type, reason, message }) =>
      events.emit({
        type: 'WorkloadEvent',
        pod: '',
        uid: object.metadata.uid ?? '',
        reason,
        message,
        detail: { kind: object.kind, namespace: object.metadata.namespace ?? '', name: object.metadata.name ?? '', eventType: type },
      }),
    { taints, otherPods: node.staticPods },
  );
  return rows;
}

/**
 * Each workload's row, as a WorkloadStatus event when it changes (a
 * ReplicaSet of a Deployment is shown through its Deployment). `announce`
 * says every row again, for a face that subscribes after the start.
 */
function reportRows(workloads: LocalWorkloads, events: EventStream): { announce(): void } {
  const sent = new Map<string, string>();
  const report = (object: KubeObject, deleted: boolean, again = false) => {
    if (!SHOWN_KINDS.includes(object.kind) || (object.kind === 'ReplicaSet' && object.metadata.ownerReferences?.some((r) => r.controller)))
      return;
    const row = workloadRow(object, Date.now());
    if (!row) return;
    const { namespace = '', name = '', uid = '' } = object.metadata;
    const key = `${object.kind}/${namespace}/${name}`;
    const text = deleted ? '' : JSON.stringify(row.cells);
    if (!again && sent.get(key) === text) return;
    if (deleted) sent.delete(key);
    else sent.set(key, text);
    const message = deleted ? 'deleted' : row.cells.map(([c, v]) => `${c} ${v}`).join(', ');
    events.emit({
      type: 'WorkloadStatus',
      pod: '',
      uid,
      message,
      detail: { kind: object.kind, namespace, name, resource: row.resource, cells: row.cells, ...(deleted ? { deleted } : {}) },
    });
  };
  workloads.store.watch(({ type, object }) => report(object, type === 'DELETED'), { shared: true });
  return {
    announce: () => {
      for (const kind of SHOWN_KINDS) for (const object of workloads.store.list<KubeObject>(kind)) report(object, false, true);
    },
  };
}
