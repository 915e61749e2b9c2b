// How StartContainer runs a sandboxed container: by bwrap or util-linux's set-up, over which root file system.
import { statSync } from 'node:fs';
import type { ProcessSpec } from '../process-spec.js';
import type { OciImageStore } from '../oci/image-store.js';
import { podHostname, type ContainerRecord, type SandboxedSpec, type SandboxRecord } from '../records.js';
import { PIDNS_FD, PROGRAM_TIMEOUT_MS, type Bubblewrap } from './bubblewrap.js';
import type { LaunchedProcess, MountSandbox } from './mount-sandbox.js';
import { MOUNT_FAILED, type ContainerRootfs } from './container-rootfs.js';
import type { PodFiles } from './pod-files.js';
import { findInRootfs, mkdirInRoot } from './image-process.js';
import { hostPathInLayers, type OverlayLayers } from './overlay-layers.js';

/** The parts of ImageSandboxes a sandboxed start uses. */
export interface SandboxParts {
  bubblewrap: Bubblewrap;
  rootfs: ContainerRootfs;
  /** What sets up the containers bwrap cannot run as asked, or why nothing does. */
  mountSandbox: MountSandbox | string;
  podFiles: PodFiles;
  store: OciImageStore;
}

/**
 * How StartContainer runs a sandboxed container, in `holder`'s namespaces,
 * and in its own PID namespace, the host's, or the one whose PID 1 is
 * `sharedPid`. bwrap runs it where it can run it as asked, util-linux the
 * rest: the table in docs/runtime/sandboxes.md, "The two programs that
 * make sandboxes". With spec.ownRoot its table mounts its overlay itself.
 */
