// The embedded runtime's containers of real images: each gets its own root
// file system from its image's layers and runs in a bubblewrap sandbox
// within its pod's namespaces, its process made from the image config and
// the container config. Containers of record images (no layers) and hosts
// without bubblewrap keep host processes; `describe()` says which applies.
import { chmodSync, lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ContainerConfig__Output } from '../../cri/gen/runtime/v1/ContainerConfig.js';
import type { ProcessSpec } from '../process-spec.js';
import { invalid, unknown } from '../errors.js';
import { OciImageStore } from '../oci/image-store.js';
import type { RuntimeImages } from '../images.js';
import type { ProgramRunner } from '../proc.js';
import type { ContainerRecord, ImageRecord, SandboxedSpec, SandboxRecord } from '../records.js';
import { Bubblewrap } from './bubblewrap.js';
import { FIXED_MOUNT_POINTS, kernelPathsOnly, MountSandbox } from './mount-sandbox.js';
import { CapabilityError, containerCapabilities } from './capabilities.js';
import { checkPathList, PathListError } from './masked-paths.js';
import { SeccompError } from './seccomp/bpf.js';
import { seccompFilter } from './seccomp/filter.js';
import { ContainerRootfs } from './container-rootfs.js';
import { PodFiles, POD_FILES } from './pod-files.js';
import { PodHolders } from './pod-holders.js';
import { staticApplet } from './setuid-kit.js';
import type { HostProbes } from '../host-probes.js';
import { runToEnd } from '../proc.js';
import { imageGroups, imageProcess, ImageProcessError, resolveUser } from './image-process.js';
import { sandboxedProcessSpec } from './sandboxed-process.js';

/** `auto`: sandboxes for real images where bubblewrap works; `off`: host processes always. */
export type SandboxSetting = 'auto' | 'off';

/** What every sandboxed container gets mounted: the kernel's file systems, the setuid kit and the pod's files. */
const CONTAINER_MOUNT_POINTS = [
  ...FIXED_MOUNT_POINTS.map((path) => [path, 'directory'] as const),
  ...Object.values(POD_FILES).map((path) => [path, 'file'] as const),
];

export class ImageSandboxes {
  readonly bubblewrap: Bubblewrap | undefined;
  readonly rootfs: ContainerRootfs | undefined;
  /** What sets up the containers bwrap cannot run as asked, or why nothing does. */
  readonly mountSandbox: MountSandbox | string = 'no sandboxes';
  /** Why containers are host processes, when they are. */
  private readonly off: string;
  /** The processes that hold pods' namespaces. */
  private readonly holders: PodHolders | undefined;
  /** Each sandboxed pod's hostname and resolv.conf. */
  private readonly podFiles: PodFiles;

  /**
   * The sandboxes of the runtime whose directory is DIR, as far as the host
   * allows (PROBES, whose sandboxes' answers it needs unless sandboxes are
   * off or images are records): the setuid kit and util-linux's set-up once
   * bubblewrap works, then the overlays.
   */
  static async open(dir: string, images: RuntimeImages, setting: SandboxSetting, probes: HostProbes): Promise<ImageSandboxes> {
    const rootfsDir = join(dir, 'rootfs');
    const off =
      ImageSandboxes.notWanted(setting, images) ||
      (!probes.bubblewrap || !probes.rootfs ? 'the host was not asked whether bubblewrap works' : '');
    const bubblewrap = off ? undefined : new Bubblewrap(join(dir, 'kit'), await probes.bubblewrap!);
    if (!bubblewrap?.available) {
      // The probes bound the containers' directory for overlays that no container will use.
      if ((await probes.rootfs)?.shared.bound) void runToEnd(['umount', '-l', join(rootfsDir, 'containers')]);
      return new ImageSandboxes(dir, images, off || bubblewrap!.reason);
    }
    const kit = bubblewrap.setuidKit;
    const applet = (name: 'mount' | 'umount') => (kit.ok ? staticApplet(kit, name) : undefined) ?? name;
    const [probed, mountSandbox] = await Promise.all([probes.rootfs!, MountSandbox.detect(join(dir, 'bin'), kit, dir)]);
    const rootfs = new ContainerRootfs(rootfsDir, probed, { mount: applet('mount'), umount: applet('umount') }, CONTAINER_MOUNT_POINTS);
    return new ImageSandboxes(dir, images, '', { bubblewrap, rootfs, mountSandbox });
  }

