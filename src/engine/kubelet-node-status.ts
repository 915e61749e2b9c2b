// What the node reports about itself: its health, its runtime's counts, and its statuses in an apiserver.
import type { ClusterClient, LocalApi } from './cluster/client.js';
import type { KubeletConfiguration } from './config/kubelet-config.js';
import type { EmittedEvent } from './events.js';
import { clusterNode, type ClusterNode, type ClusterNodeDeps } from './cluster/cluster-node.js';
import { MirrorPods } from './cluster/mirror-pods.js';
import { StatusSync } from './cluster/status-sync.js';
import type { RuntimeCounts } from './metrics.js';
import type { PodCache } from './pleg/pod-cache.js';
import type { RuntimeHealth } from './runtime-health.js';
import type { NodeHealth } from './server/host.js';

/** Whether the node is healthy: the PLEG relists and the runtime answers (the kubelet's healthz checks). */
export function nodeHealth(pleg: { healthy(): { ok: boolean; message: string } }, runtimeHealth: Pick<RuntimeHealth, 'error'>): NodeHealth {
  const reasons: string[] = [];
  const health = pleg.healthy();
  if (!health.ok) reasons.push(`PLEG is not healthy: ${health.message}`);
  if (runtimeHealth.error) reasons.push(`container runtime is down: ${runtimeHealth.error}`);
  return { ok: reasons.length === 0, reasons };
}

/** The event that says the node runs: its name, its runtime (as its Version call answered), its sources. */
export function nodeStarted(
  config: Pick<KubeletConfiguration, 'nodeName' | 'eventedPleg'>,
  runtime: { name: string; version: string },
  sources: string[],
): EmittedEvent {
  return {
    type: 'NodeStarted',
    pod: '',
    uid: '',
    message: `node ${config.nodeName} on ${runtime.name} ${runtime.version}`,
    detail: { nodeName: config.nodeName, runtimeName: runtime.name, runtimeVersion: runtime.version, sources, evented: config.eventedPleg },
  };
}

/** Running pods (a ready sandbox) and containers by state, from the pod cache. */
export function runtimeCounts(podCache: PodCache): RuntimeCounts {
  let pods = 0;
  const containers: Record<string, number> = {};
  for (const [, entry] of podCache.entries()) {
    if (entry.status.sandboxes[0]?.state === 'ready') pods++;
    for (const c of entry.status.containers) containers[c.state] = (containers[c.state] ?? 0) + 1;
  }
  return { pods, containers };
}

/** The node's parts that write to an apiserver; each is there only for the node that has one. */
export interface ApiServerParts {
  /** The mirror pods of the static pods, for a node that joined a cluster. */
  mirrorPods: MirrorPods | undefined;
  /** The Node, its Lease, pod statuses and events, for a node that joined a cluster. */
  cluster: ClusterNode | undefined;
  /** Pod statuses written to the local apiserver of a standalone node's controllers. */
  localStatus: StatusSync | undefined;
}

export interface ApiServerPartsDeps extends Omit<ClusterNodeDeps, 'client' | 'mirrorPods'> {
  /** The cluster the node joined, if any. */
  cluster: ClusterClient | undefined;
  /** A standalone node's local apiserver, if any (never beside a cluster). */
  local: LocalApi | undefined;
}

/** Builds the parts that register the node and report its pods to an apiserver (upstream kubelet_node_status.go's side of the kubelet). */
export function apiServerParts(deps: ApiServerPartsDeps): ApiServerParts {
  const { cluster: client, local, config, clock, events, podManager, statusManager, isTerminated, warn } = deps;
  let cluster: ClusterNode | undefined;
  const mirrorPods = client
    ? new MirrorPods({ client, podManager, nodeName: config.nodeName, nodeUid: () => cluster?.nodeStatus.uid, warn })
    : undefined;
  const localStatus = local ? new StatusSync({ client: local, podManager, statusManager, events, clock, isTerminated, warn }) : undefined;
  if (client && mirrorPods) cluster = clusterNode({ ...deps, client, mirrorPods });
  return { mirrorPods, cluster, localStatus };
}
