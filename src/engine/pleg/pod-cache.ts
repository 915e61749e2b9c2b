import { emptyPodStatus, type RuntimePodStatus } from '../container/types.js';

export interface CachedPodStatus {
  status: RuntimePodStatus;
  error?: Error;
  /** When the PLEG read this status (ms). */
  modified: number;
}

interface Waiter {
  minTime: number;
  resolve: (entry: CachedPodStatus) => void;
  /** Detaches the waiter's abort listener once it is resolved. */
  release?: () => void;
}

/**
 * The kubelet's pod cache: the runtime status of every pod, as of the last
 * relist that looked at it, plus a global timestamp of the last full relist.
 * A pod worker asks for a status newer than its last sync, so it never acts
 * twice on the same view of the runtime.
 */
export class PodCache {
  private readonly pods = new Map<string, CachedPodStatus>();
  private readonly waiters = new Map<string, Waiter[]>();
  private timestamp = 0;

  get(uid: string): CachedPodStatus {
    return this.pods.get(uid) ?? { status: emptyPodStatus(uid), modified: 0 };
  }

  set(uid: string, status: RuntimePodStatus, error: Error | undefined, modified: number): void {
    this.pods.set(uid, { status, error, modified });
    this.notify(uid);
  }

  /** Marks the pod's status current as of MODIFIED (nothing changed since it was read); false if it has none, or an error. */
  touch(uid: string, modified: number): boolean {
    const entry = this.pods.get(uid);
    if (!entry || entry.error) return false;
    if (modified > entry.modified) this.pods.set(uid, { ...entry, modified });
    this.notify(uid);
    return true;
  }

  delete(uid: string): void {
    this.pods.delete(uid);
  }

  /**
   * Forgets a pod that is gone from the runtime and from the node (without
   * this, every pod a node ever ran would keep an entry); one that somebody
   * still waits on keeps its entry, so the waiter is not left waiting for
   * the next full relist.
   */
  forget(uid: string): void {
    if (!this.waiters.has(uid)) this.pods.delete(uid);
  }

  /** Every pod's latest status (for counts, the node API and housekeeping). */
  entries(): IterableIterator<[string, CachedPodStatus]> {
    return this.pods.entries();
  }

  /** Marks a full relist done at `timestamp`: every pod's entry is current as of then. */
  updateTime(timestamp: number): void {
    this.timestamp = timestamp;
    for (const uid of [...this.waiters.keys()]) this.notify(uid);
  }

  /**
   * Resolves with the pod's status once the cache holds one read after
   * `minTime` (or a full relist happened after it); rejects when `signal` aborts.
   */
  getNewerThan(uid: string, minTime: number, signal?: AbortSignal): Promise<CachedPodStatus> {
    const ready = this.newerThan(uid, minTime);
    if (ready) return Promise.resolve(ready);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const list = this.waiters.get(uid) ?? [];
      const waiter: Waiter = { minTime, resolve };
      list.push(waiter);
      this.waiters.set(uid, list);
      if (!signal) return;
      const onAbort = () => {
        const remaining = (this.waiters.get(uid) ?? []).filter((w) => w !== waiter);
        if (remaining.length) this.waiters.set(uid, remaining);
        else this.waiters.delete(uid);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      waiter.release = () => signal.removeEventListener('abort', onAbort);
    });
  }

  private newerThan(uid: string, minTime: number): CachedPodStatus | undefined {
    const entry = this.pods.get(uid);
    const globalNewer = this.timestamp > minTime;
    if (!entry) return globalNewer ? { status: emptyPodStatus(uid), modified: this.timestamp } : undefined;
    return entry.modified > minTime || globalNewer ? entry : undefined;
  }

  private notify(uid: string): void {
    const list = this.waiters.get(uid);
    if (!list) return;
    const keep: Waiter[] = [];
    for (const w of list) {
      const entry = this.newerThan(uid, w.minTime);
      if (entry) {
        w.release?.();
        w.resolve(entry);
      } else keep.push(w);
    }
    if (keep.length) this.waiters.set(uid, keep);
    else this.waiters.delete(uid);
  }
}
