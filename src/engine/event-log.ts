import { randomUUID } from 'node:crypto';
import type { Clock } from '../util/clock.js';
import type { Event, ObjectReference } from './api/cluster.js';
import { rfc3339 } from './api/v1.js';
import type { EventStream } from './events.js';
import { eventKey, EventSpamFilter, kubeletEvents, objectKey, type ContainerFieldPath, type KubeletEvent } from './kubelet-events.js';

/** The apiserver's --event-ttl: an event is deleted one hour after it was last written. */
export const EVENT_TTL_MS = 60 * 60_000;
/** A bound beside the TTL, for a node whose pods flood: the oldest go first. */
const MAX_EVENTS = 5000;

/** A change to the log, as a watch of the apiserver's events reports it. */
export interface EventLogChange {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  object: Event;
}

/** Which events a list or a watch wants (the field selectors kubectl sends). */
export interface EventFilter {
  namespace?: string;
  kind?: string;
  name?: string;
  uid?: string;
}

/**
 * The node's own memory of the Kubernetes Events its kubelet records, for a
 * node with no apiserver to post them to (and beside one, for `knode events`
 * and `knode describe`): the same events as the cluster's recorder posts,
 * kept as the apiserver keeps them. A repeat of an event still kept raises
 * its count and lastTimestamp instead of adding another (client-go's
 * correlator and the apiserver's patch); an object that floods is throttled
 * as client-go's spam filter does; an event goes one hour after it was last
 * written (the apiserver's event TTL).
 */
export class EventLog {
  /** By event key (object, reason, message); Map order is the order of last writes. */
  private readonly events = new Map<string, Event>();
  private readonly listeners = new Set<(change: EventLogChange) => void>();
  private readonly spam = new EventSpamFilter();
  private unsubscribe: (() => void) | undefined;
  private sequence = 0;
  private resourceVersion = 0;

  constructor(
    private readonly clock: Clock,
    private readonly nodeName: string,
    /** The container's place in its pod's spec (init containers apart), for fieldPath. */
    private readonly fieldPath?: ContainerFieldPath,
  ) {}

  start(events: Pick<EventStream, 'subscribe'>): void {
    this.unsubscribe = events.subscribe((e) => {
      for (const recorded of kubeletEvents(e, this.nodeName, this.fieldPath)) this.record(recorded);
    });
  }

  stop(): void {
    this.unsubscribe?.();
  }

  record(e: KubeletEvent): void {
    const now = this.clock.now();
    this.expire(now);
    if (!this.spam.allow(objectKey(e.involved), now)) return;
    const key = eventKey(e);
    const previous = this.events.get(key);
    if (previous) {
      const updated: Event = {
        ...previous,
        metadata: { ...previous.metadata, resourceVersion: String(++this.resourceVersion) },
        count: (previous.count ?? 1) + 1,
        lastTimestamp: rfc3339(now),
      };
      this.events.delete(key);
      this.events.set(key, updated);
      this.notify({ type: 'MODIFIED', object: updated });
      return;
    }
    const event = this.newEvent(e, now);
    this.events.set(key, event);
    this.notify({ type: 'ADDED', object: event });
    for (const [oldest, dropped] of this.events) {
      if (this.events.size <= MAX_EVENTS) break;
      this.events.delete(oldest);
      this.notify({ type: 'DELETED', object: dropped });
    }
  }

  /** The events kept, oldest first by their last time (kubectl sorts them so too). */
  list(filter: EventFilter = {}): Event[] {
    this.expire(this.clock.now());
    return [...this.events.values()].filter((e) => matches(e.involvedObject, filter));
  }

  /** Calls `listener` with each change from now on; returns the unsubscribe. */
  watch(listener: (change: EventLogChange) => void, filter: EventFilter = {}): () => void {
    const filtered = (change: EventLogChange) => {
      if (matches(change.object.involvedObject, filter)) listener(change);
    };
    this.listeners.add(filtered);
    return () => this.listeners.delete(filtered);
  }

  private newEvent(e: KubeletEvent, now: number): Event {
    const namespace = e.involved.namespace || 'default';
    // client-go's name: the object's name, a dot, and the time in nanoseconds in hex.
    const name = `${e.involved.name}.${(now * 1e6 + this.sequence++).toString(16)}`;
    return {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name,
        namespace,
        uid: randomUUID(),
        resourceVersion: String(++this.resourceVersion),
        creationTimestamp: rfc3339(now),
      },
      involvedObject: e.involved,
      reason: e.reason,
      message: e.message,
      type: e.type,
      // A controller's events name no host, as kube-controller-manager's recorders leave it out.
      source: e.component ? { component: e.component } : { component: 'kubelet', host: this.nodeName },
      firstTimestamp: rfc3339(now),
      lastTimestamp: rfc3339(now),
      count: 1,
      reportingComponent: e.component ?? 'kubelet',
      reportingInstance: e.component ? '' : this.nodeName,
    };
  }

  /** Drops what was last written an hour ago or more (the map is in order of last writes). */
  private expire(now: number): void {
    for (const [key, e] of this.events) {
      if (now - Date.parse(e.lastTimestamp!) < EVENT_TTL_MS) break;
      this.events.delete(key);
      this.notify({ type: 'DELETED', object: e });
    }
  }

  private notify(change: EventLogChange): void {
    for (const listener of this.listeners) listener(change);
  }
}

function matches(involved: ObjectReference, filter: EventFilter): boolean {
  return (
    (!filter.namespace || (involved.namespace || 'default') === filter.namespace) &&
    (!filter.kind || involved.kind === filter.kind) &&
    (!filter.name || involved.name === filter.name) &&
    (!filter.uid || involved.uid === filter.uid)
  );
}
