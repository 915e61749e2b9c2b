import { isDeepStrictEqual } from 'node:util';
import { RetryDelay } from '../../util/backoff.js';
import type { Clock, Timer } from '../../util/clock.js';
import { rfc3339 } from '../api/v1.js';
import type { Node, NodeCondition, NodeStatus, Taint } from '../api/cluster.js';
import type { EventStream } from '../events.js';
import { ClusterError, type ClusterClient } from './client.js';
import { addresses, capacity, pressureConditions, readyCondition, systemInfo } from './node-info.js';

export interface NodeStatusDeps {
  client: ClusterClient;
  clock: Clock;
  events: EventStream;
  nodeName: string;
  labels: Record<string, string>;
  /** Taints a new Node is registered with (registerWithTaints). */
  taints?: Taint[];
  maxPods: number;
  rootDir: string;
  hostIP: string;
  /** The kubelet API's port, announced in daemonEndpoints. */
  kubeletPort: number;
  knodeVersion: string;
  runtime: () => { name: string; version: string };
  /** Why the node is not ready ([] when it is): runtime down, PLEG not relisting. */
  problems: () => string[];
  /** The runtime's conditions of its own (ContainerSandboxReady), shown as node conditions of the same type. */
  runtimeConditions?: () => { type: string; status: boolean; reason: string; message: string }[];
  /** The pressure conditions the eviction manager reports as True. */
  pressure?: () => readonly string[];
  /** How often the status is computed (nodeStatusUpdateFrequency, 10 s). */
  updateFrequency: number;
  /** How often it is written even when nothing changed (nodeStatusReportFrequency, 5 min). */
  reportFrequency: number;
  warn: (message: string) => void;
}

/**
 * The node's Node object, as the kubelet keeps it: registered at start (an
 * existing Node of the same name is adopted, its labels brought up to date),
 * then its status computed every 10 s and patched when it changed or every
 * 5 minutes, and at once when the runtime goes down or comes back. Ready is
 * False, with the reason, while the runtime does not answer or the PLEG is
 * stuck.
 */
export class NodeStatusManager {
  private node: Node | undefined;
  private lastReport = 0;
  private lastStatus: NodeStatus | undefined;
  private timer: Timer | undefined;
  private unsubscribe: (() => void) | undefined;
  private updating: Promise<void> | undefined;
  private readonly abort = new AbortController();
  private registered: Promise<void> | undefined;
  private lastReadyStatus: string | undefined;

  constructor(private readonly deps: NodeStatusDeps) {}

  /** The registered Node's UID (mirror pods and the Lease are owned by it). */
  get uid(): string | undefined {
    return this.node?.metadata.uid;
  }

  /** Starts registering (retried until it works) and then updating; does not wait for the apiserver. */
  start(): void {
    this.registered = this.register().then(() => {
      this.timer = this.deps.clock.setInterval(() => void this.update(), this.deps.updateFrequency);
      this.unsubscribe = this.deps.events.subscribe((e) => {
        if (['RuntimeUnhealthy', 'RuntimeHealthy', 'RuntimeConditionChanged', 'PLEGUnhealthy', 'PLEGHealthy'].includes(e.type))
          void this.update();
      });
    });
    this.registered.catch(() => {});
  }

  /** Resolves once the Node is registered. */
  async waitRegistered(): Promise<void> {
    await this.registered;
  }

  async stop(): Promise<void> {
    this.abort.abort();
    this.timer?.cancel();
    this.unsubscribe?.();
    await this.updating;
  }

  /** Computes the status now and patches it if it changed (or is due). */
  async update(): Promise<void> {
    if (!this.node || this.abort.signal.aborted) return;
    if (this.updating) return this.updating;
    this.updating = this.patchStatus().finally(() => (this.updating = undefined));
    return this.updating;
  }

