// Sysctl names come dotted (kernel.shm_rmid_forced) or slashed
// (fs/mqueue/msg_max); a part can itself hold the other separator (a VLAN's
// eth0.100). The kubelet's normal form is dotted.

/** A sysctl's name with dots between its parts (the kubelet's NormalizeName): `net/ipv4/conf/eth0.100/forwarding` is `net.ipv4.conf.eth0/100.forwarding`. */
export function normalizeSysctlName(name: string): string {
  const first = name.search(/[./]/);
  return first === -1 || name[first] === '.' ? name : swapSysctlSeparators(name);
}

/** Dots for slashes and slashes for dots: a normal name's file under /proc/sys, and back. */
export function swapSysctlSeparators(name: string): string {
  return name.replace(/[./]/g, (c) => (c === '.' ? '/' : '.'));
}
