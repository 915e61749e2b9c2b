// Each sandboxed container's own root file system: a kernel overlay over
// its image's layers, stacked once per image (oci/rootfs.ts), where the host
// allows (root), or a copy of the stack otherwise. Removing the container
// unmounts and deletes what it wrote. The overlays' directory is a shared
// mount, so a container's namespace made before its mount still gets it.
// Why: docs/runtime/sandboxes.md, "Root file systems".
import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { composeRootfs, type StackedLayer } from '../oci/rootfs.js';
import { runToEnd, type Ran } from '../proc.js';
import { makeInRoot } from './image-process.js';
import type { RootfsProbe } from '../host-probes.js';
import type { RootOverlay } from './mount-table.js';
import { SpareDirs } from './spare-dirs.js';

export type RootfsMode = 'overlay' | 'copy';

/** What a container's directory holds in overlay mode: its upper and work directories, and where it is mounted. */
const LAYER_DIRS = ['upper', 'work', 'rootfs'] as const;

/** What a start that could not mount its container's root file system fails with, before the reason. */
export const MOUNT_FAILED = "cannot mount the container's root file system";

export class ContainerRootfs {
  readonly mode: RootfsMode;
  readonly reason: string;
  /**
   * Whether a container's mount namespace made before its root file system
   * was mounted gets that mount (the containers' directory is a shared mount):
   * its set-up may start while the mount runs. Why not, when not.
   */
  readonly reachesNamespaces: true | string;
  /** The containers' directory was bound onto itself to be shared: unbound at close. */
  private readonly bound: boolean;
  /** How mount(8) and umount(8) run: the runtime's spawner, once it has one (useRunner). */
  private run: (argv: readonly string[], key?: string) => Promise<Ran> = runToEnd;
  /** The mounts started when containers were created, for their start to wait for. */
  private readonly mounting = new Map<string, Promise<Ran>>();
  /** Containers whose mount under way was handed to the runner, keyed by the container's id (runner's `key`). */
  private readonly handed = new Set<string>();
  /** The directories of containers' layers made by this runtime (or why they could not be), by container id. */
  private readonly dirs = new Map<string, Promise<void>>();
  /** The unmounts started when containers exited, for their removal (or a mount after them) to wait for. */
  private readonly unmounting = new Map<string, Promise<unknown>>();
  /** Containers' directories made ahead of their creates (overlay only). */
  private readonly spares: SpareDirs | undefined;

  /**
   * `tools`: the mount(8) and umount(8) to run (a static busybox's cost less
   * to start); the host's by default. `mountPoints`: what every container's
   * set-up mounts on, made in each image's stacked layers when they are
   * stacked, so that each container finds them there rather than makes them
   * in its own layer (where one cannot be made, as makeInRoot says, it is
   * left to each container, which fails saying why). `probed`: whether an
   * overlay mounts here and the containers' directory is shared (startHostProbes in host-probes.ts).
   */
  constructor(
    private readonly dir: string,
    probed: RootfsProbe,
    private readonly tools: { mount: string; umount: string } = { mount: 'mount', umount: 'umount' },
    private readonly mountPoints: readonly (readonly [string, 'directory' | 'file'])[] = [],
  ) {
    for (const sub of ['images', 'volumes', 'containers']) mkdirSync(join(dir, sub), { recursive: true });
    this.mode = probed.overlay.ok ? 'overlay' : 'copy';
    this.reason = probed.overlay.reason;
    this.bound = probed.shared.bound;
    this.reachesNamespaces = this.mode === 'copy' ? 'a copy is not a mount' : (probed.shared.reason ?? true);
    this.spares = this.mode === 'overlay' ? new SpareDirs(join(dir, 'containers'), SpareDirs.subdirs(LAYER_DIRS)) : undefined;
  }

  /** The runtime's shutdown: the containers' directory is unbound when it was bound (what is still mounted under it goes with it, lazily). */
  close(): void {
    void this.spares?.close();
    if (this.bound) spawnSync('umount', ['-l', join(this.dir, 'containers')], { stdio: 'ignore', timeout: 10_000 });
  }

