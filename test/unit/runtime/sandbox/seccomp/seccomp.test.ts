// The seccomp compiler: profiles in, classic BPF out, checked by running the
// program on system calls with a small interpreter of the instructions it
// uses (as the kernel would run it), against the comparisons done in 64-bit
// arithmetic. The real kernel runs these filters in
// test/integration/seccomp.test.ts.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CAPABILITIES } from '../../../../../src/runtime/sandbox/capabilities.js';
import { compileSeccomp, SeccompError } from '../../../../../src/runtime/sandbox/seccomp/bpf.js';
import { runtimeDefaultProfile } from '../../../../../src/runtime/sandbox/seccomp/default-profile.js';
import { seccompFilter } from '../../../../../src/runtime/sandbox/seccomp/filter.js';
import type { SeccompOperator, SeccompProfile } from '../../../../../src/runtime/sandbox/seccomp/profile.js';
import { AARCH64_SYSCALLS } from '../../../../../src/runtime/sandbox/seccomp/syscalls-aarch64.js';
import { X86_64_SYSCALLS } from '../../../../../src/runtime/sandbox/seccomp/syscalls-x86_64.js';

const X86_64 = 0xc000003e;
const AARCH64 = 0xc00000b7;
const I386 = 0x40000003;
const ARM = 0x40000028;
const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const KILL_PROCESS = 0x80000000;

/** Runs a compiled filter on one call, as the kernel does: what it returns. */
function run(filter: Buffer, call: string | number, args: bigint[] = [], arch = X86_64): number {
  const nr = typeof call === 'number' ? call : (arch === AARCH64 ? AARCH64_SYSCALLS : X86_64_SYSCALLS)[call];
  const data = Buffer.alloc(64);
  data.writeUInt32LE(nr, 0);
  data.writeUInt32LE(arch, 4);
  args.forEach((a, i) => data.writeBigUInt64LE(BigInt.asUintN(64, a), 16 + 8 * i));
  let acc = 0;
  for (let pc = 0; pc < filter.length / 8; pc++) {
    const code = filter.readUInt16LE(pc * 8);
    const jt = filter.readUInt8(pc * 8 + 2);
    const jf = filter.readUInt8(pc * 8 + 3);
    const k = filter.readUInt32LE(pc * 8 + 4);
    const jump = (taken: boolean) => (pc += taken ? jt : jf);
    switch (code) {
      case 0x20:
        acc = data.readUInt32LE(k);
        break;
      case 0x54:
        acc = (acc & k) >>> 0;
        break;
      case 0x15:
        jump(acc === k);
        break;
      case 0x25:
        jump(acc > k);
        break;
      case 0x35:
        jump(acc >= k);
        break;
      case 0x06:
        return k;
      default:
        throw new Error(`instruction ${code.toString(16)} at ${pc} is not one the compiler makes`);
    }
  }
  throw new Error('the program ran off its end');
}

const profile = (op: SeccompOperator, value: number, valueTwo?: number): SeccompProfile => ({
  defaultAction: 'SCMP_ACT_ALLOW',
  syscalls: [{ names: ['personality'], action: 'SCMP_ACT_ERRNO', args: [{ index: 2, value, valueTwo, op }] }],
});

