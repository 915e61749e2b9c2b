import { statSync, watch, type FSWatcher } from 'node:fs';
import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Clock, Timer } from '../../util/clock.js';
import { eachLimited } from '../../util/each-limited.js';
import type { Pod } from '../api/v1.js';
import type { KubeObject } from '../api/workloads.js';
import { readManifestFile, type BoundedRead } from './bounded-read.js';
import type { ManifestError } from './manifest.js';
import { decodeStaticPods, isManifestName, listManifestFiles } from './read-manifests.js';

export interface SourceSink {
  /** The full set of pods the source wants now. */
  snapshot(pods: Pod[]): void;
  error(error: ManifestError): void;
  /** The full set of objects of other kinds (Deployments, ConfigMaps…) the source holds now, sent after each snapshot. */
  objects?(objects: KubeObject[]): void;
  /** An object of a kind a node does not run (a Service), named once per read of its file. */
  skipped?(notice: ManifestError): void;
}

/**
 * Events from a burst of writes are folded into one read after this quiet
 * time: the events of one write (a create and a change) arrive together, so a
 * few milliseconds fold them. The kubelet reads on each event; this adds what
 * a lone pod waits before its manifest is read, so it stays short (a longer
 * one showed as start-up beside the kubelet: bench/notes/kubelet-side-by-side.md).
 */
const WATCH_DEBOUNCE_MS = 5;
/** How soon a missing path is looked for again, doubling up to the poll period (the kubelet's watch retry). */
const MISSING_RETRY_MS = 1_000;
/**
 * A file last written longer ago than this has a stamp (inode, size, times)
 * no later write can repeat: file times tick in jiffies, so two writes a few
 * milliseconds apart may share one.
 */
const SETTLED_MS = 1_000;
/** How many manifests are read at once (each holds a file descriptor while read). */
const READS_AT_ONCE = 32;

interface FileState {
  text: string;
  pods: Pod[];
  /** The YAML document each pod came from, index for index. */
  documents: number[];
  /** The file's objects of other kinds, each with its document. */
  objects: { object: KubeObject; document: number }[];
  /** The file's stamp when this text was read, if it had settled (the poll skips a file whose stamp is unchanged). */
  stamp?: string;
}

/**
 * Static pods from a directory (or a single file) of manifests: read at start,
 * on every change the file system reports, and every `period` as a safety net,
 * as the kubelet's file source. What runs never follows a half-written file:
 * a file that stops parsing or turns empty (caught mid-write, or broken by an
 * edit) keeps its last good pods, and a document that no longer validates
 * keeps its last good pods, each with the error reported. A file whose text
 * is unchanged is not decoded again. A removed directory removes its pods, as
 * in the kubelet, and is looked for again within a second or so.
 */