  /** Why a runtime with SETTING and IMAGES runs no container in a sandbox, whatever its host; empty when it may. */
  static notWanted(setting: SandboxSetting, images: RuntimeImages): string {
    if (setting === 'off') return 'sandboxes are turned off (--sandbox off)';
    if (!(images instanceof OciImageStore)) return 'images are records without file systems (no registries.yaml)';
    return '';
  }

  private constructor(
    dir: string,
    private readonly images: RuntimeImages,
    /** Why containers are host processes; empty when they are sandboxed. */
    off: string,
    made?: { bubblewrap: Bubblewrap; rootfs: ContainerRootfs; mountSandbox: MountSandbox | string },
  ) {
    this.off = off;
    if (made) {
      ({ bubblewrap: this.bubblewrap, rootfs: this.rootfs, mountSandbox: this.mountSandbox } = made);
      this.holders = new PodHolders(made.bubblewrap);
    }
    // On the scratch tmpfs where there is one: on ext4 a new pod's two files cost the thread (bench/notes/sandboxes.md).
    const scratch = typeof this.mountSandbox === 'string' ? undefined : this.mountSandbox.scratch;
    this.podFiles = new PodFiles(join(scratch?.dir ?? dir, 'pods'));
  }

  /** Runs the mounts and unmounts of root file systems, and starts pods' holders, with `runner` from now on (the runtime's spawner). */
  useRunner(runner: ProgramRunner): void {
    this.rootfs?.useRunner((argv, key) => runner.run(argv, key));
    this.holders?.useDetach((argv) => runner.detach(argv));
    const spares = typeof this.mountSandbox === 'string' ? undefined : this.mountSandbox.spareShells;
    if (spares) runner.useSpares?.(spares.shell, spares.dir);
  }

  get enabled(): boolean {
    return this.off === '';
  }

  /** For `runtime status` and the node's warning. */
  describe(): string {
    if (!this.enabled) return `host processes: ${this.off}`;
    const setup = this.mountSandbox;
    const own =
      typeof setup === 'string'
        ? `bwrap sets no_new_privs in every container (no util-linux setup: ${setup})`
        : `without seccomp, a container without no_new_privs or with a Bidirectional mount set up by util-linux as runc sets one up (its /dev made in ${setup.scratch.dir}${setup.scratch.onTmpfs ? ', a tmpfs' : ''})`;
    const kit = this.bubblewrap!.setuidKit;
    const applets =
      kit.ok && kit.applets ? "; mounts, unmounts, pivot_root, nsenter, unshare and the set-up's shell by a static busybox's applets" : '';
    // util-linux's set-ups mount their own overlay, in their namespace; the rest are mounted on the host.
    const inNamespace =
      typeof setup !== 'string' && this.rootfs!.mode === 'overlay'
        ? "a util-linux set-up mounts its container's overlay in the container's own mount namespace; on the host for the others: "
        : '';
    return `${this.bubblewrap!.describe()}; ${own}; root file systems: ${inNamespace}${this.rootfs!.describe()}${applets}`;
  }

  /** A container of `image` runs in a sandbox: the image has layers and sandboxes are on. */
  applies(image: ImageRecord): boolean {
    return this.enabled && (image.layers?.length ?? 0) > 0;
  }

