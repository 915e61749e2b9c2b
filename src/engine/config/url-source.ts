import type { Clock, Timer } from '../../util/clock.js';
import type { SourceSink } from './file-source.js';
import { readCapped } from './bounded-read.js';
import { decodeManifest, MAX_MANIFEST_BYTES } from './manifest.js';
import { applyStaticPodDefaults } from './static-pod.js';

/** The kubelet's HTTP client timeout for the manifest URL. */
const FETCH_TIMEOUT_MS = 10_000;

/**
 * Static pods from a URL, fetched at start and every `period` with the given
 * headers, as the kubelet's http source. An unchanged body sends nothing; a
 * failed fetch keeps the last state and is reported once per distinct error.
 */
export class UrlSource {
  readonly name = 'http';
  private lastBody: string | undefined;
  private lastError: string | undefined;
  private poll: Timer | undefined;
  private readonly abort = new AbortController();

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string[]>,
    private readonly nodeName: string,
    private readonly clock: Clock,
    private readonly period: number,
    private readonly sink: SourceSink,
    private readonly watchForChanges = true,
  ) {}

  async start(): Promise<void> {
    await this.fetchOnce();
    if (this.watchForChanges) this.poll = this.clock.setInterval(() => void this.fetchOnce(), this.period);
  }

  stop(): void {
    this.poll?.cancel();
    this.abort.abort();
  }

  private async fetchOnce(): Promise<void> {
    let body: string;
    try {
      const headers = new Headers();
      for (const [name, values] of Object.entries(this.headers)) for (const v of values) headers.append(name, v);
      const res = await fetch(this.url, { headers, signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(FETCH_TIMEOUT_MS)]) });
      if (!res.ok) {
        await res.body?.cancel();
        throw new Error(`${res.status} ${res.statusText}`.trim());
      }
      const length = Number(res.headers.get('content-length') ?? NaN);
      if (length > MAX_MANIFEST_BYTES) {
        await res.body?.cancel();
        throw new Error(`the body is larger than ${MAX_MANIFEST_BYTES} bytes (Content-Length ${length}); not read`);
      }
      // Capped as it streams: a body without a length, or longer than it said, is cut off past the limit.
      body = res.body ? await readCapped(res.body, MAX_MANIFEST_BYTES, 'the body') : '';
    } catch (err) {
      if (this.abort.signal.aborted) return;
      const message = `fetching the manifest failed: ${(err as Error).message}`;
      if (message !== this.lastError) this.sink.error({ source: this.url, document: 0, message });
      this.lastError = message;
      return;
    }
    this.lastError = undefined;
    if (body === this.lastBody) return;
    const decoded = decodeManifest(this.url, body, this.nodeName.length + 1);
    for (const error of decoded.errors) this.sink.error(error);
    for (const notice of decoded.skipped) this.sink.skipped?.(notice);
    if (decoded.unreadable && this.lastBody !== undefined) return; // keep the last good state
    this.lastBody = body;
    const seenAt = this.clock.now();
    this.sink.snapshot(
      decoded.pods.map(({ pod }) => applyStaticPodDefaults(pod, { source: 'http', location: this.url, nodeName: this.nodeName, seenAt })),
    );
    this.sink.objects?.(decoded.objects.map((o) => o.object));
  }
}
