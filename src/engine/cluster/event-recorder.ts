import type { Clock } from '../../util/clock.js';
import { rfc3339 } from '../api/v1.js';
import type { Event, ObjectReference } from '../api/cluster.js';
import type { EventStream, LifecycleEvent } from '../events.js';
import { eventKey, EventSpamFilter, kubeletEvents, objectKey, type ContainerFieldPath } from '../kubelet-events.js';
import type { ClusterClient } from './client.js';

/** client-go's correlator: repeats of one event within this window only raise its count. */
const AGGREGATION_WINDOW_MS = 10 * 60_000;

interface Recorded {
  name: string;
  namespace: string;
  count: number;
  first: number;
  last: number;
}

/**
 * Kubernetes Events for what happens to the node's pods, as the kubelet's
 * event recorder posts them (source component `kubelet`, host the node): the
 * kubelet's reasons (Pulling, Pulled, Failed, BackOff, Created, Started,
 * Killing, Unhealthy, FailedMount, ...), each attached to its pod and
 * container. A repeat within 10 minutes raises the count of the first
 * instead of creating another, and a pod that floods is throttled, as
 * client-go's correlator does. Posting never blocks the engine.
 */
export class EventRecorder {
  private readonly recorded = new Map<string, Recorded>();
  private readonly spam = new EventSpamFilter();
  private queue: Promise<void> = Promise.resolve();
  private unsubscribe: (() => void) | undefined;
  private sequence = 0;

  constructor(
    private readonly client: ClusterClient,
    private readonly clock: Clock,
    private readonly nodeName: string,
    private readonly warn: (message: string) => void,
    /** The container's place in its pod's spec (init containers apart), for fieldPath. */
    private readonly fieldPath?: ContainerFieldPath,
  ) {}

  start(events: EventStream): void {
    this.unsubscribe = events.subscribe((e) => this.onLifecycleEvent(e));
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    await this.queue;
  }

  /** Waits for the posts queued so far. */
  async idle(): Promise<void> {
    await this.queue;
  }

  private onLifecycleEvent(e: LifecycleEvent): void {
    for (const r of kubeletEvents(e, this.nodeName, this.fieldPath)) this.record(r.involved, r.type, r.reason, r.message);
  }

  /** Records one event (also for the Node: kind Node, no namespace). */
  record(involved: ObjectReference, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const now = this.clock.now();
    if (!this.spam.allow(objectKey(involved), now)) return;
    const key = eventKey({ involved, type, reason, message });
    const previous = this.recorded.get(key);
    if (previous && now - previous.last < AGGREGATION_WINDOW_MS) {
      previous.count++;
      previous.last = now;
      const patch = { count: previous.count, lastTimestamp: rfc3339(now) };
      this.post(reason, involved, () => this.client.patchEvent(previous.namespace, previous.name, patch));
    } else {
      const namespace = involved.namespace || 'default';
      const name = `${involved.name}.${(now * 1e6 + this.sequence++).toString(16)}`;
      // Recorded before it is posted, so a repeat right behind it counts instead of creating another.
      this.recorded.set(key, { name, namespace, count: 1, first: now, last: now });
      const event: Event = {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: involved,
        reason,
        message,
        type,
        source: { component: 'kubelet', host: this.nodeName },
        firstTimestamp: rfc3339(now),
        lastTimestamp: rfc3339(now),
        count: 1,
        reportingComponent: 'kubelet',
        reportingInstance: this.nodeName,
      };
      this.post(
        reason,
        involved,
        () => this.client.createEvent(event),
        () => this.recorded.delete(key),
      );
    }
    this.forgetOld(now);
  }

  /** Posts in order, one at a time, off the engine's path. */
  private post(reason: string, involved: ObjectReference, send: () => Promise<unknown>, onFailure: () => void = () => {}): void {
    this.queue = this.queue.then(async () => {
      try {
        await send();
      } catch (err) {
        onFailure();
        this.warn(
          `posting event ${reason} for ${involved.kind} ${involved.namespace ? `${involved.namespace}/` : ''}${involved.name}: ${(err as Error).message}`,
        );
      }
    });
  }

  private forgetOld(now: number): void {
    if (this.recorded.size < 4096) return;
    for (const [key, r] of this.recorded) if (now - r.last >= AGGREGATION_WINDOW_MS) this.recorded.delete(key);
  }
}
