import { RetryDelay } from '../../util/backoff.js';
import type { Clock, Timer } from '../../util/clock.js';
import { microTime, type Lease } from '../api/cluster.js';
import { ClusterError, type ClusterClient } from './client.js';

/** Where node leases live. */
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

export interface NodeLeaseDeps {
  client: ClusterClient;
  clock: Clock;
  nodeName: string;
  /** nodeLeaseDurationSeconds (40): the lease is renewed every quarter of it. */
  durationSeconds: number;
  /** The Node's UID once registered: the Lease is owned by the Node. */
  nodeUid: () => string | undefined;
  warn: (message: string) => void;
}

/**
 * The node's heartbeat, as the kubelet's lease controller: a Lease named
 * after the node in kube-node-lease, held by the node, renewed every
 * duration/4 (10 s by default). The node lifecycle controller marks a node
 * whose lease has not been renewed for its grace period NotReady.
 */
export class NodeLease {
  private lease: Lease | undefined;
  private timer: Timer | undefined;
  private stopped = false;
  private renewing: Promise<void> | undefined;
  /** The lease controller's retry after a failed renewal: 200 ms doubling to 7 s (at most the renew interval). */
  private readonly retry = new RetryDelay(200, 7_000);
  private lastWarning = '';
  /** Renewals that reached the apiserver (for tests and metrics). */
  renewals = 0;

  constructor(private readonly deps: NodeLeaseDeps) {}

  get renewInterval(): number {
    return (this.deps.durationSeconds * 1000) / 4;
  }

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await this.renewing;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = this.deps.clock.setTimeout(() => {
      this.renewing = this.renew().finally(() => (this.renewing = undefined));
    }, ms);
  }

  private async renew(): Promise<void> {
    try {
      this.lease = await this.write();
      this.renewals++;
      this.retry.reset();
      this.lastWarning = '';
      this.schedule(this.renewInterval);
    } catch (err) {
      this.lease = undefined; // read it again next time (a conflict means someone else wrote it)
      const message = `renewing lease ${NODE_LEASE_NAMESPACE}/${this.deps.nodeName}: ${(err as Error).message}`;
      if (message !== this.lastWarning) this.deps.warn(message);
      this.lastWarning = message;
      this.schedule(Math.min(this.retry.next(), this.renewInterval));
    }
  }

  private async write(): Promise<Lease> {
    const now = microTime(this.deps.clock.now());
    if (!this.lease) {
      try {
        this.lease = await this.deps.client.getLease(NODE_LEASE_NAMESPACE, this.deps.nodeName);
      } catch (err) {
        if (!ClusterError.notFound(err)) throw err;
        return this.deps.client.createLease(this.desired(undefined, now));
      }
    }
    return this.deps.client.updateLease(this.desired(this.lease, now));
  }

  private desired(existing: Lease | undefined, now: string): Lease {
    const uid = this.deps.nodeUid();
    const owned = existing?.metadata.ownerReferences?.length
      ? existing.metadata.ownerReferences
      : uid
        ? [{ apiVersion: 'v1', kind: 'Node', name: this.deps.nodeName, uid }]
        : undefined;
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        ...existing?.metadata,
        name: this.deps.nodeName,
        namespace: NODE_LEASE_NAMESPACE,
        ...(owned ? { ownerReferences: owned } : {}),
      },
      spec: {
        holderIdentity: this.deps.nodeName,
        leaseDurationSeconds: this.deps.durationSeconds,
        // Written back with a MicroTime's six digits, whatever precision it was read with.
        acquireTime: existing?.spec.acquireTime ? microTime(Date.parse(existing.spec.acquireTime)) : now,
        renewTime: now,
      },
    };
  }
}