describe('compileSeccomp', () => {
  it('compares a 64-bit argument as each operator says, across both halves', () => {
    const values = [0n, 1n, 7n, 0xffffffffn, 0x100000000n, 0x100000007n, 0xfffffffffn, 1n << 52n];
    const pivots = [0, 7, 0xffffffff, 0x100000000, 0x100000007];
    const holds: Record<Exclude<SeccompOperator, 'SCMP_CMP_MASKED_EQ'>, (a: bigint, b: bigint) => boolean> = {
      SCMP_CMP_EQ: (a, b) => a === b,
      SCMP_CMP_NE: (a, b) => a !== b,
      SCMP_CMP_LT: (a, b) => a < b,
      SCMP_CMP_LE: (a, b) => a <= b,
      SCMP_CMP_GT: (a, b) => a > b,
      SCMP_CMP_GE: (a, b) => a >= b,
    };
    for (const [op, test] of Object.entries(holds) as [keyof typeof holds, (a: bigint, b: bigint) => boolean][]) {
      for (const pivot of pivots) {
        const filter = compileSeccomp(profile(op, pivot));
        for (const v of values)
          expect(run(filter, 'personality', [0n, 0n, v]), `${op} ${v} against ${pivot}`).toBe(test(v, BigInt(pivot)) ? EPERM : ALLOW);
      }
    }
    const masked = compileSeccomp(profile('SCMP_CMP_MASKED_EQ', 0x1000000ff, 0x100000001));
    for (const v of values) expect(run(masked, 'personality', [0n, 0n, v])).toBe((v & 0x1000000ffn) === 0x100000001n ? EPERM : ALLOW);
  });

  it('kills a call of another architecture or of the x32 ABI, and gives unnamed calls the default action', () => {
    const filter = compileSeccomp({
      defaultAction: 'SCMP_ACT_ERRNO',
      syscalls: [{ names: ['read', 'no_such_call'], action: 'SCMP_ACT_ALLOW' }],
    });
    expect(run(filter, 'read')).toBe(ALLOW);
    expect(run(filter, 'write')).toBe(EPERM);
    expect(run(filter, 'read', [], 0x40000003)).toBe(KILL_PROCESS);
    expect(run(filter, 0x40000000)).toBe(KILL_PROCESS);
  });

  it('tries the rules of one call in order, each with all its conditions, and returns its errno', () => {
    const filter = compileSeccomp({
      defaultAction: 'SCMP_ACT_ALLOW',
      syscalls: [
        {
          names: ['socket'],
          action: 'SCMP_ACT_ERRNO',
          errnoRet: 97,
          args: [
            { index: 0, value: 40, op: 'SCMP_CMP_EQ' },
            { index: 1, value: 1, op: 'SCMP_CMP_EQ' },
          ],
        },
        { names: ['socket'], action: 'SCMP_ACT_KILL_PROCESS', args: [{ index: 0, value: 38, op: 'SCMP_CMP_EQ' }] },
      ],
    });
    expect(run(filter, 'socket', [40n, 1n])).toBe(0x00050061);
    expect(run(filter, 'socket', [40n, 2n])).toBe(ALLOW);
    expect(run(filter, 'socket', [38n])).toBe(KILL_PROCESS);
    expect(run(filter, 'socket', [2n])).toBe(ALLOW);
  });

  it('refuses what it cannot compile, naming the rule', () => {
    expect(() => compileSeccomp({ defaultAction: 'SCMP_ACT_NOTIFY' })).toThrow(SeccompError);
    expect(() =>
      compileSeccomp({
        defaultAction: 'SCMP_ACT_ALLOW',
        syscalls: [{ names: ['read'], action: 'SCMP_ACT_ERRNO', args: [{ index: 6, value: 0, op: 'SCMP_CMP_EQ' }] }],
      }),
    ).toThrow('syscalls[0].args[0].index: must be 0 to 5, got 6');
    expect(() =>
      compileSeccomp({
        defaultAction: 'SCMP_ACT_ALLOW',
        syscalls: [{ names: ['read'], action: 'SCMP_ACT_ERRNO', args: [{ index: 0, value: 0, op: 'SCMP_CMP_ALMOST' as SeccompOperator }] }],
      }),
    ).toThrow('unknown operator');
    expect(() => compileSeccomp({ defaultAction: 'SCMP_ACT_ALLOW' }, 'ppc64')).toThrow(
      'seccomp filters are compiled for x86_64 and arm64 hosts only, not ppc64',
    );
  });
});

describe('filters for arm64 hosts', () => {
  const arm64 = compileSeccomp(runtimeDefaultProfile(DEFAULT_CAPABILITIES, 'arm64'), 'arm64');

  it("numbers calls as arm64 does, and kills a call of another architecture (32-bit arm's too)", () => {
    // read is 63 on arm64 (0 on x86_64), openat 56, mount 40.
    expect([AARCH64_SYSCALLS.read, AARCH64_SYSCALLS.openat, AARCH64_SYSCALLS.mount]).toEqual([63, 56, 40]);
    for (const call of ['read', 'write', 'openat', 'execve', 'mmap', 'clone', 'exit_group', 'fchmodat', 'setresuid'])
      expect(run(arm64, call, [], AARCH64), call).toBe(ALLOW);
    for (const call of ['mount', 'umount2', 'unshare', 'setns', 'reboot', 'sethostname'])
      expect(run(arm64, call, [], AARCH64), call).toBe(EPERM);
    for (const arch of [X86_64, I386, ARM]) expect(run(arm64, 63, [], arch)).toBe(KILL_PROCESS);
    // Numbers with bit 30 set are no other ABI's on arm64: an unknown number gets the default.
    expect(run(arm64, 0x40000000, [], AARCH64)).toBe(EPERM);
  });

  it("gives arm64 its own calls and not x86's, and the same clone rule", () => {
    const profile = runtimeDefaultProfile(DEFAULT_CAPABILITIES, 'arm64');
    const names = profile.syscalls!.flatMap((r) => r.names);
    expect(names).toContain('cacheflush');
    expect(names).not.toContain('arch_prctl');
    expect(profile.architectures).toEqual(['SCMP_ARCH_ARM', 'SCMP_ARCH_AARCH64']);
    expect(run(arm64, 'clone', [0x3d0f00n], AARCH64)).toBe(ALLOW);
    expect(run(arm64, 'clone', [0x20000n], AARCH64)).toBe(EPERM);
    expect(run(arm64, 'clone3', [], AARCH64)).toBe(0x00050026);
  });
});