  /** CreateContainer of a sandboxed container: its process and its root file system. */
  create(id: string, image: ImageRecord, config: ContainerConfig__Output): SandboxedSpec {
    const store = this.images as OciImageStore;
    const security = config.linux?.securityContext;
    let process;
    let capabilities: string[] | undefined;
    let filter: Buffer | undefined;
    try {
      capabilities = containerCapabilities(
        security?.privileged ?? false,
        security?.capabilities?.addCapabilities,
        security?.capabilities?.dropCapabilities,
      );
      filter = seccompFilter(security?.seccomp, security?.privileged ?? false, capabilities);
      checkPathList('maskedPaths', security?.maskedPaths ?? []);
      checkPathList('readonlyPaths', security?.readonlyPaths ?? []);
      process = imageProcess(store.config(image).config, {
        command: config.command,
        args: config.args,
        envs: config.envs,
        workingDir: config.workingDir,
        runAsUser: security?.runAsUser ? security.runAsUser.value : undefined,
        runAsUsername: security?.runAsUsername || undefined,
        runAsGroup: security?.runAsGroup ? security.runAsGroup.value : undefined,
      });
    } catch (err) {
      if (err instanceof ImageProcessError || err instanceof CapabilityError || err instanceof PathListError || err instanceof SeccompError)
        throw invalid(`container "${config.metadata?.name}": ${err.message}`);
      throw err;
    }
    let files: string;
    try {
      files = this.rootfs!.prepare(id, image.id, () => store.rootfsLayers(image));
    } catch (err) {
      this.forget(id);
      throw unknown(
        `failed to create containerd container: failed to prepare the root file system of image ${image.id}: ${(err as Error).message}`,
      );
    }
    try {
      // The image's /etc/passwd and /etc/group name the user, as containerd reads them at create.
      const { uid, gid } = resolveUser(files, process.user);
      const groups = [...new Set([...imageGroups(files, uid), ...(security?.supplementalGroups ?? []).map(Number)])].filter(
        (g) => g !== gid,
      );
      // Beside the root file system, gone with it.
      const seccomp = filter ? join(dirname(this.rootfs!.path(id)), 'seccomp.bpf') : undefined;
      if (seccomp) {
        mkdirSync(dirname(seccomp), { recursive: true });
        writeFileSync(seccomp, filter!, { mode: 0o600 });
      }
      const maskedPaths = !security?.privileged && security?.maskedPaths?.length ? security.maskedPaths : undefined;
      const readonlyPaths = !security?.privileged && security?.readonlyPaths?.length ? security.readonlyPaths : undefined;
      // Set up by util-linux (no filter, no no_new_privs, no Bidirectional mount), over an overlay, with
      // nothing to look for in its mounted root: its own table mounts its root, in its namespace.
      const ownRoot =
        typeof this.mountSandbox !== 'string' &&
        this.rootfs!.mode === 'overlay' &&
        !filter &&
        !security?.noNewPrivs &&
        !config.mounts.some((m) => m.propagation === 'PROPAGATION_BIDIRECTIONAL') &&
        kernelPathsOnly(maskedPaths ?? [], readonlyPaths ?? []);
      // Mounted on the host while the create answers; the start waits for it.
      if (!ownRoot) this.rootfs!.startMount(id, image.id, () => store.rootfsLayers(image));
      return {
        rootfs: this.rootfs!.path(id),
        argv: process.argv,
        env: process.env,
        cwd: process.cwd,
        uid,
        gid,
        groups: groups.length > 0 ? groups : undefined,
        readonlyRootfs: security?.readonlyRootfs || undefined,
        capabilities,
        privileged: security?.privileged || undefined,
        // A privileged container sees everything, as containerd gives it.
        maskedPaths,
        readonlyPaths,
        seccomp,
        noNewPrivs: security?.noNewPrivs || undefined,
        ownRoot: ownRoot || undefined,
      };
    } catch (err) {
      this.forget(id);
      throw invalid(`container "${config.metadata?.name}": ${(err as Error).message}`);
    }
  }

