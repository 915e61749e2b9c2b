import { watch, type FSWatcher } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock, Timer } from '../../util/clock.js';
import type { Pod } from '../api/v1.js';
import type { ManifestError } from './manifest.js';
import { decodeStaticPods, isManifestName, listManifestFiles } from './read-manifests.js';

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
  /** What the next pass reads: every file, or these names in the directory. */
  private wanted: Set<string> | 'all' | undefined;
  /** Whether the last full read found a directory (so a change can be read alone). */
  private listed = false;
  /** Names the file system reported changed since the last debounced read; undefined: it named none. */
  private changed: Set<string> | undefined = new Set();
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

  /**
   * Reads now: every file, or only NAMES (entries of the directory that the
   * file system said changed). A read asked for while one runs happens right
   * after it, folded with every other asked for meanwhile.
   */
  read(names?: Iterable<string>): Promise<void> {
    if (names === undefined) this.wanted = 'all';
    else if (this.wanted !== 'all') this.wanted = new Set([...(this.wanted ?? []), ...names]);
    if (this.reading) return this.reading;
    this.reading = (async () => {
      while (this.wanted !== undefined && !this.stopped) {
        const wanted = this.wanted;
        this.wanted = undefined;
        await (wanted === 'all' || !this.listed ? this.readOnce() : this.readChanged(wanted));
      }
      this.reading = undefined;
    })();
    return this.reading;
  }

  private ensureWatcher(): void {
    if (this.watcher || this.stopped) return;
    try {
      this.watcher = watch(this.path, (_event, filename) => {
        // A change without a name (some file systems give none) reads everything.
        if (filename && this.changed) this.changed.add(String(filename));
        else this.changed = undefined;
        this.debounce?.cancel();
        this.debounce = this.clock.setTimeout(() => {
          const names = this.changed;
          this.changed = new Set();
          void this.read(names);
        }, WATCH_DEBOUNCE_MS);
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
      this.listed = info.isDirectory();
      this.missingReported = false;
      this.reportIgnored(ignored);
    } catch {
      this.listed = false;
      if (!this.missingReported) {
        this.sink.error({ source: this.path, document: 0, message: 'path does not exist; watching for it' });
        this.missingReported = true;
      }
      this.files.clear();
      if (!this.stopped) this.sink.snapshot([]);
      return;
    }
    if (this.watchForChanges) this.ensureWatcher();
    const present = new Set(files);
    for (const file of [...this.files.keys()]) if (!present.has(file)) this.files.delete(file);
    for (const file of files) await this.readFile(file);
    if (!this.stopped) this.sink.snapshot(this.pods());
  }

  /**
   * Reads only the named entries of the directory, as the kubelet's watch
   * does: a busy directory is not read whole for each file written or removed
   * (the periodic poll still reads it whole). A name that is gone, or is no
   * longer a file, takes its pods with it.
   */
  private async readChanged(names: Set<string>): Promise<void> {
    try {
      if (!(await stat(this.path)).isDirectory()) return await this.readOnce();
    } catch {
      return await this.readOnce();
    }
    for (const name of [...names].sort()) {
      if (name.startsWith('.') || name.includes('/')) continue;
      const file = join(this.path, name);
      const isFile = await stat(file).then((info) => info.isFile(), () => false);
      if (!isManifestName(name)) {
        if (isFile) this.reportIgnored([file], false);
        else this.ignoredReported.delete(file);
      } else if (isFile) await this.readFile(file);
      else this.files.delete(file);
    }
    if (!this.stopped) this.sink.snapshot(this.pods());
  }

  /** Every file's pods, in the order of their paths. */
  private pods(): Pod[] {
    return [...this.files.keys()].sort().flatMap((file) => this.files.get(file)!.pods);
  }

  /** Reports each ignored file once; ALL: these are every ignored file there is (the others were removed). */
  private reportIgnored(ignored: string[], all = true): void {
    for (const file of ignored) {
      if (this.ignoredReported.has(file)) continue;
      this.ignoredReported.add(file);
      this.sink.error({ source: file, document: 0, message: 'ignored: only .yaml, .yml and .json files are read as manifests (the kubelet reads every file not starting with a dot)' });
    }
    if (!all) return;
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
