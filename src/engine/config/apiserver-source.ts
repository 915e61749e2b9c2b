import { RetryDelay } from '../../util/backoff.js';
import type { Clock } from '../../util/clock.js';
import type { Pod } from '../api/v1.js';
import { ClusterError, type PodApi, type PodWatch, type WatchEventType } from '../cluster/client.js';
import type { SourceSink } from './file-source.js';

/** client-go's minWatchTimeout: each watch asks the server to end it after 5 to 10 minutes. */
const MIN_WATCH_TIMEOUT_S = 300;

export interface ApiserverSourceOptions {
  client: Pick<PodApi, 'listPods' | 'watchPods'>;
  nodeName: string;
  clock: Clock;
  random?: () => number;
  /** Reports a problem with the connection (once per distinct message). */
  warn: (message: string) => void;
}

/**
 * The pods the apiserver binds to this node, as the kubelet's apiserver
 * source: list with `spec.nodeName=<node>`, then watch from the list's
 * resourceVersion (with bookmarks); every change sends the full set to the
 * merge as a snapshot. A watch that ends is resumed from the last
 * resourceVersion seen; `410 Gone` (the version was compacted away) relists;
 * a failure retries with client-go's backoff. Pods are never dropped because
 * the apiserver is unreachable: the last snapshot stands until a new list.
 */
export class ApiserverSource {
  readonly name = 'api';
  private readonly pods = new Map<string, Pod>();
  private resourceVersion = '';
  private watch: PodWatch | undefined;
  private stopped = false;
  /** client-go's reflector backoff: 800 ms doubling to 30 s. */
  private readonly retry = new RetryDelay(800, 30_000);
  private lastWarning = '';
  private readonly abort = new AbortController();
  /** Lists done and watches opened, for the tests and the faces. */
  readonly stats = { lists: 0, watches: 0 };

  constructor(
    private readonly options: ApiserverSourceOptions,
    private readonly sink: SourceSink,
  ) {}

  private get fieldSelector(): string {
    return `spec.nodeName=${this.options.nodeName}`;
  }

  /** Lists once (resolves then, or after the first failure: the node starts either way), then keeps watching. */
  async start(): Promise<void> {
    let firstDone: () => void = () => {};
    const first = new Promise<void>((resolve) => (firstDone = resolve));
    void this.run(firstDone);
    await first;
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
    this.watch?.stop();
  }

  private async run(firstDone: () => void): Promise<void> {
    while (!this.stopped) {
      try {
        if (!this.resourceVersion) await this.list();
        firstDone();
        const end = await this.watchOnce();
        if (end) throw end;
        this.retry.reset();
      } catch (err) {
        firstDone();
        if (this.stopped) return;
        const error = err instanceof ClusterError ? err : new ClusterError(0, '', String(err));
        if (error.status === 410) {
          this.resourceVersion = '';
          continue;
        }
        const delay = this.retry.next();
        this.warnOnce(`apiserver source: ${error.message}; retrying in ${(delay / 1000).toFixed(1)}s`);
        try {
          await this.options.clock.sleep(delay, this.abort.signal);
        } catch {
          return;
        }
      }
    }
  }

  private async list(): Promise<void> {
    const list = await this.options.client.listPods(this.fieldSelector);
    this.stats.lists++;
    this.pods.clear();
    for (const pod of list.items) this.pods.set(pod.metadata.uid!, pod);
    this.resourceVersion = list.resourceVersion;
    this.lastWarning = '';
    this.sink.snapshot([...this.pods.values()]);
  }

  /** One watch until the server ends it; returns the error it ended on, if any. */
  private async watchOnce(): Promise<ClusterError | undefined> {
    const random = this.options.random ?? Math.random;
    const timeout = Math.floor(MIN_WATCH_TIMEOUT_S * (1 + random()));
    let gone: ClusterError | undefined;
    this.watch = await this.options.client.watchPods(this.fieldSelector, this.resourceVersion, timeout, (type, object) => {
      const error = this.handle(type, object);
      if (error) {
        gone = error;
        this.watch?.stop();
      }
    });
    this.stats.watches++;
    if (this.stopped) this.watch.stop();
    const end = await this.watch.done;
    this.watch = undefined;
    return gone ?? end.error;
  }

  /** Applies one watch event; returns an error that ends the watch. */
  private handle(type: WatchEventType, object: Record<string, unknown>): ClusterError | undefined {
    if (type === 'ERROR') {
      const status = object as { code?: number; reason?: string; message?: string };
      return new ClusterError(
        status.code ?? 500,
        status.reason ?? '',
        `watch pods: ${status.code ?? ''} ${status.reason ?? ''}: ${status.message ?? ''}`,
      );
    }
    const pod = object as unknown as Pod;
    const version = pod.metadata?.resourceVersion;
    if (version) this.resourceVersion = version;
    if (type === 'BOOKMARK') return undefined;
    const uid = pod.metadata.uid!;
    if (type === 'DELETED') this.pods.delete(uid);
    else this.pods.set(uid, { apiVersion: 'v1', kind: 'Pod', ...pod });
    this.lastWarning = '';
    this.sink.snapshot([...this.pods.values()]);
    return undefined;
  }

  private warnOnce(message: string): void {
    const key = message.replace(/retrying in [\d.]+s/, '');
    if (key === this.lastWarning) return;
    this.lastWarning = key;
    this.options.warn(message);
  }
}