  private async register(): Promise<void> {
    // The kubelet's registration retry: 100 ms doubling to 7 s.
    const retry = new RetryDelay(100, 7_000);
    let lastWarning = '';
    for (;;) {
      try {
        this.node = await this.tryRegister();
        this.lastStatus = this.node.status;
        this.lastReadyStatus = this.node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
        this.lastReport = this.deps.clock.now();
        this.deps.events.emit({
          type: 'NodeRegistered',
          pod: '',
          uid: '',
          message: `node ${this.deps.nodeName} registered with ${this.deps.client.server}`,
          detail: { uid: this.node.metadata.uid ?? '' },
        });
        return;
      } catch (err) {
        const message = `registering node ${this.deps.nodeName}: ${(err as Error).message}`;
        if (message !== lastWarning) this.deps.warn(message);
        lastWarning = message;
      }
      await this.deps.clock.sleep(retry.next(), this.abort.signal);
    }
  }

  private async tryRegister(): Promise<Node> {
    const status = this.computeStatus(undefined);
    const node: Node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: this.deps.nodeName,
        labels: this.deps.labels,
        annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
      },
      spec: this.deps.taints?.length ? { taints: this.deps.taints } : {},
      status,
    };
    try {
      return await this.deps.client.createNode(node);
    } catch (err) {
      if (!ClusterError.conflict(err)) throw err;
    }
    // The Node is there from an earlier run (or another kubelet): adopt it, with our labels.
    const existing = await this.deps.client.getNode(this.deps.nodeName);
    const missing = Object.entries(this.deps.labels).filter(([k, v]) => existing.metadata.labels?.[k] !== v);
    if (missing.length === 0) return existing;
    return this.deps.client.patchNode(this.deps.nodeName, { metadata: { labels: Object.fromEntries(missing) } });
  }

  private async patchStatus(): Promise<void> {
    const now = this.deps.clock.now();
    const status = this.computeStatus(this.lastStatus);
    const changed = !isDeepStrictEqual(withoutHeartbeats(status), withoutHeartbeats(this.lastStatus));
    if (!changed && now - this.lastReport < this.deps.reportFrequency) return;
    try {
      this.node = await this.deps.client.patchNodeStatus(this.deps.nodeName, { status });
      this.lastStatus = status;
      this.lastReport = now;
      const ready = status.conditions?.find((c) => c.type === 'Ready');
      const before = this.lastReadyStatus;
      this.lastReadyStatus = ready?.status;
      if (before !== undefined && before !== ready?.status) {
        this.deps.events.emit({
          type: 'NodeReadyChanged',
          pod: '',
          uid: '',
          reason: ready?.reason,
          message: `node ${this.deps.nodeName} Ready=${ready?.status}: ${ready?.message ?? ''}`,
        });
      }
    } catch (err) {
      this.deps.warn(`updating the status of node ${this.deps.nodeName}: ${(err as Error).message}`);
      if (ClusterError.notFound(err)) {
        // Someone deleted the Node: register it again, as the kubelet does on restart.
        this.node = await this.tryRegister().catch(() => undefined);
      }
    }
  }

  private computeStatus(previous: NodeStatus | undefined): NodeStatus {
    const now = rfc3339(this.deps.clock.now());
    const runtime = this.deps.runtime();
    const fromRuntime = (this.deps.runtimeConditions?.() ?? []).map((c) => ({
      type: c.type,
      status: c.status ? ('True' as const) : ('False' as const),
      reason: c.reason || c.type,
      message: c.message,
    }));
    const conditions = [...pressureConditions(this.deps.pressure?.() ?? []), readyCondition(this.deps.problems()), ...fromRuntime].map(
      (c): NodeCondition => {
        const before = previous?.conditions?.find((p) => p.type === c.type);
        const transition = before && before.status === c.status ? (before.lastTransitionTime ?? now) : now;
        return { ...c, lastHeartbeatTime: now, lastTransitionTime: transition };
      },
    );
    const cap = capacity(this.deps.maxPods, this.deps.rootDir);
    return {
      capacity: cap,
      allocatable: cap,
      conditions,
      addresses: addresses(this.deps.hostIP),
      daemonEndpoints: { kubeletEndpoint: { Port: this.deps.kubeletPort } },
      nodeInfo: systemInfo(runtime.name, runtime.version, this.deps.knodeVersion),
    };
  }
}

function withoutHeartbeats(status: NodeStatus | undefined): unknown {
  return status && { ...status, conditions: status.conditions?.map((c) => ({ ...c, lastHeartbeatTime: undefined })) };
}
