import type { Clock } from '../../util/clock.js';
import type { KubeletConfiguration } from '../config/kubelet-config.js';
import type { EventStream } from '../events.js';
import type { PodManager } from '../pod-manager.js';
import type { StatusManager } from '../status/status-manager.js';
import { nodeLabels } from '../sync-handler.js';
import type { ClusterClient } from './client.js';
import { EventRecorder } from './event-recorder.js';
import { containerFieldPath } from '../kubelet-events.js';
import type { MirrorPods } from './mirror-pods.js';
import { NodeLease } from './node-lease.js';
import { NodeStatusManager, type NodeStatusDeps } from './node-status.js';
import { StatusSync, type StatusSyncDeps } from './status-sync.js';

/** The node's parts that talk to the apiserver, when it has joined one. */
export interface ClusterNode {
  client: ClusterClient;
  nodeStatus: NodeStatusManager;
  lease: NodeLease;
  mirrorPods: MirrorPods;
  statusSync: StatusSync;
  recorder: EventRecorder;
}

export interface ClusterNodeDeps {
  client: ClusterClient;
  config: KubeletConfiguration;
  clock: Clock;
  events: EventStream;
  hostIP: string;
  knodeVersion: string;
  podManager: PodManager;
  statusManager: StatusManager;
  mirrorPods: MirrorPods;
  runtime: NodeStatusDeps['runtime'];
  problems: NodeStatusDeps['problems'];
  runtimeConditions: NodeStatusDeps['runtimeConditions'];
  pressure: NodeStatusDeps['pressure'];
  isTerminated: StatusSyncDeps['isTerminated'];
  warn: (message: string) => void;
}

/** The Node object and its status, the Lease, pod statuses and events in the apiserver, for a node that joined it. */
export function clusterNode(deps: ClusterNodeDeps): ClusterNode {
  const { client, config, clock, events, warn } = deps;
  const nodeStatus = new NodeStatusManager({
    client,
    clock,
    events,
    nodeName: config.nodeName,
    labels: { ...nodeLabels(config.nodeName), ...config.nodeLabels },
    taints: config.registerWithTaints,
    maxPods: config.maxPods,
    rootDir: config.rootDir,
    hostIP: deps.hostIP,
    kubeletPort: config.port,
    knodeVersion: deps.knodeVersion,
    runtime: deps.runtime,
    problems: deps.problems,
    runtimeConditions: deps.runtimeConditions,
    pressure: deps.pressure,
    updateFrequency: config.nodeStatusUpdateFrequency,
    reportFrequency: config.nodeStatusReportFrequency,
    warn,
  });
  return {
    client,
    mirrorPods: deps.mirrorPods,
    recorder: new EventRecorder(client, clock, config.nodeName, warn, (uid, container) =>
      containerFieldPath(deps.podManager.getPodByUid(uid), container),
    ),
    nodeStatus,
    lease: new NodeLease({
      client,
      clock,
      nodeName: config.nodeName,
      durationSeconds: config.nodeLeaseDurationSeconds,
      nodeUid: () => nodeStatus.uid,
      warn,
    }),
    statusSync: new StatusSync({
      client,
      podManager: deps.podManager,
      statusManager: deps.statusManager,
      events,
      clock,
      isTerminated: deps.isTerminated,
      warn,
    }),
  };
}
