// The embedded runtime's RuntimeDefault seccomp profile for x86_64 and arm64
// hosts. It grants what containerd's built-in default profile grants on
// linux/amd64 and linux/arm64 (the same syscalls, argument filters,
// capability-gated groups and errno answers); everything else fails with
// EPERM.

import type { SeccompArg, SeccompProfile, SeccompRule } from './profile.js';

const EPERM = 1;
const ENOSYS = 38;

// ---------------------------------------------------------------------------
// Syscalls every container may make, grouped by what they are for. The x86
// (32-bit) and x32 spellings sit next to their 64-bit ones, since the profile
// also covers those ABIs.

const PROCESS = [
  'fork',
  'vfork',
  'execve',
  'execveat',
  'exit',
  'exit_group',
  'wait4',
  'waitid',
  'waitpid',
  'kill',
  'tkill',
  'tgkill',
  'pidfd_open',
  'pidfd_send_signal',
  'process_mrelease',
  'getpid',
  'getppid',
  'gettid',
  'getpgid',
  'setpgid',
  'getpgrp',
  'getsid',
  'setsid',
  'getpriority',
  'setpriority',
  'getrlimit',
  'setrlimit',
  'ugetrlimit',
  'prlimit64',
  'getrusage',
  'prctl',
  'capget',
  'capset',
  'seccomp',
  'set_tid_address',
  'set_robust_list',
  'get_robust_list',
  'rseq',
  'restart_syscall',
  'set_thread_area',
  'get_thread_area',
  'membarrier',
  'getcpu',
  'uname',
  'sysinfo',
  'times',
  'getrandom',
  'uretprobe',
  'landlock_create_ruleset',
  'landlock_add_rule',
  'landlock_restrict_self',
  'lsm_get_self_attr',
  'lsm_set_self_attr',
  'lsm_list_modules',
];

const IDENTITY = [
  'getuid',
  'getuid32',
  'geteuid',
  'geteuid32',
  'getgid',
  'getgid32',
  'getegid',
  'getegid32',
  'getresuid',
  'getresuid32',
  'getresgid',
  'getresgid32',
  'getgroups',
  'getgroups32',
  'setuid',
  'setuid32',
  'setgid',
  'setgid32',
  'setreuid',
  'setreuid32',
  'setregid',
  'setregid32',
  'setresuid',
  'setresuid32',
  'setresgid',
  'setresgid32',
  'setgroups',
  'setgroups32',
  'setfsuid',
  'setfsuid32',
  'setfsgid',
  'setfsgid32',
];

const SIGNALS = [
  'rt_sigaction',
  'rt_sigprocmask',
  'rt_sigpending',
  'rt_sigsuspend',
  'rt_sigreturn',
  'rt_sigqueueinfo',
  'rt_tgsigqueueinfo',
  'rt_sigtimedwait',
  'rt_sigtimedwait_time64',
  'sigprocmask',
  'sigreturn',
  'sigaltstack',
  'signalfd',
  'signalfd4',
  'pause',
  'alarm',
];

const TIME = [
  'time',
  'gettimeofday',
  'adjtimex',
  'clock_adjtime',
  'clock_adjtime64',
  'clock_gettime',
  'clock_gettime64',
  'clock_getres',
  'clock_getres_time64',
  'clock_nanosleep',
  'clock_nanosleep_time64',
  'nanosleep',
  'getitimer',
  'setitimer',
  'timer_create',
  'timer_delete',
  'timer_getoverrun',
  'timer_gettime',
  'timer_gettime64',
  'timer_settime',
  'timer_settime64',
  'timerfd_create',
  'timerfd_gettime',
  'timerfd_gettime64',
  'timerfd_settime',
  'timerfd_settime64',
];

const SCHEDULING = [
  'sched_yield',
  'sched_getaffinity',
  'sched_setaffinity',
  'sched_getattr',
  'sched_setattr',
  'sched_getparam',
  'sched_setparam',
  'sched_getscheduler',
  'sched_setscheduler',
  'sched_get_priority_max',
  'sched_get_priority_min',
  'sched_rr_get_interval',
  'sched_rr_get_interval_time64',
  'ioprio_get',
  'ioprio_set',
];

const MEMORY = [
  'brk',
  'mmap',
  'mmap2',
  'munmap',
  'mremap',
  'mprotect',
  'madvise',
  'mincore',
  'msync',
  'remap_file_pages',
  'mlock',
  'mlock2',
  'mlockall',
  'munlock',
  'munlockall',
  'memfd_create',
  'memfd_secret',
  'pkey_alloc',
  'pkey_free',
  'pkey_mprotect',
  'map_shadow_stack',
  'mseal',
  'cachestat',
  'futex',
  'futex_time64',
  'futex_waitv',
  'futex_wait',
  'futex_wake',
  'futex_requeue',
];