  /** How StartContainer runs a sandboxed container: sandboxedProcessSpec with this runtime's parts. */
  async processSpec(
    c: ContainerRecord,
    spec: SandboxedSpec,
    sandbox: SandboxRecord,
    holder: number,
    sharedPid: number | 'own' | 'node',
  ): Promise<Omit<ProcessSpec, 'logPath' | 'stdin' | 'beforeExec'>> {
    const parts = {
      bubblewrap: this.bubblewrap!,
      rootfs: this.rootfs!,
      mountSandbox: this.mountSandbox,
      podFiles: this.podFiles,
      store: this.images as OciImageStore,
    };
    return sandboxedProcessSpec(parts, c, spec, sandbox, holder, sharedPid);
  }

  /**
   * Starts the process holding the pod's namespaces with RunPodSandbox
   * (PodHolders.start): `save` is called once the sandbox has it.
   */
  async startPodHolder(sandbox: SandboxRecord, save: (s: SandboxRecord) => void): Promise<void> {
    if (this.enabled) await this.holders!.start(sandbox, save);
  }

  /** PID 1 of the pod's holder, once its start is done, started again if it is gone (a runtime restart ends it). */
  podHolder(sandbox: SandboxRecord, save: (s: SandboxRecord) => void): Promise<number> {
    return this.holders!.program(sandbox, save);
  }

  /**
   * Ends a pod's holder, and with it whatever is left in its namespaces, at
   * once, and deletes its files: resolves once they are gone (undefined when
   * it had no holder).
   */
  releasePod(sandbox: SandboxRecord): Promise<void> | undefined {
    if (!this.holders?.release(sandbox)) return undefined;
    return this.podFiles.remove(sandbox.id);
  }

  /** Unmounts a sandboxed container's root file system (it exited, or its runtime restarted before its start), what it wrote kept; nothing for one mounted in its own namespace. */
  unmountRootfs(c: ContainerRecord): void {
    if (!c.sandboxed?.ownRoot) this.rootfs?.unmount(c.id);
  }

  /** What a create that failed made goes (in the background: nothing was mounted). */
  private forget(id: string): void {
    this.rootfs!.release(id).catch(() => {});
  }

  /** Removes a container's root file system, and its set-up files. */
  async releaseContainer(id: string, ownRoot = false): Promise<void> {
    await this.rootfs?.release(id, !ownRoot);
    if (typeof this.mountSandbox !== 'string') this.mountSandbox.scratch.release(id);
  }

  /** The runtime's shutdown, its containers stopped: their set-up files go. */
  close(): void {
    if (typeof this.mountSandbox !== 'string') this.mountSandbox.close();
    this.rootfs?.close();
  }

  /** The files of `image` (one with layers) for image volumes, stacked the first time they are asked for. */
  volumeRoot(image: ImageRecord): string {
    if (!image.layers?.length) throw new Error(`image ${image.id} has no layers to mount`);
    return this.rootfs!.volumeRoot(image.id, () => (this.images as OciImageStore).rootfsLayers(image));
  }

  /** Deletes the stacked layers of images that are gone and that no container uses any more. */
  pruneImageRoots(inUse: Iterable<string>): void {
    this.rootfs?.pruneImages(inUse);
  }

  /** A running sandboxed container's exec wrapper: nsenter into its namespaces and root, as its user. */
  execWrapper(spec: SandboxedSpec, program: number): string[] {
    // Under a filter the exec goes through the kit's bwrap, which makes its scratch root on the container's /tmp.
    if (spec.seccomp) ensureTmp(spec.rootfs);
    return this.bubblewrap!.execWrapper(
      program,
      spec.cwd,
      spec.uid,
      spec.gid,
      spec.groups ?? [],
      spec.capabilities,
      spec.seccomp,
      spec.noNewPrivs === true,
    );
  }
}

/** Makes /tmp (1777) in a container's root file system that has nothing there (an image without one, or a container that removed it). */
function ensureTmp(rootfs: string): void {
  const tmp = join(rootfs, 'tmp');
  try {
    lstatSync(tmp);
  } catch {
    mkdirSync(tmp);
    chmodSync(tmp, 0o1777);
  }
}