  /** Runs mount(8) and umount(8) with `run` from now on. */
  useRunner(run: (argv: readonly string[], key?: string) => Promise<Ran>): void {
    this.run = run;
  }

  /** What `runtime status` says. */
  describe(): string {
    if (this.mode === 'copy') return `a copy of its image per container (${this.reason})`;
    const shared =
      this.reachesNamespaces === true ? 'mounted while its set-up starts' : `mounted before its set-up starts: ${this.reachesNamespaces}`;
    return `a kernel overlay per container over its image (${shared})`;
  }

  /** The stacked layers of image `imageId`, composed the first time a container asks for them. */
  private imageRoot(imageId: string, layers: () => StackedLayer[]): string {
    return this.stack('images', imageId, layers, this.mountPoints);
  }

  /**
   * The files of image `imageId` for image volumes, stacked the first time a
   * container asks for them: as the image has them, without the mount points
   * its containers' roots get, and apart from those (a volume is bound
   * read-only; nothing writes there).
   */
  volumeRoot(imageId: string, layers: () => StackedLayer[]): string {
    return this.stack('volumes', imageId, layers, []);
  }

  private stack(
    kind: 'images' | 'volumes',
    imageId: string,
    layers: () => StackedLayer[],
    mountPoints: readonly (readonly [string, 'directory' | 'file'])[],
  ): string {
    const root = join(this.dir, kind, imageId.replace(/^sha256:/, ''));
    if (existsSync(root)) return root;
    const partial = `${root}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    composeRootfs(layers(), partial);
    for (const [path, what] of mountPoints) {
      try {
        makeInRoot(partial, path, what, 'the mount point');
      } catch {
        // its containers say why
      }
    }
    renameSync(partial, root);
    return root;
  }

  /**
   * Makes container `id`'s root file system from its image (CreateContainer):
   * its own directories over the image's stacked layers, or its own copy.
   * Returns where the image's files can be read before the container runs.
   */
  prepare(id: string, imageId: string, layers: () => StackedLayer[]): string {
    const base = this.base(id);
    if (this.mode === 'copy') {
      mkdirSync(base, { recursive: true });
      composeRootfs(layers(), join(base, 'rootfs'));
      return join(base, 'rootfs');
    }
    // Its directories are there when the create answers (a spare's renamed, or made here), so that its
    // mount and its set-up start at once.
    this.layerDirs(id);
    return this.imageRoot(imageId, layers);
  }

  /** Container `id`'s directory and its upper, work and mount directories, made once (again after a restart: they are kept); rejects with why they could not be. */
  private layerDirs(id: string): Promise<void> {
    let made = this.dirs.get(id);
    if (!made) {
      const base = this.base(id);
      try {
        if (!this.spares?.take(base)) {
          mkdirSync(base, { recursive: true });
          for (const sub of LAYER_DIRS) mkdirSync(join(base, sub), { recursive: true });
        }
        made = Promise.resolve();
      } catch (err) {
        made = Promise.reject(err as Error);
      }
      made.catch(() => {}); // told to the mount
      this.dirs.set(id, made);
    }
    return made;
  }

  /**
   * Starts mounting container `id`'s root file system from its image's
   * layers and what it wrote before (CreateContainer), as runc's create
   * makes a container's mounts before its start: the mount runs while the
   * create answers, and the start waits for it (mounted). Nothing for a
   * copy, which is there already.
   */
  startMount(id: string, imageId: string, layers: () => StackedLayer[]): void {
    if (this.mode === 'copy') return;
    const base = this.base(id);
    const argv = [
      this.tools.mount,
      ...overlayArgs(this.imageRoot(imageId, layers), join(base, 'upper'), join(base, 'work'), join(base, 'rootfs')),
    ];
    // After an unmount (a runtime restart unmounts its created containers), not over it.
    const unmounted = this.unmounting.get(id) ?? Promise.resolve();
    this.unmounting.delete(id);
    const ready = Promise.all([unmounted, this.layerDirs(id)]);
    this.handed.delete(id);
    this.mounting.set(
      id,
      ready.then(
        () => {
          const ran = this.run(argv, id);
          this.handed.add(id);
          return ran;
        },
        (err: Error) => ({ ok: false, reason: `its directories could not be made: ${err.message}` }),
      ),
    );
  }

  /**
   * Whether container `id`'s mount under way was handed to the runner, keyed
   * by its id: a start that goes through the same runner can have it wait
   * for that mount there (the spawner's go-ahead).
   */
  handedToRunner(id: string): boolean {
    return this.handed.has(id) && this.mounting.has(id);
  }

  /**
   * Container `id`'s root file system, mounted (StartContainer): the mount
   * its create started, or one started now (a container created before the
   * runtime restarted). Returns where it is seen while it runs; throws
   * MOUNT_FAILED and the reason when it could not be mounted.
   */
  async mounted(id: string, imageId: string, layers: () => StackedLayer[]): Promise<string> {
    if (!this.mounting.has(id)) this.startMount(id, imageId, layers);
    const ran = (await this.mounting.get(id)) ?? { ok: true, reason: '' };
    if (!ran.ok) throw new Error(`${MOUNT_FAILED}: ${ran.reason}`);
    return this.path(id);
  }

  /**
   * Container `id`'s overlay layers, which can be written before it is
   * mounted (the image's stacked layers, composed if they are not yet, and
   * its own upper layer); undefined for a copy.
   */
  async layersOf(id: string, imageId: string, layers: () => StackedLayer[]): Promise<RootOverlay | undefined> {
    if (this.mode === 'copy') return undefined;
    const lower = this.imageRoot(imageId, layers);
    await this.layerDirs(id);
    return { lower, upper: join(this.base(id), 'upper'), work: join(this.base(id), 'work') };
  }

  /** Unmounts container `id`'s root file system once it has exited (in the background); what it wrote stays until it is removed. */
  unmount(id: string): void {
    if (this.mode !== 'overlay') return;
    this.unmounting.set(id, this.umount(id));
  }

  /**
   * Unmounts (when no unmount was started, and it was `mounted` here: not
   * one mounted in its own namespace) and deletes container `id`'s root
   * file system; nothing there is fine.
   */
  async release(id: string, mounted = true): Promise<void> {
    this.dirs.delete(id);
    this.handed.delete(id);
    const base = this.base(id);
    if (!existsSync(base)) return;
    if (this.mode === 'overlay' && mounted) await (this.unmounting.get(id) ?? this.umount(id));
    this.unmounting.delete(id);
    await rm(base, { recursive: true, force: true });
  }

  /** umount(8) of container `id`'s root file system, lazily (what still uses it keeps it until it lets go), once a mount under way has ended; its outcome does not matter. */
  private umount(id: string): Promise<unknown> {
    const mount = this.mounting.get(id) ?? Promise.resolve();
    this.mounting.delete(id);
    this.handed.delete(id);
    return mount.then(() => this.run([this.tools.umount, '-l', this.path(id)]));
  }

  /**
   * Deletes the stacked layers of every image not in `keep` (ids), for
   * containers' roots and for volumes, and what a runtime that died while
   * stacking left: an image's stack lives as long as the image or a
   * container made from it (or mounting it), whichever is longer.
   */
  pruneImages(keep: Iterable<string>): void {
    const wanted = new Set([...keep].map((id) => id.replace(/^sha256:/, '')));
    for (const kind of ['images', 'volumes']) {
      for (const name of readdirSync(join(this.dir, kind))) {
        if (!wanted.has(name)) rmSync(join(this.dir, kind, name), { recursive: true, force: true });
      }
    }
  }

  /**
   * What container `id` has written to its root file system is under this
   * directory: its overlay's upper layer, or the whole copy of its image.
   */
  writableDir(id: string): string {
    return this.mode === 'copy' ? this.path(id) : join(this.base(id), 'upper');
  }

  /** Where container `id`'s root file system is seen while it runs. */
  path(id: string): string {
    return join(this.base(id), 'rootfs');
  }

  private base(id: string): string {
    return join(this.dir, 'containers', id);
  }
}

function overlayArgs(lower: string, upper: string, work: string, target: string): string[] {
  return ['-t', 'overlay', 'overlay', '-o', `lowerdir=${lower},upperdir=${upper},workdir=${work}`, target];
}
