import { watch, type FSWatcher } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { Clock, Timer } from '../../util/clock.js';
import type { Pod } from '../api/v1.js';
import type { ManifestError } from './manifest.js';
import { decodeStaticPods, listManifestFiles } from './read-manifests.js';

export interface SourceSink {
  /** The full set of pods the source wants now. */
  snapshot(pods: Pod[]): void;
  error(error: ManifestError): void;
}

/** Events from a burst of writes are folded into one read after this quiet time. */
const WATCH_DEBOUNCE_MS = 50;

interface FileState {
  text: string;
  pods: Pod[];
}

/**
 * Static pods from a directory (or a single file) of manifests: read at start,
 * on every change the file system reports, and every `period` as a safety net,
 * as the kubelet's file source. A file that stops parsing (caught mid-write,
 * or broken by an edit) keeps its last good pods and reports the error; a
 * file whose text is unchanged is not decoded again.
 */
export class FileSource {
  readonly name = 'file';
  private readonly files = new Map<string, FileState>();
  private watcher: FSWatcher | undefined;
  private poll: Timer | undefined;
  private debounce: Timer | undefined;
  private reading: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private missingReported = false;
  /** Files without a manifest extension already reported as ignored (once each). */
  private readonly ignoredReported = new Set<string>();

  constructor(
    private readonly path: string,
    private readonly nodeName: string,
    private readonly clock: Clock,
    private readonly period: number,
    private readonly sink: SourceSink,
    private readonly watchForChanges = true,
  ) {}

  async start(): Promise<void> {
    await this.read();
    if (!this.watchForChanges) return;
    this.ensureWatcher();
    this.poll = this.clock.setInterval(() => void this.read(), this.period);
  }

  stop(): void {
    this.stopped = true;
    this.watcher?.close();
    this.poll?.cancel();
    this.debounce?.cancel();
  }

  /** Reads now; a read asked for while one runs happens right after it. */
  read(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = (async () => {
      do {
        this.again = false;
        await this.readOnce();
      } while (this.again && !this.stopped);
      this.reading = undefined;
    })();
    return this.reading;
  }

  private ensureWatcher(): void {
    if (this.watcher || this.stopped) return;
    try {
      this.watcher = watch(this.path, () => {
        this.debounce?.cancel();
        this.debounce = this.clock.setTimeout(() => void this.read(), WATCH_DEBOUNCE_MS);
      });
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch {
      this.watcher = undefined; // the path does not exist yet; the poll will find it
    }
  }

  private async readOnce(): Promise<void> {
    let files: string[];
    try {
      const info = await stat(this.path);
      const ignored: string[] = [];
      files = info.isDirectory() ? await listManifestFiles(this.path, ignored) : [this.path];
      this.missingReported = false;
      this.reportIgnored(ignored);
    } catch {
      if (!this.missingReported) {
        this.sink.error({ source: this.path, document: 0, message: 'path does not exist; watching for it' });
        this.missingReported = true;
      }
      this.files.clear();
      if (!this.stopped) this.sink.snapshot([]);
      return;
    }
    if (this.watchForChanges) this.ensureWatcher();
    const pods: Pod[] = [];
    const present = new Set(files);
    for (const file of [...this.files.keys()]) if (!present.has(file)) this.files.delete(file);
    for (const file of files) pods.push(...(await this.readFile(file)));
    if (!this.stopped) this.sink.snapshot(pods);
  }

  private reportIgnored(ignored: string[]): void {
    for (const file of ignored) {
      if (this.ignoredReported.has(file)) continue;
      this.ignoredReported.add(file);
      this.sink.error({ source: file, document: 0, message: 'ignored: only .yaml, .yml and .json files are read as manifests (the kubelet reads every file not starting with a dot)' });
    }
    const present = new Set(ignored);
    for (const file of this.ignoredReported) if (!present.has(file)) this.ignoredReported.delete(file);
  }

  private async readFile(file: string): Promise<Pod[]> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      this.sink.error({ source: file, document: 0, message: `cannot read: ${(err as Error).message}` });
      return this.files.get(file)?.pods ?? [];
    }
    const previous = this.files.get(file);
    if (previous && previous.text === text) return previous.pods;
    const { decoded, pods } = decodeStaticPods(file, text, this.nodeName, this.clock.now());
    for (const error of decoded.errors) this.sink.error(error);
    if (decoded.unreadable && previous) {
      // Keep the last good pods; remember the text so the same error is not reported on every poll.
      this.files.set(file, { text, pods: previous.pods });
      return previous.pods;
    }
    this.files.set(file, { text, pods });
    return pods;
  }
}
