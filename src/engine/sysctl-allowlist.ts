// The kubelet's sysctl admission (pkg/kubelet/sysctl): a pod's
// securityContext.sysctls are admitted when each is a safe sysctl or matches
// --allowed-unsafe-sysctls, and is of a namespace the pod does not share with
// the host; otherwise the pod is rejected as SysctlForbidden.
import { release } from 'node:os';
import type { Pod } from './api/v1.js';
import type { AdmitResult } from './admission.js';
import { normalizeSysctlName } from '../util/sysctl-name.js';

type Namespace = 'IPC' | 'Net' | 'UTS' | 'User';

const BY_NAME: Record<string, Namespace> = {
  'kernel.domainname': 'UTS',
  'kernel.sem': 'IPC',
  'kernel.shmall': 'IPC',
  'kernel.shmmax': 'IPC',
  'kernel.shmmni': 'IPC',
  'kernel.shm_rmid_forced': 'IPC',
  'kernel.shm': 'IPC',
  'kernel.msgmax': 'IPC',
  'kernel.msgmnb': 'IPC',
  'kernel.msgmni': 'IPC',
  'kernel.msg': 'IPC',
};
const BY_PREFIX: [string, Namespace][] = [
  ['net.', 'Net'],
  ['fs.mqueue.', 'IPC'],
  ['user.', 'User'],
];

/** The safe sysctls, with the kernel that namespaced each (none: always). */
const SAFE: [string, string?][] = [
  ['kernel.shm_rmid_forced'],
  ['net.ipv4.ip_local_port_range'],
  ['net.ipv4.tcp_syncookies'],
  ['net.ipv4.ping_group_range'],
  ['net.ipv4.ip_unprivileged_port_start'],
  ['net.ipv4.ip_local_reserved_ports', '3.16'],
  ['net.ipv4.tcp_keepalive_time', '4.5'],
  ['net.ipv4.tcp_fin_timeout', '4.6'],
  ['net.ipv4.tcp_keepalive_intvl', '4.5'],
  ['net.ipv4.tcp_keepalive_probes', '4.5'],
  ['net.ipv4.tcp_rmem', '4.15'],
  ['net.ipv4.tcp_wmem', '4.15'],
  ['net.ipv4.tcp_slow_start_after_idle', '4.15'],
  ['net.ipv4.tcp_notsent_lowat', '4.6'],
];

/** A pattern of --allowed-unsafe-sysctls as the apiserver's policy validation accepts it (IsValidSysctlPattern). */
const PATTERN = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*([a-z0-9][-_a-z0-9]*)?[a-z0-9*]$/;
/** A sysctl name in a pod (IsValidSysctlName). */
export const SYSCTL_NAME = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/;
export const SYSCTL_MAX_LENGTH = 253;

/** The kernel namespace of a sysctl (GetNamespace, without the pattern's `*`); undefined when it is not namespaced. */
export function namespaceOf(name: string): Namespace | undefined {
  return BY_NAME[name] ?? BY_PREFIX.find(([prefix]) => name.startsWith(prefix))?.[1];
}

function atLeast(kernel: string, wanted: string): boolean {
  const have = kernel.split(/[.-]/).map(Number);
  const want = wanted.split('.').map(Number);
  for (let i = 0; i < want.length; i++) {
    const h = have[i] ?? 0;
    if (Number.isNaN(h)) return false;
    if (h !== want[i]) return h > want[i];
  }
  return true;
}

export class SysctlAllowlist {
  private readonly names = new Map<string, Namespace>();
  private readonly prefixes = new Map<string, Namespace>();

  /**
   * The safe sysctls this kernel namespaces, and `unsafe` patterns (a name,
   * or a prefix ending in `*`). Throws for a pattern that is malformed or
   * names no namespaced sysctl, with the kubelet's message.
   */
  constructor(unsafe: readonly string[] = [], kernel: string = release()) {
    const safe = SAFE.filter(([, since]) => since === undefined || atLeast(kernel, since)).map(([name]) => name);
    for (const pattern of [...safe, ...unsafe]) {
      if (pattern.length > SYSCTL_MAX_LENGTH || !PATTERN.test(pattern)) {
        throw new Error(`sysctl "${pattern}" must have at most ${SYSCTL_MAX_LENGTH} characters and match regex ${PATTERN.source}`);
      }
      const normal = normalizeSysctlName(pattern);
      const star = normal.indexOf('*');
      const nameOrPrefix = star === -1 ? normal : normal.slice(0, star);
      const ns = namespaceOf(nameOrPrefix);
      if (!ns) throw new Error(`the sysctls "${nameOrPrefix}" are not known to be namespaced`);
      (star === -1 ? this.names : this.prefixes).set(nameOrPrefix, ns);
    }
  }

  /** The kubelet's verdict on the pod's sysctls. */
  admit(pod: Pod): AdmitResult {
    const sysctls = (pod.spec.securityContext as { sysctls?: { name: string }[] } | undefined)?.sysctls ?? [];
    const shared = { IPC: pod.spec.hostIPC === true, Net: pod.spec.hostNetwork === true, UTS: false, User: pod.spec.hostUsers !== false };
    for (const { name } of sysctls) {
      const normal = normalizeSysctlName(name);
      const ns = this.names.get(normal) ?? [...this.prefixes].find(([prefix]) => normal.startsWith(prefix))?.[1];
      let problem: string | undefined;
      if (!ns) problem = `"${normal}" not allowlisted`;
      else if (shared[ns]) problem = `"${normal}" not allowed with host ${ns} enabled`;
      if (problem) return { admit: false, reason: 'SysctlForbidden', message: `forbidden sysctl: ${problem}` };
    }
    return { admit: true };
  }
}
