import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { RuntimeService } from '../cri/runtime-service.js';
import { KubeletLabels, type Container } from '../cri/types.js';
import type { Clock, Timer } from '../util/clock.js';
import type { RunningPod } from './container/types.js';
import type { EventStream } from './events.js';
import { NodeNameLabel } from './kuberuntime/labels.js';

/** The suffix of a compressed rotated log, and of one being compressed (left behind by a failed rotation). */
const COMPRESS_SUFFIX = '.gz';
const TMP_SUFFIX = '.tmp';
/** How many logs a worker looks at before it lets the event loop run. */
const YIELD_EVERY = 100;

/** How a container's log is rotated (the kubelet's LogRotatePolicy). */
export interface LogRotatePolicy {
  /** Bytes at which the current log is rotated; negative: never. */
  maxSize: number;
  /** The most files a container's log may have: the current one, the newest rotated one, the compressed older ones. */
  maxFiles: number;
}

/** A running container of this node, as a pass looks at it: its pod and name are for the events. */
export interface RunningContainerRef {
  id: string;
  /** namespace/name */
  pod: string;
  uid: string;
  container: string;
}

export interface ContainerLogManagerDeps {
  runtime: Pick<RuntimeService, 'listContainers' | 'containerStatus' | 'reopenContainerLog'>;
  /**
   * This node's running containers as the PLEG last saw them (its relists
   * and the runtime's events), undefined before its first relist; without
   * it, or before that, each pass lists them from the runtime.
   */
  runningContainers?: () => RunningContainerRef[] | undefined;
  clock: Clock;
  events: EventStream;
  /** Only this node's containers are rotated: a runtime may be shared with other nodes. */
  nodeName: string;
  policy: LogRotatePolicy;
  /** How often the running containers' logs are looked at (containerLogMonitorInterval). */
  monitorInterval: number;
  /** How many logs are rotated at once (containerLogMaxWorkers). */
  maxWorkers: number;
}

/**
 * The kubelet's container log manager: every monitor interval, off the sync
 * loop, each running container whose log has reached the policy's size is
 * rotated: leftovers of a failed rotation and the oldest rotated files past
 * the limit go, the rotated files left are gzip-compressed, the current
 * `N.log` is renamed `N.log.<YYYYMMDD-hhmmss>` and the runtime is asked to
 * reopen the log (ReopenContainerLog), so it writes a new `N.log`. A runtime
 * that cannot reopen gets its file put back, to be rotated again next time.
 */