export async function sandboxedProcessSpec(
  parts: SandboxParts,
  c: ContainerRecord,
  spec: SandboxedSpec,
  sandbox: SandboxRecord,
  holder: number,
  sharedPid: number | 'own' | 'node',
): Promise<Omit<ProcessSpec, 'logPath' | 'stdin' | 'beforeExec'>> {
  const bwrap = parts.bubblewrap;
  if (typeof sharedPid === 'number' && (spec.uid !== 0 || spec.gid !== 0) && !bwrap.usersJoinPidNamespaces) {
    throw new Error(
      `user ${spec.uid}:${spec.gid} cannot run in a shared PID namespace on the embedded runtime's sandboxes: without setpriv, non-root users get a user namespace, which cannot join the pod's PID namespace; run it as root or without shareProcessNamespace`,
    );
  }
  const store = parts.store;
  const imageLayers = () => {
    const image = store.find(c.imageId);
    if (!image) throw new Error(`image ${c.imageId} is no longer stored; pull it again`);
    return store.rootfsLayers(image);
  };
  const mounts: LaunchedProcess['mounts'] = [...(await parts.podFiles.mounts(sandbox)), ...c.mounts];
  const pid = sharedPid === 'own' ? 'CONTAINER' : sharedPid === 'node' ? 'NODE' : 'SHARED';
  const sandboxed = {
    rootfs: spec.rootfs,
    cwd: spec.cwd,
    holder,
    pid,
    uid: spec.uid,
    gid: spec.gid,
    groups: spec.groups ?? [],
    mounts,
    readonlyRootfs: spec.readonlyRootfs === true,
    capabilities: spec.capabilities,
    privileged: spec.privileged === true,
    maskedPaths: spec.maskedPaths ?? [],
    readonlyPaths: spec.readonlyPaths ?? [],
    hostIpc: sandbox.namespaces.ipc === 'NODE',
  } as const;
  const common = {
    argv: spec.argv,
    programTimeoutMs: PROGRAM_TIMEOUT_MS,
    hasProgram: (command: string) => findInRootfs(spec.rootfs, command, spec.env.PATH ?? '', spec.cwd, c.mounts) !== undefined,
    env: { ...spec.env, HOSTNAME: podHostname(sandbox) },
    cwd: spec.cwd,
  };
  const setup = parts.mountSandbox;
  // The program looked for in its overlay's layers, before its root is mounted.
  const hasProgramIn = (layers: OverlayLayers) => (command: string) =>
    findInRootfs(spec.rootfs, command, spec.env.PATH ?? '', spec.cwd, c.mounts, (path) => hostPathInLayers(layers, path)) !== undefined;
  // Its create started the mount.
  const rootMounted = async () => {
    await parts.rootfs.mounted(c.id, c.imageId, imageLayers);
  };
  if (spec.ownRoot && typeof setup !== 'string') {
    const layers = await parts.rootfs.layersOf(c.id, c.imageId, imageLayers);
    // What the kernel would refuse to mount, said before the set-up starts; its set-up says what else fails.
    if (layers && !statSync(layers.lower, { throwIfNoEntry: false })?.isDirectory())
      throw new Error(`${MOUNT_FAILED}: its image's stacked layers (${layers.lower}) are not a directory`);
    if (layers) {
      const launch = setup.wrapper({
        ...sandboxed,
        id: c.id,
        noNewPrivs: false,
        sharedPid: typeof sharedPid === 'number' ? sharedPid : undefined,
        overlay: layers,
      });
      return {
        ...common,
        hasProgram: hasProgramIn(layers),
        wrapper: launch.argv,
        orphanGuard: launch.orphanGuard,
        prepare: () => launch.prepare(async () => {}),
        programOf: (wrapperPid) => setup.programOf(wrapperPid),
        reportsSetUp: true,
      };
    }
  }
  // Set up below with its root mounted on the host (a runtime started again without util-linux's set-up or
  // overlays since its create): its record says so, for its unmount.
  if (spec.ownRoot) delete spec.ownRoot;
  if (
    typeof setup !== 'string' &&
    !spec.seccomp &&
    (!spec.noNewPrivs || mounts.some((m) => m.propagation === 'PROPAGATION_BIDIRECTIONAL'))
  ) {
    // The wrapper starts while the root is mounted, when that mount reaches its namespace: its mount points
    // are made in the overlay's layers meanwhile.
    const early = parts.rootfs.reachesNamespaces === true;
    if (!early) await rootMounted();
    const overlay = early ? await parts.rootfs.layersOf(c.id, c.imageId, imageLayers) : undefined;
    const launch = setup.wrapper({
      ...sandboxed,
      id: c.id,
      noNewPrivs: spec.noNewPrivs === true,
      sharedPid: typeof sharedPid === 'number' ? sharedPid : undefined,
      layers: overlay,
    });
    const process = {
      ...common,
      wrapper: launch.argv,
      orphanGuard: launch.orphanGuard,
      programOf: (wrapperPid: number) => setup.programOf(wrapperPid),
      reportsSetUp: true,
    };
    // The spawner runs the mount: the set-up's go-ahead waits for it there, and the program is looked for in the layers.
    if (overlay && !launch.readsRoot && parts.rootfs.handedToRunner(c.id)) {
      const done = rootMounted();
      done.catch(() => {}); // the start's error
      return {
        ...process,
        hasProgram: hasProgramIn(overlay),
        prepare: () => launch.prepare(() => Promise.resolve()),
        awaits: { key: c.id, done },
      };
    }
    return { ...process, prepare: () => launch.prepare(rootMounted) };
  }
  // Mounted before bwrap starts (it binds it at once), the cwd made in it.
  await rootMounted();
  mkdirInRoot(spec.rootfs, spec.cwd);
  // The files bwrap reads at fds from PIDNS_FD on: the PID namespace to join, then the seccomp filter.
  const files = [...(typeof sharedPid === 'number' ? [`/proc/${sharedPid}/ns/pid`] : []), ...(spec.seccomp ? [spec.seccomp] : [])];
  const seccompFd = spec.seccomp ? PIDNS_FD + files.length - 1 : undefined;
  return {
    ...common,
    wrapper: bwrap.wrapper({ ...sandboxed, seccompFd }),
    files,
    programOf: (wrapperPid) => bwrap.programOf(wrapperPid),
  };
}
