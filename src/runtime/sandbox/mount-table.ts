// A container's mounts as one fstab(5) table, made by a single `mount -a`
// in the container's mount namespace, in the order runc makes them: its root
// file system bound at the new root (or its overlay mounted there), /proc, /dev and its devices, /sys, the
// volumes (parents first), the kit, the read-only and masked paths, and the
// root made read-only last. libmount reads the namespace's mounts once, when
// it starts, so an entry is skipped as "already mounted" only when it was
// there before: the new root is a fresh mount point, which everything else
// is under.

/** A volume as the table mounts it: `containerPath` already made in the sandbox, its symlinks resolved. */
export interface TableMount {
  hostPath: string;
  containerPath: string;
  readonly: boolean;
  /** Mount points under hostPath on the host, made read-only too (CRI's recursive_read_only). */
  readonlySubmounts?: readonly string[];
  propagation?: 'PROPAGATION_HOST_TO_CONTAINER' | 'PROPAGATION_BIDIRECTIONAL';
}

export interface MountTable {
  /** The container's root file system on the host, bound at `root`. */
  rootfs: string;
  /**
   * Its root's overlay, mounted at `root` by the table itself (in the
   * container's mount namespace only) in place of a bind of `rootfs`.
   */
  overlay?: RootOverlay;
  /** The empty directory the new root is bound at, and pivoted into. */
  root: string;
  /** The directory that becomes /dev (devTemplate's), its devices bound over its files. */
  dev: string;
  /** The setuid kit, bound read-only at KIT_PATH. */
  kit: string;
  kitPath: string;
  mounts: readonly TableMount[];
  /** /sys writable (read-only otherwise, with everything mounted under it). */
  privileged: boolean;
  /** The host's mount points under /sys. */
  sysSubmounts: readonly string[];
  /** A read-only copy of the host's /sys, read-only all the way down (readonlySysTable's): bound as it is when there is one. */
  readonlySys?: string;
  readonlyPaths: readonly string[];
  masked: readonly { containerPath: string; directory: boolean }[];
  readonlyRootfs: boolean;
}

/** An overlay's directories: the image's stacked layers, the container's own layer and overlayfs's work directory. */
export interface RootOverlay {
  lower: string;
  upper: string;
  work: string;
}

/** The device nodes of a container's /dev, bound from the host's as runc makes them. */
export const DEVICES = ['null', 'zero', 'full', 'random', 'urandom', 'tty'];

/** The table's text: one line a mount, its fields escaped as fstab(5) wants them. */
export function mountTable(t: MountTable): string {
  const at = (containerPath: string) => (containerPath === '/' ? t.root : `${t.root}${containerPath}`);
  const lines: string[][] = [];
  const add = (source: string, target: string, type: string, options: string) => lines.push([source, target, type, options]);
  const readOnly = (target: string) => add(target, target, 'none', 'remount,bind,ro');

  if (t.overlay) add('overlay', t.root, 'overlay', `lowerdir=${t.overlay.lower},upperdir=${t.overlay.upper},workdir=${t.overlay.work}`);
  else add(t.rootfs, t.root, 'none', 'rbind,rslave');
  add('proc', at('/proc'), 'proc', 'nosuid,nodev,noexec');
  add(t.dev, at('/dev'), 'none', 'bind');
  for (const device of DEVICES) add(`/dev/${device}`, at(`/dev/${device}`), 'none', 'bind');
  add('devpts', at('/dev/pts'), 'devpts', 'newinstance,ptmxmode=0666,mode=0620,gid=5,nosuid,noexec');
  add('shm', at('/dev/shm'), 'tmpfs', 'nosuid,nodev,noexec,mode=1777,size=65536k');
  if (t.privileged) add('/sys', at('/sys'), 'none', 'rbind');
  else if (t.readonlySys) add(t.readonlySys, at('/sys'), 'none', 'rbind');
  else {
    add('/sys', at('/sys'), 'none', 'rbind,ro');
    for (const sub of t.sysSubmounts) readOnly(at(sub));
  }
  for (const m of t.mounts) {
    add(m.hostPath, at(m.containerPath), 'none', ['rbind', ...(m.readonly ? ['ro'] : []), propagationOption(m.propagation)].join(','));
    for (const sub of m.readonlySubmounts ?? []) readOnly(at(m.containerPath) + sub.slice(m.hostPath.length));
  }
  add(t.kit, at(t.kitPath), 'none', 'bind,ro');
  for (const path of t.readonlyPaths) add(at(path), at(path), 'none', 'rbind,ro');
  for (const m of t.masked) {
    if (m.directory) add('tmpfs', at(m.containerPath), 'tmpfs', 'ro,nosuid,nodev,noexec');
    else add('/dev/null', at(m.containerPath), 'none', 'bind');
  }
  if (t.readonlyRootfs) readOnly(t.root);
  return tableText(lines);
}

/**
 * The table that binds the host's /sys at `dir`, private, read-only with
 * every mount under it (`sysSubmounts`): a container's table binds `dir`
 * recursively, and a recursive bind copies each mount's read-only flag.
 */
export function readonlySysTable(dir: string, sysSubmounts: readonly string[]): string {
  const lines = [['/sys', dir, 'none', 'rbind,ro,rprivate']];
  for (const sub of sysSubmounts)
    lines.push([`${dir}${sub.slice('/sys'.length)}`, `${dir}${sub.slice('/sys'.length)}`, 'none', 'remount,bind,ro']);
  return tableText(lines);
}

/** fstab(5) lines of source, target, type and options, each field escaped. */
function tableText(lines: readonly string[][]): string {
  return lines.map((fields) => `${fields.map(escapeField).join(' ')} 0 0\n`).join('');
}

/**
 * The volume's propagation, as runc's: private by default; HostToContainer
 * a slave of the host's mount; Bidirectional shared with it, so mounts made
 * on either side reach the other.
 */
function propagationOption(propagation: TableMount['propagation']): string {
  if (propagation === 'PROPAGATION_BIDIRECTIONAL') return 'rshared';
  if (propagation === 'PROPAGATION_HOST_TO_CONTAINER') return 'rslave';
  return 'rprivate';
}

/** fstab(5) fields cannot hold blanks or newlines: they are written as octal escapes, as is the backslash. */
function escapeField(field: string): string {
  return field.replace(/[\\ \t\n]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
}