export class ContainerLogManager {
  private timer: Timer | undefined;
  /** Containers waiting for a worker, in order; a container is queued once however often it is added (a workqueue). */
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly workers = new Set<Promise<void>>();
  /** What the last pass said of each queued container: its pod and name, for the events. */
  private readonly containers = new Map<string, RunningContainerRef>();
  /**
   * Each running container's log path ('' for none), from its status: a path
   * is fixed when its container is created, so it is asked for once, not on
   * every pass (a thousand ContainerStatus calls every ten seconds were most
   * of an idle node's CPU at a thousand pods; bench/notes/density.md).
   */
  private readonly logPaths = new Map<string, string>();
  private pass: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly deps: ContainerLogManagerDeps) {}

  /** Starts the periodic rotation: a pass now, then one every monitor interval. A negative max size turns it off. */
  start(): void {
    if (this.deps.policy.maxSize < 0 || this.timer) return;
    const tick = () => {
      this.pass = this.rotateLogs().catch((err: Error) => this.failed('', undefined, `failed to rotate container logs: ${err.message}`));
    };
    this.timer = this.deps.clock.setInterval(tick, this.deps.monitorInterval);
    tick();
  }

  /** Stops the timer and waits for the rotations under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.queue.length = 0;
    this.queued.clear();
    await this.pass;
    await this.idle();
  }

  /** Resolves once no rotation is under way or queued. */
  async idle(): Promise<void> {
    while (this.workers.size > 0) await Promise.all(this.workers);
  }

  /** Queues every running container (the kubelet's rotateLogs); the workers look at each log. */
  async rotateLogs(): Promise<void> {
    // Only running containers write: rotating an exited one's log would leave an empty latest log.
    const containers = this.deps.runningContainers?.() ?? (await this.listRunning());
    const running = new Set<string>();
    for (const c of containers) {
      running.add(c.id);
      this.add(c);
    }
    for (const id of this.logPaths.keys()) if (!running.has(id)) this.logPaths.delete(id);
    while (this.workers.size < this.deps.maxWorkers && this.queue.length > 0) {
      const worker = this.work().finally(() => this.workers.delete(worker));
      this.workers.add(worker);
    }
  }

  /** This node's running containers, as the runtime lists them now (the kubelet lists them on every pass). */
  private async listRunning(): Promise<RunningContainerRef[]> {
    const labelSelector = { [NodeNameLabel]: this.deps.nodeName };
    const containers = await this.deps.runtime.listContainers({ state: { state: 'CONTAINER_RUNNING' }, labelSelector });
    return containers.filter((c) => c.state === 'CONTAINER_RUNNING').map(refOf);
  }

  private add(c: RunningContainerRef): void {
    this.containers.set(c.id, c);
    if (this.stopped || this.queued.has(c.id)) return;
    this.queued.add(c.id);
    this.queue.push(c.id);
  }

  private async work(): Promise<void> {
    for (let done = 0; ; done++) {
      // A log under its size is looked at without a trip through the event loop: let the node's other work in now and then.
      if (done > 0 && done % YIELD_EVERY === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const index = this.queue.findIndex((id) => !this.processing.has(id));
      if (index < 0) return;
      const [id] = this.queue.splice(index, 1);
      this.queued.delete(id);
      this.processing.add(id);
      try {
        await this.processContainer(id);
      } catch (err) {
        this.failed(id, undefined, (err as Error).message);
      } finally {
        this.processing.delete(id);
        if (!this.queued.has(id)) this.containers.delete(id);
      }
    }
  }

  /**
   * Rotates one container's log if it has reached the max size; a missing log
   * is reopened first. The runtime is asked for the log's path the first time,
   * and again when the file is not there.
   */
  private async processContainer(id: string): Promise<void> {
    const { runtime, policy } = this.deps;
    let path = this.logPaths.get(id);
    let size = path ? sizeOf(path) : undefined;
    if (path === undefined || (path !== '' && size === undefined)) {
      path = await this.logPathOf(id);
      size = path ? sizeOf(path) : undefined;
    }
    if (!path) return;
    if (size === undefined) {
      try {
        await runtime.reopenContainerLog(id);
      } catch (err) {
        throw new Error(`container log ${path} doesn't exist, reopen container log failed: ${(err as Error).message}`, { cause: err });
      }
      size = sizeOf(path);
      if (size === undefined) throw new Error(`failed to stat container log ${path} after reopen`);
    }
    if (size < policy.maxSize) return;
    try {
      const rotated = await this.rotateLog(id, path);
      const message = `rotated ${path} (${size} bytes) to ${rotated}`;
      this.deps.events.emit({ type: 'ContainerLogRotated', ...this.about(id), message, detail: { containerId: id, path, rotated, size } });
    } catch (err) {
      throw new Error(`failed to rotate log for container ${id} (${path}, ${size} bytes): ${(err as Error).message}`, { cause: err });
    }
  }

  /** The log path the container's status gives ('' for none), kept for the passes to come. */
  private async logPathOf(id: string): Promise<string> {
    const status = (await this.deps.runtime.containerStatus(id)).status;
    if (!status) throw new Error(`container status is nil for "${id}"`);
    this.logPaths.set(id, status.logPath);
    return status.logPath;
  }

  /** Makes room for the file rotation adds, compresses the older rotated files, then rotates the current one. */
  private async rotateLog(id: string, log: string): Promise<string> {
    const dir = dirname(log);
    const prefix = `${basename(log)}.`;
    const logs = (await readdir(dir)).filter((name) => name.startsWith(prefix)).map((name) => join(dir, name));
    const inUse = await this.cleanupUnusedLogs(logs);
    const kept = await this.removeExcessLogs(inUse);
    for (const l of kept) {
      if (l.endsWith(COMPRESS_SUFFIX)) continue;
      await compressLog(l);
    }
    return this.rotateLatestLog(id, log);
  }

  /** Removes what a failed rotation left: temporary files, and rotated files whose compressed copy exists. */
  private async cleanupUnusedLogs(logs: string[]): Promise<string[]> {
    const { inUse, unused } = filterUnusedLogs(logs);
    for (const l of unused) await rm(l, { force: true });
    return inUse;
  }

  /**
   * Keeps the newest maxFiles-2 rotated files (the current log and the one
   * rotated now make up the rest), removing from the oldest so a reader of
   * the newer ones is not cut short.
   */
  private async removeExcessLogs(logs: string[]): Promise<string[]> {
    const sorted = [...logs].sort();
    const maxRotated = Math.max(0, this.deps.policy.maxFiles - 2);
    const excess = Math.max(0, sorted.length - maxRotated);
    for (const l of sorted.slice(0, excess)) await rm(l, { force: true });
    return sorted.slice(excess);
  }

  /** Renames the current log aside uncompressed (the runtime may still write a last line to it), then has the runtime reopen it. */
  private async rotateLatestLog(id: string, log: string): Promise<string> {
    const rotated = `${log}.${rotationTimestamp(new Date(this.deps.clock.now()))}`;
    await rename(log, rotated);
    try {
      await this.deps.runtime.reopenContainerLog(id);
    } catch (err) {
      // Put the log back so the next pass rotates it again; if this fails too, its lines stay in ROTATED.
      await rename(rotated, log).catch((renameErr: Error) =>
        this.failed(id, log, `failed to rename rotated log ${rotated} back to ${log}: ${renameErr.message}`),
      );
      throw new Error(`failed to reopen container log "${id}": ${(err as Error).message}`, { cause: err });
    }
    return rotated;
  }

  private failed(id: string, path: string | undefined, message: string): void {
    const detail = { containerId: id, path };
    this.deps.events.emit({ type: 'ContainerLogRotationFailed', ...this.about(id), reason: 'LogRotationFailed', message, detail });
  }

  /** The pod and container name of ID, for an event. */
  private about(id: string): { pod: string; uid: string; container?: string } {
    const c = this.containers.get(id);
    return { pod: c?.pod ?? '', uid: c?.uid ?? '', container: c?.container || undefined };
  }
}