const FILE_IO = [
  'read',
  'write',
  'readv',
  'writev',
  'pread64',
  'pwrite64',
  'preadv',
  'preadv2',
  'pwritev',
  'pwritev2',
  'lseek',
  '_llseek',
  'close',
  'close_range',
  'dup',
  'dup2',
  'dup3',
  'fcntl',
  'fcntl64',
  'ioctl',
  'flock',
  'pipe',
  'pipe2',
  'sendfile',
  'sendfile64',
  'splice',
  'tee',
  'vmsplice',
  'copy_file_range',
  'readahead',
  'fadvise64',
  'fadvise64_64',
  'fallocate',
  'fsync',
  'fdatasync',
  'sync',
  'syncfs',
  'sync_file_range',
  'io_setup',
  'io_destroy',
  'io_submit',
  'io_cancel',
  'io_getevents',
  'io_pgetevents',
  'io_pgetevents_time64',
];

const WAITING = [
  'poll',
  'ppoll',
  'ppoll_time64',
  'select',
  '_newselect',
  'pselect6',
  'pselect6_time64',
  'epoll_create',
  'epoll_create1',
  'epoll_ctl',
  'epoll_ctl_old',
  'epoll_wait',
  'epoll_wait_old',
  'epoll_pwait',
  'epoll_pwait2',
  'eventfd',
  'eventfd2',
  'inotify_init',
  'inotify_init1',
  'inotify_add_watch',
  'inotify_rm_watch',
  'fanotify_mark',
];

const FILESYSTEM = [
  'open',
  'openat',
  'openat2',
  'creat',
  'name_to_handle_at',
  'access',
  'faccessat',
  'faccessat2',
  'chdir',
  'fchdir',
  'getcwd',
  'getdents',
  'getdents64',
  'umask',
  'mkdir',
  'mkdirat',
  'mknod',
  'mknodat',
  'rmdir',
  'rename',
  'renameat',
  'renameat2',
  'link',
  'linkat',
  'symlink',
  'symlinkat',
  'unlink',
  'unlinkat',
  'readlink',
  'readlinkat',
  'chmod',
  'fchmod',
  'fchmodat',
  'fchmodat2',
  'chown',
  'chown32',
  'fchown',
  'fchown32',
  'fchownat',
  'lchown',
  'lchown32',
  'truncate',
  'truncate64',
  'ftruncate',
  'ftruncate64',
  'utime',
  'utimes',
  'utimensat',
  'utimensat_time64',
  'futimesat',
  'stat',
  'stat64',
  'lstat',
  'lstat64',
  'fstat',
  'fstat64',
  'fstatat64',
  'newfstatat',
  'statx',
  'statfs',
  'statfs64',
  'fstatfs',
  'fstatfs64',
  'statmount',
  'listmount',
  'getxattr',
  'lgetxattr',
  'fgetxattr',
  'getxattrat',
  'setxattr',
  'lsetxattr',
  'fsetxattr',
  'setxattrat',
  'listxattr',
  'llistxattr',
  'flistxattr',
  'listxattrat',
  'removexattr',
  'lremovexattr',
  'fremovexattr',
  'removexattrat',
];

/** Socket calls other than socket(2) itself, whose domain is filtered below. */
const NETWORK = [
  'socketpair',
  'socketcall',
  'bind',
  'connect',
  'listen',
  'accept',
  'accept4',
  'shutdown',
  'getsockname',
  'getpeername',
  'getsockopt',
  'setsockopt',
  'send',
  'sendto',
  'sendmsg',
  'sendmmsg',
  'recv',
  'recvfrom',
  'recvmsg',
  'recvmmsg',
  'recvmmsg_time64',
];

const SYSV_AND_POSIX_IPC = [
  'ipc',
  'msgget',
  'msgctl',
  'msgsnd',
  'msgrcv',
  'semget',
  'semctl',
  'semop',
  'semtimedop',
  'semtimedop_time64',
  'shmget',
  'shmctl',
  'shmat',
  'shmdt',
  'mq_open',
  'mq_unlink',
  'mq_getsetattr',
  'mq_notify',
  'mq_timedsend',
  'mq_timedsend_time64',
  'mq_timedreceive',
  'mq_timedreceive_time64',
];

/** The unconditional allow list (io_uring is deliberately absent). */
const BASE_ALLOWED_SYSCALLS: readonly string[] = [
  ...PROCESS,
  ...IDENTITY,
  ...SIGNALS,
  ...TIME,
  ...SCHEDULING,
  ...MEMORY,
  ...FILE_IO,
  ...WAITING,
  ...FILESYSTEM,
  ...NETWORK,
  ...SYSV_AND_POSIX_IPC,
];

/** Calls of one architecture's own, by the host's (process.arch), with the ABIs its profile covers. */
const ARCH_SPECIFIC: Record<string, { syscalls: readonly string[]; architectures: string[] }> = {
  // Thread-local storage and segment setup.
  x64: { syscalls: ['arch_prctl', 'modify_ldt'], architectures: ['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86', 'SCMP_ARCH_X32'] },
  // ARM's own spellings of fadvise and sync_file_range, its cache and TLS calls.
  arm64: {
    syscalls: ['arm_fadvise64_64', 'arm_sync_file_range', 'sync_file_range2', 'breakpoint', 'cacheflush', 'set_tls'],
    architectures: ['SCMP_ARCH_ARM', 'SCMP_ARCH_AARCH64'],
  },
};

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
