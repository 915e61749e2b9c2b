// The embedded runtime's RuntimeDefault seccomp profile for x86_64 and arm64
// hosts. It grants what containerd's built-in default profile grants on
// linux/amd64 and linux/arm64 (the same syscalls, argument filters,
// capability-gated groups and errno answers); everything else fails with
// EPERM.

import { ARCH_SPECIFIC, BASE_ALLOWED_SYSCALLS } from './default-syscalls.js';
import type { SeccompArg, SeccompProfile, SeccompRule } from './profile.js';

const EPERM = 1;
const ENOSYS = 38;

/**
 * Since Linux 4.8 a tracer can no longer use ptrace to slip past the tracee's
 * seccomp filter, so these are allowed without CAP_SYS_PTRACE. Older kernels
 * are not a target of this runtime, so the rule is always present.
 */
const TRACING_SINCE_4_8 = ['ptrace', 'process_vm_readv', 'process_vm_writev'];

// ---------------------------------------------------------------------------
// socket(2): every address family the kernel defines except AF_ALG (38, the
// kernel crypto API: attack surface, no common use) and AF_VSOCK (40, not
// network-namespaced by default, so it reaches the host's VMs). AF_UNSPEC (0)
// cannot be created and is left out as well.

const SOCKET_DOMAINS: Readonly<Record<string, number>> = {
  unix: 1,
  inet: 2,
  ax25: 3,
  ipx: 4,
  appletalk: 5,
  netrom: 6,
  bridge: 7,
  atmpvc: 8,
  x25: 9,
  inet6: 10,
  rose: 11,
  decnet: 12,
  netbeui: 13,
  security: 14,
  key: 15,
  netlink: 16,
  packet: 17,
  ash: 18,
  econet: 19,
  atmsvc: 20,
  rds: 21,
  sna: 22,
  irda: 23,
  pppox: 24,
  wanpipe: 25,
  llc: 26,
  ib: 27,
  mpls: 28,
  can: 29,
  tipc: 30,
  bluetooth: 31,
  iucv: 32,
  rxrpc: 33,
  isdn: 34,
  phonet: 35,
  ieee802154: 36,
  caif: 37,
  nfc: 39,
  kcm: 41,
  qipcrtr: 42,
  smc: 43,
  xdp: 44,
  mctp: 45,
};

/**
 * One rule per allowed domain, except that an unbroken run starting at AF_UNIX
 * becomes a single "domain < first gap" rule. Only a one-sided bound is safe:
 * runc ORs several comparisons on one argument instead of ANDing them, so a
 * two-sided range would allow everything.
 */
function socketRules(): SeccompRule[] {
  const domains = [...new Set(Object.values(SOCKET_DOMAINS))].sort((a, b) => a - b);
  const rule = (value: number, op: SeccompArg['op']): SeccompRule => ({
    names: ['socket'],
    action: 'SCMP_ACT_ALLOW',
    args: [{ index: 0, value, op }],
  });
  const rules: SeccompRule[] = [];
  let rest = domains;
  if (domains.length > 1 && domains[0] === 1 && domains[1] === 2) {
    let end = 1;
    while (end + 1 < domains.length && domains[end + 1] === domains[end]! + 1) end++;
    rules.push(rule(domains[end]! + 1, 'SCMP_CMP_LT'));
    rest = domains.slice(end + 1);
  }
  for (const d of rest) rules.push(rule(d, 'SCMP_CMP_EQ'));
  return rules;
}

// ---------------------------------------------------------------------------
// personality(2) only with these persona values: PER_LINUX, PER_LINUX32
// (0x8), UNAME26 (0x20000), UNAME26|PER_LINUX32, and 0xffffffff (a query that
// changes nothing).

const PERSONAS = [0x0, 0x8, 0x20000, 0x20008, 0xffffffff];

// ---------------------------------------------------------------------------
// Extra syscalls a kept capability unlocks. Names as capabilities.ts gives them.