/** The running containers of the pods the PLEG holds (undefined before its first relist). */
export function runningContainersOf(pods: RunningPod[] | undefined): RunningContainerRef[] | undefined {
  return pods?.flatMap((p) =>
    p.containers
      .filter((c) => c.state === 'running')
      .map((c) => ({ id: c.id, pod: `${p.namespace}/${p.name}`, uid: p.uid, container: c.name })),
  );
}

/** A listed container's pod and name, from the kubelet's labels. */
function refOf(c: Container): RunningContainerRef {
  const labels = c.labels ?? {};
  const name = labels[KubeletLabels.podName];
  return {
    id: c.id,
    pod: name ? `${labels[KubeletLabels.podNamespace]}/${name}` : '',
    uid: labels[KubeletLabels.podUid] ?? '',
    container: c.metadata?.name ?? '',
  };
}

/** Removes a container's log and its rotated files (the kubelet's containerLogManager.Clean, once the container goes). */
export async function cleanContainerLogs(logPath: string): Promise<void> {
  const dir = dirname(logPath);
  const base = basename(logPath);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return; // no directory: nothing was logged
  }
  for (const name of names) if (name === base || name.startsWith(`${base}.`)) await rm(join(dir, name), { force: true });
}

/** The suffix of a rotated log: local time as Go's "20060102-150405", as the kubelet writes it. */
export function rotationTimestamp(at: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}${two(at.getMonth() + 1)}${two(at.getDate())}-${two(at.getHours())}${two(at.getMinutes())}${two(at.getSeconds())}`;
}

/** Splits a log's rotated files into those in use and those a failed rotation left (the kubelet's filterUnusedLogs). */
export function filterUnusedLogs(logs: string[]): { inUse: string[]; unused: string[] } {
  const all = new Set(logs);
  const inUse: string[] = [];
  const unused: string[] = [];
  for (const l of logs) {
    const used = !l.endsWith(TMP_SUFFIX) && (l.endsWith(COMPRESS_SUFFIX) || !all.has(l + COMPRESS_SUFFIX));
    (used ? inUse : unused).push(l);
  }
  return { inUse, unused };
}

/** Compresses LOG to LOG.gz through a temporary file, then removes LOG. */
async function compressLog(log: string): Promise<void> {
  const tmp = log + TMP_SUFFIX;
  const { mode } = await stat(log);
  // zlib on demand: loading it costs every command that bundles this file about 5 ms of CPU.
  const { createGzip } = await import('node:zlib');
  try {
    await pipeline(createReadStream(log), createGzip(), createWriteStream(tmp, { mode }));
    await rename(tmp, log + COMPRESS_SUFFIX);
  } catch (err) {
    await rm(tmp, { force: true });
    throw new Error(`failed to compress log ${log}: ${(err as Error).message}`, { cause: err });
  }
  await rm(log, { force: true });
}

/**
 * The log's size, undefined when it is not there. Taken on this thread: a
 * pass looks at every running container's log, and an awaited stat cost
 * about fifteen times the CPU of a direct one (a thousand logs every ten
 * seconds, bench/notes/density.md); a log is a local file under the root dir.
 */
function sizeOf(path: string): number | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false })?.size;
  } catch (err) {
    throw new Error(`failed to stat container log ${path}: ${(err as Error).message}`, { cause: err });
  }
}
