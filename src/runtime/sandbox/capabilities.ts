// Which capabilities a sandboxed container keeps, by containerd's rules: its
// default set, then ALL added or dropped, then each named one added or
// dropped; a privileged container keeps them all. Names as setpriv takes
// them (lower case, no cap_ prefix); CRI gives them as the kubelet does
// ("NET_ADMIN", also with the CAP_ prefix).

/** Every Linux capability, in number order (0 to 40). */
export const ALL_CAPABILITIES = [
  'chown',
  'dac_override',
  'dac_read_search',
  'fowner',
  'fsetid',
  'kill',
  'setgid',
  'setuid',
  'setpcap',
  'linux_immutable',
  'net_bind_service',
  'net_broadcast',
  'net_admin',
  'net_raw',
  'ipc_lock',
  'ipc_owner',
  'sys_module',
  'sys_rawio',
  'sys_chroot',
  'sys_ptrace',
  'sys_pacct',
  'sys_admin',
  'sys_boot',
  'sys_nice',
  'sys_resource',
  'sys_time',
  'sys_tty_config',
  'mknod',
  'lease',
  'audit_write',
  'audit_control',
  'setfcap',
  'mac_override',
  'mac_admin',
  'syslog',
  'wake_alarm',
  'block_suspend',
  'audit_read',
  'perfmon',
  'bpf',
  'checkpoint_restore',
];

/** containerd's default set (oci.WithDefaultCapabilities), as Docker's. */
export const DEFAULT_CAPABILITIES = [
  'chown',
  'dac_override',
  'fsetid',
  'fowner',
  'mknod',
  'net_raw',
  'setgid',
  'setuid',
  'setfcap',
  'setpcap',
  'net_bind_service',
  'sys_chroot',
  'kill',
  'audit_write',
];

export class CapabilityError extends Error {}

/**
 * The capabilities a container keeps, in number order; undefined when it
 * keeps them all (privileged, or ALL added and nothing dropped). Throws
 * CapabilityError for a name Linux does not have.
 */
export function containerCapabilities(
  privileged: boolean,
  add: readonly string[] = [],
  drop: readonly string[] = [],
): string[] | undefined {
  if (privileged) return undefined;
  const name = (n: string) => {
    const plain = n.toLowerCase().replace(/^cap_/, '');
    if (plain !== 'all' && !ALL_CAPABILITIES.includes(plain)) throw new CapabilityError(`unknown capability "${n}"`);
    return plain;
  };
  const added = add.map(name);
  const dropped = drop.map(name);
  let kept = new Set(added.includes('all') ? ALL_CAPABILITIES : DEFAULT_CAPABILITIES);
  if (dropped.includes('all')) kept = new Set();
  for (const c of added) if (c !== 'all') kept.add(c);
  for (const c of dropped) kept.delete(c);
  if (kept.size === ALL_CAPABILITIES.length) return undefined;
  return ALL_CAPABILITIES.filter((c) => kept.has(c));
}
