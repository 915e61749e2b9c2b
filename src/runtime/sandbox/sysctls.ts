// A pod's sysctls (LinuxPodSandboxConfig.sysctls), as runc checks them
// before writing: only those of a namespace the pod has of its own. Here that
// is the IPC namespace (kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*)
// and the UTS one (kernel.hostname, kernel.domainname), held by the pod's
// holder; and net.* in the pod's own network namespace (a pod network's).
// Anything else belongs to the whole host and is refused.
import { normalizeSysctlName, swapSysctlSeparators } from '../../util/sysctl-name.js';

/** Why a sysctl cannot be set (INVALID_ARGUMENT at RunPodSandbox). */
export class SysctlError extends Error {}

const IPC_SYSCTLS = new Set([
  'kernel.msgmax',
  'kernel.msgmnb',
  'kernel.msgmni',
  'kernel.sem',
  'kernel.shmall',
  'kernel.shmmax',
  'kernel.shmmni',
  'kernel.shm_rmid_forced',
]);
const UTS_SYSCTLS = new Set(['kernel.domainname', 'kernel.hostname']);

/** The pod's own namespaces that sysctls can be set in. */
export interface SysctlNamespaces {
  ipc: boolean;
  uts: boolean;
  /** A network namespace of its own (a pod network). */
  net?: boolean;
}

/**
 * The files under /proc/sys to write, with their values, in the order given;
 * throws SysctlError for a name that is malformed or not the pod's own. Names
 * are dotted (`kernel.shm_rmid_forced`) or slashed (`fs/mqueue/msg_max`).
 */
export function sysctlFiles(sysctls: Record<string, string>, own: SysctlNamespaces): [file: string, value: string][] {
  return Object.entries(sysctls).map(([name, value]) => {
    if (!/^[A-Za-z0-9_./-]+$/.test(name) || name.split(/[./]/).some((part) => part === '' || part === '..'))
      throw new SysctlError(`sysctl "${name}": not a sysctl name`);
    if (/[\n\0]/.test(value)) throw new SysctlError(`sysctl "${name}": its value has a newline or a NUL`);
    // The kubelet's normal form is dotted; a slash there is part of a name (a VLAN's "eth0/100").
    const dotted = normalizeSysctlName(name);
    const file = swapSysctlSeparators(dotted);
    if (IPC_SYSCTLS.has(dotted) || dotted.startsWith('fs.mqueue.')) {
      if (!own.ipc) throw new SysctlError(`sysctl "${name}" is not allowed in the host's IPC namespace`);
    } else if (UTS_SYSCTLS.has(dotted)) {
      if (!own.uts) throw new SysctlError(`sysctl "${name}" is not allowed in the host's UTS namespace`);
    } else if (dotted.startsWith('net.')) {
      if (!own.net)
        throw new SysctlError(
          `sysctl "${name}" is not allowed in the host's network namespace (the pod has none of its own: it is on the host's network, or no pod network is configured)`,
        );
    } else {
      throw new SysctlError(`sysctl "${name}" is not in a separate kernel namespace`);
    }
    return [file, value];
  });
}

/**
 * The shell script that writes its arguments (file, value, file, value ...)
 * under /proc/sys, stopping at the first that fails (through tee, which says
 * why: the shell's printf would say "I/O error" for any refusal).
 */
export const WRITE_SYSCTLS = 'while [ $# -gt 0 ]; do printf %s "$2" | tee "/proc/sys/$1" > /dev/null || exit 1; shift 2; done';