export class FileSource {
  readonly name = 'file';
  private readonly files = new Map<string, FileState>();
  private watcher: FSWatcher | undefined;
  private poll: Timer | undefined;
  private retry: Timer | undefined;
  private retryDelay = MISSING_RETRY_MS;
  private debounce: Timer | undefined;
  private reading: Promise<void> | undefined;
  /** What the next pass reads: every file, every file whose stamp changed (the poll), or these names in the directory. */
  private wanted: Set<string> | 'all' | 'poll' | undefined;
  /** Whether the last full read found a directory (so a change can be read alone). */
  private listed = false;
  /** Names the file system reported changed since the last debounced read; undefined: it named none. */
  private changed: Set<string> | undefined = new Set();
  private stopped = false;
  private missingReported = false;
  /** Files without a manifest extension already reported as ignored (once each). */
  private readonly ignoredReported = new Set<string>();
  /** Files skipped or refused, with the message last reported for each (reported again only when it changes). */
  private readonly unreadReported = new Map<string, string>();

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
    this.poll = this.clock.setInterval(() => void this.pollRead(), this.period);
  }

  stop(): void {
    this.stopped = true;
    this.closeWatcher();
    this.poll?.cancel();
    this.debounce?.cancel();
    this.retry?.cancel();
  }

  /**
   * Reads now: every file, or only NAMES (entries of the directory that the
   * file system said changed). A read asked for while one runs happens right
   * after it, folded with every other asked for meanwhile.
   */
  read(names?: Iterable<string>): Promise<void> {
    if (names === undefined || this.wanted === 'poll') this.wanted = 'all';
    else if (this.wanted !== 'all') this.wanted = new Set([...(this.wanted ?? []), ...names]);
    return this.startReading();
  }

  /**
   * The periodic safety net: every file of the directory, but a file whose
   * stamp is what it was when last read, long after it was written, is not
   * read again (a poll of 1,000 files is then 1,000 stats).
   */
  pollRead(): Promise<void> {
    if (this.wanted === undefined) this.wanted = 'poll';
    else if (this.wanted !== 'poll') this.wanted = 'all';
    return this.startReading();
  }

  private startReading(): Promise<void> {
    if (this.reading) return this.reading;
    this.reading = (async () => {
      while (this.wanted !== undefined && !this.stopped) {
        const wanted = this.wanted;
        this.wanted = undefined;
        if (wanted === 'all' || wanted === 'poll' || !this.listed) await this.readOnce(wanted === 'poll');
        else await this.readChanged(wanted);
      }
      this.reading = undefined;
    })();
    return this.reading;
  }

  private ensureWatcher(): void {
    if (this.watcher || this.stopped) return;
    const self = basename(this.path);
    try {
      this.watcher = watch(this.path, (_event, filename) => {
        // The directory itself went (removed, or moved away): this watcher
        // hears no more, and the next read watches what is there then.
        if (filename && String(filename) === self) this.closeWatcher();
        // A change without a name (some file systems give none), or to the
        // directory itself, reads everything.
        if (filename && this.changed && String(filename) !== self) this.changed.add(String(filename));
        else this.changed = undefined;
        this.debounce?.cancel();
        this.debounce = this.clock.setTimeout(() => {
          const names = this.changed;
          this.changed = new Set();
          void this.read(names);
        }, WATCH_DEBOUNCE_MS);
      });
      this.watcher.on('error', () => this.closeWatcher());
    } catch {
      this.watcher = undefined; // the path does not exist yet; the retry or the poll will find it
    }
  }

  private closeWatcher(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }

  /** Looks for a missing path again soon, and then less and less often, up to the poll period. */
  private retryMissing(): void {
    if (!this.watchForChanges || this.stopped || this.retry) return;
    this.retry = this.clock.setTimeout(() => {
      this.retry = undefined;
      void this.read();
    }, this.retryDelay);
    this.retryDelay = Math.min(this.retryDelay * 2, this.period);
  }

  private async readOnce(skipUnchanged = false): Promise<void> {
    let files: string[];
    try {
      const info = await stat(this.path);
      const ignored: string[] = [];
      files = info.isDirectory() ? await listManifestFiles(this.path, ignored) : [this.path];
      this.listed = info.isDirectory();
      this.missingReported = false;
      this.retryDelay = MISSING_RETRY_MS;
      this.reportIgnored(ignored);
      if (this.watchForChanges) this.ensureWatcher();
    } catch {
      this.listed = false;
      if (!this.missingReported) {
        this.sink.error({ source: this.path, document: 0, message: 'path does not exist; watching for it' });
        this.missingReported = true;
      }
      this.closeWatcher();
      this.retryMissing();
      this.files.clear();
      if (!this.stopped) this.send();
      return;
    }
    const present = new Set(files);
    for (const file of [...this.files.keys()]) if (!present.has(file)) this.files.delete(file);
    for (const file of [...this.unreadReported.keys()]) if (!present.has(file)) this.unreadReported.delete(file);
    await this.readFiles(
      files.map((file) => ({ file })),
      skipUnchanged,
    );
    if (!this.stopped) this.send();
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
    const wanted = [...names].sort().filter((name) => !name.startsWith('.') && !name.includes('/'));
    const found = await Promise.all(wanted.map((name) => stat(join(this.path, name)).catch(() => undefined)));
    const manifests: { file: string; info: Stats }[] = [];
    for (const [i, name] of wanted.entries()) {
      const file = join(this.path, name);
      const info = found[i];
      if (!isManifestName(name)) {
        if (info?.isFile()) this.reportIgnored([file], false);
        else this.ignoredReported.delete(file);
      } else if (info) manifests.push({ file, info });
      else {
        this.files.delete(file);
        this.unreadReported.delete(file);
      }
    }
    await this.readFiles(manifests, false);
    if (!this.stopped) this.send();
  }

  /** Sends every file's pods, then every file's other objects, in the order of their paths. */
  private send(): void {
    const files = [...this.files.keys()].sort().map((file) => this.files.get(file)!);
    this.sink.snapshot(files.flatMap((f) => f.pods));
    this.sink.objects?.(files.flatMap((f) => f.objects.map((o) => o.object)));
  }

  /** Reports each ignored file once; ALL: these are every ignored file there is (the others were removed). */
  private reportIgnored(ignored: string[], all = true): void {
    for (const file of ignored) {
      if (this.ignoredReported.has(file)) continue;
      this.ignoredReported.add(file);
      this.sink.error({
        source: file,
        document: 0,
        message: 'ignored: only .yaml, .yml and .json files are read as manifests (the kubelet reads every file not starting with a dot)',
      });
    }
    if (!all) return;
    const present = new Set(ignored);
    for (const file of this.ignoredReported) if (!present.has(file)) this.ignoredReported.delete(file);
  }

  /**
   * Reads FILES (READS_AT_ONCE at a time), then takes their pods in the
   * order given. A file's read takes several trips through the event loop;
   * one after the other they made a burst of manifests wait behind whatever
   * else kept the loop busy (a node tearing down 30 pods held a burst of 10
   * for 0.6 s; bench/notes/kubelet-side-by-side.md).
   */
  private async readFiles(files: { file: string; info?: Stats }[], skipUnchanged: boolean): Promise<void> {
    const reads: (FileRead | undefined)[] = [];
    await eachLimited(files, READS_AT_ONCE, async ({ file, info }, i) => {
      reads[i] = await this.fetch(file, skipUnchanged, info);
    });
    for (const read of reads) if (read) this.take(read);
  }

  /** FILE's text (or why not), unless SKIPUNCHANGED and its stamp says it is the text already taken. */
  private async fetch(file: string, skipUnchanged: boolean, known?: Stats): Promise<FileRead | undefined> {
    // Taken on this thread: a poll stats every file, and an awaited stat cost about fifteen times the CPU of a direct one.
    const info = known ?? statOrNone(file);
    const stamp = info && Date.now() - info.mtimeMs > SETTLED_MS ? stampOf(info) : undefined;
    if (skipUnchanged && stamp !== undefined && this.files.get(file)?.stamp === stamp) return undefined;
    return { file, stamp, read: await readManifestFile(file, undefined, info) };
  }

  /** A file's read taken: its pods and objects, or its errors (keeping its last good pods). */
  private take({ file, stamp, read }: FileRead): void {
    const previous = this.files.get(file);
    if (!('text' in read)) {
      const message = 'skipped' in read ? read.skipped : read.refused;
      if (this.unreadReported.get(file) !== message) this.sink.error({ source: file, document: 0, message });
      this.unreadReported.set(file, message);
      // What is not a regular file gives no pods, as in the kubelet; a file too large or unreadable keeps its last good pods.
      if ('skipped' in read) this.files.delete(file);
      return;
    }
    this.unreadReported.delete(file);
    const text = read.text;
    if (previous && previous.text === text) {
      previous.stamp = stamp;
      return;
    }
    const { decoded, pods } = decodeStaticPods(file, text, this.nodeName, this.clock.now());
    const empty = text.trim() === '';
    if (empty)
      decoded.errors.push({ source: file, document: 0, message: 'the file is empty (caught mid-write?); remove it to remove its pods' });
    for (const error of decoded.errors) this.sink.error(error);
    for (const notice of decoded.skipped) this.sink.skipped?.(notice);
    const documents = decoded.pods.map((p) => p.document);
    const objects = decoded.objects;
    if (previous && (decoded.unreadable || empty)) {
      // Keep the last good pods; remember the text so the same error is not reported on every poll.
      this.files.set(file, { ...previous, text, stamp });
      return;
    }
    if (previous && decoded.errors.length > 0) {
      // A document that no longer validates (an edit gone wrong, or a write
      // cut short) keeps the pods it last had, unless a good document now
      // gives a pod of the same name.
      const broken = new Set(decoded.errors.map((e) => e.document));
      const names = new Set(pods.map((p) => p.metadata.name));
      const kept = previous.pods.flatMap((pod, i) =>
        broken.has(previous.documents[i]) && !names.has(pod.metadata.name) ? [{ pod, document: previous.documents[i] }] : [],
      );
      const all = [...pods.map((pod, i) => ({ pod, document: documents[i] })), ...kept].sort((a, b) => a.document - b.document);
      const keyOf = (o: KubeObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
      const objectKeys = new Set(objects.map((o) => keyOf(o.object)));
      const keptObjects = previous.objects.filter((o) => broken.has(o.document) && !objectKeys.has(keyOf(o.object)));
      this.files.set(file, {
        text,
        pods: all.map((p) => p.pod),
        documents: all.map((p) => p.document),
        objects: [...objects, ...keptObjects].sort((a, b) => a.document - b.document),
        stamp,
      });
      return;
    }
    this.files.set(file, { text, pods, documents, objects, stamp });
  }
}

/** A file read, before its pods are taken. */
interface FileRead {
  file: string;
  stamp: string | undefined;
  read: BoundedRead;
}

function stampOf(info: Stats): string {
  return `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
}

/** FILE's stats, undefined when it cannot be read (gone, or not allowed). */
function statOrNone(file: string): Stats | undefined {
  try {
    return statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