describe('the RuntimeDefault profile', () => {
  const withDefaults = compileSeccomp(runtimeDefaultProfile(DEFAULT_CAPABILITIES));
  const everything = compileSeccomp(runtimeDefaultProfile(undefined));

  it("allows a program's ordinary calls and refuses the host-wide ones with EPERM", () => {
    for (const call of [
      'read',
      'write',
      'openat',
      'execve',
      'mmap',
      'clone',
      'wait4',
      'exit_group',
      'chmod',
      'setresuid',
      'capset',
      'prctl',
    ])
      expect(run(withDefaults, call), call).toBe(ALLOW);
    for (const call of [
      'mount',
      'umount2',
      'unshare',
      'setns',
      'reboot',
      'init_module',
      'kexec_load',
      'sethostname',
      'kcmp',
      'open_by_handle_at',
    ])
      expect(run(withDefaults, call), call).toBe(EPERM);
  });

  it('lets in what a kept capability needs: mount with SYS_ADMIN, kcmp with SYS_PTRACE', () => {
    expect(run(compileSeccomp(runtimeDefaultProfile([...DEFAULT_CAPABILITIES, 'sys_admin'])), 'mount')).toBe(ALLOW);
    expect(run(compileSeccomp(runtimeDefaultProfile([...DEFAULT_CAPABILITIES, 'sys_ptrace'])), 'kcmp')).toBe(ALLOW);
    expect(run(everything, 'mount')).toBe(ALLOW);
    expect(run(everything, 'kexec_load')).toBe(EPERM); // no capability lets it in
  });

  it('lets clone make no namespace without SYS_ADMIN, and answers clone3 with ENOSYS so libc uses clone', () => {
    const CLONE_NEWNS = 0x20000n;
    const CLONE_THREAD_FLAGS = 0x3d0f00n;
    expect(run(withDefaults, 'clone', [CLONE_THREAD_FLAGS])).toBe(ALLOW);
    expect(run(withDefaults, 'clone', [CLONE_NEWNS])).toBe(EPERM);
    expect(run(withDefaults, 'clone3')).toBe(0x00050026);
    expect(run(everything, 'clone', [CLONE_NEWNS])).toBe(ALLOW);
  });

  it('takes only the listed personalities and socket families', () => {
    expect(run(withDefaults, 'personality', [0n])).toBe(ALLOW);
    expect(run(withDefaults, 'personality', [0xffffffffn])).toBe(ALLOW);
    expect(run(withDefaults, 'personality', [0x0040000n])).toBe(EPERM);
    expect(run(withDefaults, 'socket', [2n])).toBe(ALLOW); // AF_INET
    expect(run(withDefaults, 'socket', [40n])).toBe(EPERM); // AF_VSOCK
  });
});

describe('seccompFilter', () => {
  it('gives none for Unconfined, no profile, or a privileged container, and reuses the default filter', () => {
    expect(seccompFilter(undefined, false, DEFAULT_CAPABILITIES)).toBeUndefined();
    expect(seccompFilter({ profileType: 'Unconfined', localhostRef: '' }, false, DEFAULT_CAPABILITIES)).toBeUndefined();
    expect(seccompFilter({ profileType: 'RuntimeDefault', localhostRef: '' }, true, undefined)).toBeUndefined();
    const first = seccompFilter({ profileType: 'RuntimeDefault', localhostRef: '' }, false, DEFAULT_CAPABILITIES);
    expect(first).toBe(seccompFilter({ profileType: 'RuntimeDefault', localhostRef: '' }, false, [...DEFAULT_CAPABILITIES]));
  });
});
