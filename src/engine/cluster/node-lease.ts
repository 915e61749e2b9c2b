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

  constructor(private readonly d: NodeLeaseDeps) {}

  get renewInterval(): number {
    return (this.d.durationSeconds * 1000) / 4;
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
    this.timer = this.d.clock.setTimeout(() => {
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
      const message = `renewing lease ${NODE_LEASE_NAMESPACE}/${this.d.nodeName}: ${(err as Error).message}`;
      if (message !== this.lastWarning) this.d.warn(message);
      this.lastWarning = message;
      this.schedule(Math.min(this.retry.next(), this.renewInterval));
    }
  }

  private async write(): Promise<Lease> {
    const now = microTime(this.d.clock.now());
    if (!this.lease) {
      try {
        this.lease = await this.d.client.getLease(NODE_LEASE_NAMESPACE, this.d.nodeName);
      } catch (err) {
        if (!ClusterError.notFound(err)) throw err;
        return this.d.client.createLease(this.desired(undefined, now));
      }
    }
    return this.d.client.updateLease(this.desired(this.lease, now));
  }

  private desired(existing: Lease | undefined, now: string): Lease {
    const uid = this.d.nodeUid();
    const owned = existing?.metadata.ownerReferences?.length
      ? existing.metadata.ownerReferences
      : uid
        ? [{ apiVersion: 'v1', kind: 'Node', name: this.d.nodeName, uid }]
        : undefined;
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        ...existing?.metadata,
        name: this.d.nodeName,
        namespace: NODE_LEASE_NAMESPACE,
        ...(owned ? { ownerReferences: owned } : {}),
      },
      spec: {
        holderIdentity: this.d.nodeName,
        leaseDurationSeconds: this.d.durationSeconds,
        // A MicroTime needs its six digits; what came back through client-node has three.
        acquireTime: existing?.spec.acquireTime ? microTime(Date.parse(existing.spec.acquireTime)) : now,
        renewTime: now,
      },
    };
  }
}