const CAPABILITY_SYSCALLS: ReadonlyArray<readonly [capability: string, syscalls: readonly string[]]> = [
  ['dac_read_search', ['open_by_handle_at']],
  [
    'sys_admin',
    [
      'mount',
      'umount',
      'umount2',
      'mount_setattr',
      'move_mount',
      'open_tree',
      'fsopen',
      'fsconfig',
      'fsmount',
      'fspick',
      'clone',
      'clone3',
      'unshare',
      'setns',
      'sethostname',
      'setdomainname',
      'quotactl',
      'quotactl_fd',
      'fanotify_init',
      'lookup_dcookie',
      'bpf',
      'perf_event_open',
      'syslog',
    ],
  ],
  ['sys_boot', ['reboot']],
  ['sys_chroot', ['chroot']],
  ['sys_module', ['init_module', 'finit_module', 'delete_module']],
  ['sys_pacct', ['acct']],
  ['sys_ptrace', ['ptrace', 'process_vm_readv', 'process_vm_writev', 'process_madvise', 'pidfd_getfd', 'kcmp']],
  ['sys_rawio', ['iopl', 'ioperm']],
  ['sys_time', ['settimeofday', 'stime', 'clock_settime', 'clock_settime64']],
  ['sys_tty_config', ['vhangup']],
  ['sys_nice', ['get_mempolicy', 'set_mempolicy', 'set_mempolicy_home_node', 'mbind']],
  ['syslog', ['syslog']],
  ['bpf', ['bpf']],
  ['perfmon', ['perf_event_open']],
];

/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET (CLONE_NEWTIME is not included). */
const NAMESPACE_CLONE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;

const allow = (names: readonly string[], args?: SeccompArg[]): SeccompRule =>
  args ? { names: [...names], action: 'SCMP_ACT_ALLOW', args } : { names: [...names], action: 'SCMP_ACT_ALLOW' };

/**
 * The RuntimeDefault seccomp profile for a container on an ARCH host (x64:
 * the x86_64, i386 and x32 ABIs; arm64: aarch64 and arm): unlisted syscalls fail with EPERM;
 * the base set, a domain-filtered socket(2) and a value-filtered personality(2)
 * are always allowed, and each kept capability adds the syscalls it governs.
 * Without sys_admin, clone(2) may not create namespaces, and clone3(2) (whose
 * flags sit behind a pointer seccomp cannot read) fails with ENOSYS so that
 * libc falls back to clone(2).
 *
 * `capabilities`: the container's kept capabilities, lower case without the cap_ prefix
 * (e.g. 'sys_admin', 'sys_ptrace'), as src/runtime/sandbox/capabilities.ts names them;
 * undefined means the container keeps all of them.
 */
export function runtimeDefaultProfile(capabilities: readonly string[] | undefined, arch: string = process.arch): SeccompProfile {
  const kept = (cap: string) => capabilities === undefined || capabilities.includes(cap);
  const own = ARCH_SPECIFIC[arch] ?? { syscalls: [], architectures: [] };

  const syscalls: SeccompRule[] = [
    allow(BASE_ALLOWED_SYSCALLS),
    ...socketRules(),
    ...PERSONAS.map((value) => allow(['personality'], [{ index: 0, value, op: 'SCMP_CMP_EQ' }])),
    allow(TRACING_SINCE_4_8),
    ...(own.syscalls.length > 0 ? [allow(own.syscalls)] : []),
  ];

  for (const [cap, names] of CAPABILITY_SYSCALLS) {
    if (kept(cap)) syscalls.push(allow(names));
  }

  if (!kept('sys_admin')) {
    // On x86 and arm the clone flags are argument 0 (s390's are argument 1).
    syscalls.push(allow(['clone'], [{ index: 0, value: NAMESPACE_CLONE_FLAGS, valueTwo: 0, op: 'SCMP_CMP_MASKED_EQ' }]));
    syscalls.push({ names: ['clone3'], action: 'SCMP_ACT_ERRNO', errnoRet: ENOSYS });
  }

  return {
    defaultAction: 'SCMP_ACT_ERRNO',
    defaultErrnoRet: EPERM,
    architectures: own.architectures,
    syscalls,
  };
}
