// The object store's changes: one resourceVersion counter, the recent
// changes a watch resumes from, and the watchers told of each one.
import type { KubeObject } from '../engine/api/workloads.js';

export type StoreEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: StoreEventType;
  object: KubeObject;
  resourceVersion: number;
}

/** How many changes a watch can resume from; an older resourceVersion gets 410 Gone, as from etcd after compaction. */
const HISTORY = 5_000;

export class ChangeLog {
  private readonly history: StoreEvent[] = [];
  /** Shared: the listener sees the store's own object, which it must neither change nor keep (it reads kinds, names and owners). */
  private readonly watchers = new Set<{ listener: (event: StoreEvent) => void; shared: boolean }>();
  private last = 0;

  /** The resourceVersion of the last change. */
  get version(): number {
    return this.last;
  }

  /** Counts on from VERSION (saved objects loaded), unless it counted further already. */
  startAt(version: number): void {
    this.last = Math.max(this.last, version);
  }

  /**
   * Calls LISTENER with every change from now on, each with a copy of the object (with `shared`, the
   * store's own, which the listener must neither change nor keep); returns the unsubscribe.
   */
  watch(listener: (event: StoreEvent) => void, options: { shared?: boolean } = {}): () => void {
    const entry = { listener, shared: options.shared === true };
    this.watchers.add(entry);
    return () => this.watchers.delete(entry);
  }

  /** The changes after VERSION, or undefined when they are no longer kept (410 Gone). */
  changesSince(version: number): StoreEvent[] | undefined {
    if (version > this.last) return [];
    const first = this.history[0]?.resourceVersion ?? this.last + 1;
    if (version < first - 1 && version !== this.last) return undefined;
    return this.history.filter((e) => e.resourceVersion > version);
  }

  /** A change of O: its resourceVersion is the next one, it is kept for the watches that resume, and the watchers are told. */
  record(type: StoreEventType, o: KubeObject): void {
    this.last++;
    o.metadata.resourceVersion = String(this.last);
    const event: StoreEvent = { type, object: o, resourceVersion: this.last };
    this.history.push(event);
    if (this.history.length > HISTORY) this.history.splice(0, this.history.length - HISTORY);
    for (const { listener, shared } of [...this.watchers]) listener({ ...event, object: shared ? o : structuredClone(o) });
  }
}
