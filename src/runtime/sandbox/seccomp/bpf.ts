// A seccomp profile (the OCI runtime spec's LinuxSeccomp, as containerd's
// default and a Localhost profile file give it) compiled into the classic
// BPF program the kernel runs on each system call: what libseccomp does for
// runc, here for x86_64 and arm64 hosts. bwrap loads the program
// (`--seccomp FD`) just before it executes the container's first program.
//
// The program: a call of another architecture (the 32-bit ABIs among them),
// or of the x32 ABI, kills the process; then, for each system call the
// profile names, a comparison of its number followed by its rules in order
// (each rule's argument checks, then its action); a call no rule takes gets
// the default action.
import type { SeccompAction, SeccompArg, SeccompProfile, SeccompRule } from './profile.js';
import { AARCH64_SYSCALLS } from './syscalls-aarch64.js';
import { X86_64_SYSCALLS } from './syscalls-x86_64.js';

/** Bit 30 of a call's number on x86_64: the x32 ABI, which the table does not number. */
const X32_SYSCALL_BIT = 0x40000000;

/** What a filter for a host architecture (Node's process.arch) checks: its AUDIT_ARCH_* value and its call numbers. */
interface ArchTable {
  audit: number;
  syscalls: Readonly<Record<string, number>>;
  /** Whether numbers with bit 30 set are another ABI's (x32). */
  x32: boolean;
}

const ARCHES: Record<string, ArchTable> = {
  x64: { audit: 0xc000003e, syscalls: X86_64_SYSCALLS, x32: true },
  arm64: { audit: 0xc00000b7, syscalls: AARCH64_SYSCALLS, x32: false },
};
/** The kernel's limit on a filter's length. */
const MAX_INSTRUCTIONS = 4096;

// Offsets in struct seccomp_data: nr, arch, then six 64-bit arguments (little-endian: low half first).
const NR = 0;
const ARCH = 4;
const argLow = (i: number) => 16 + 8 * i;
const argHigh = (i: number) => 20 + 8 * i;

// Opcodes (BPF_CLASS | BPF_SIZE/OP | BPF_MODE/SRC).
const LD_ABS = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const JGT = 0x25;
const JGE = 0x35;
const AND = 0x54; // BPF_ALU | BPF_AND | BPF_K
const RET = 0x06; // BPF_RET | BPF_K

/** What a filter returns (SECCOMP_RET_*). */
const RET_KILL_PROCESS = 0x80000000;
const RET_KILL_THREAD = 0x00000000;
const RET_TRAP = 0x00030000;
const RET_ERRNO = 0x00050000;
const RET_TRACE = 0x7ff00000;
const RET_LOG = 0x7ffc0000;
const RET_ALLOW = 0x7fff0000;
const EPERM = 1;

/** One instruction; `fail` marks a jump (jt or jf) to the end of its rule, resolved once the rule is laid out. */
interface Insn {
  code: number;
  jt: number | 'fail';
  jf: number | 'fail';
  k: number;
}

export class SeccompError extends Error {}

const insn = (code: number, k: number, jt: number | 'fail' = 0, jf: number | 'fail' = 0): Insn => ({ code, jt, jf, k: k >>> 0 });
const load = (offset: number) => insn(LD_ABS, offset);
const ret = (value: number) => insn(RET, value);

/** The filter's return value for an action; ERRNO and TRACE carry `errno` (EPERM unless given). */
function actionValue(action: SeccompAction, errno: number | undefined, where: string): number {
  switch (action) {
    case 'SCMP_ACT_ALLOW':
      return RET_ALLOW;
    case 'SCMP_ACT_ERRNO':
      return (RET_ERRNO | ((errno ?? EPERM) & 0xffff)) >>> 0;
    case 'SCMP_ACT_KILL':
    case 'SCMP_ACT_KILL_THREAD':
      return RET_KILL_THREAD;
    case 'SCMP_ACT_KILL_PROCESS':
      return RET_KILL_PROCESS;
    case 'SCMP_ACT_TRAP':
      return RET_TRAP;
    case 'SCMP_ACT_TRACE':
      return (RET_TRACE | ((errno ?? EPERM) & 0xffff)) >>> 0;
    case 'SCMP_ACT_LOG':
      return RET_LOG;
    default:
      throw new SeccompError(
        `${where}: action ${String(action)} is not supported (SCMP_ACT_NOTIFY needs a listener the runtime does not have)`,
      );
  }
}

/** A 64-bit argument value's halves. */
function halves(value: number, where: string): [high: number, low: number] {
  if (!Number.isInteger(value)) throw new SeccompError(`${where}: ${value} is not an integer`);
  const v = BigInt.asUintN(64, BigInt(value));
  return [Number(v >> 32n), Number(v & 0xffffffffn)];
}

/** The checks of one argument condition: they fall through when it holds and jump to `fail` when not. */
function condition(arg: SeccompArg, where: string): Insn[] {
  if (!Number.isInteger(arg.index) || arg.index < 0 || arg.index > 5)
    throw new SeccompError(`${where}.index: must be 0 to 5, got ${arg.index}`);
  const [hi, lo] = halves(arg.value, `${where}.value`);
  const high = load(argHigh(arg.index));
  const low = load(argLow(arg.index));
  switch (arg.op) {
    case 'SCMP_CMP_EQ':
      return [high, insn(JEQ, hi, 0, 'fail'), low, insn(JEQ, lo, 0, 'fail')];
    case 'SCMP_CMP_NE':
      // Holds when either half differs: a differing high half skips the low one.
      return [high, insn(JEQ, hi, 0, 2), low, insn(JEQ, lo, 'fail', 0)];
    case 'SCMP_CMP_MASKED_EQ': {
      // value is the mask, valueTwo what the masked argument must be.
      const [wantHi, wantLo] = halves(arg.valueTwo ?? 0, `${where}.valueTwo`);
      return [high, insn(AND, hi), insn(JEQ, wantHi, 0, 'fail'), low, insn(AND, lo), insn(JEQ, wantLo, 0, 'fail')];
    }
    case 'SCMP_CMP_GT':
      return [high, insn(JGT, hi, 3, 0), insn(JEQ, hi, 0, 'fail'), low, insn(JGT, lo, 0, 'fail')];
    case 'SCMP_CMP_GE':
      return [high, insn(JGT, hi, 3, 0), insn(JEQ, hi, 0, 'fail'), low, insn(JGE, lo, 0, 'fail')];
    case 'SCMP_CMP_LT':
      return [high, insn(JGE, hi, 0, 3), insn(JEQ, hi, 0, 'fail'), low, insn(JGE, lo, 'fail', 0)];
    case 'SCMP_CMP_LE':
      return [high, insn(JGE, hi, 0, 3), insn(JEQ, hi, 0, 'fail'), low, insn(JGT, lo, 'fail', 0)];
    default:
      throw new SeccompError(`${where}.op: unknown operator ${String(arg.op)}`);
  }
}

/** One rule for one call: its conditions (all must hold), then its action; a failed condition goes on past it. */
function ruleCode(rule: SeccompRule, where: string): Insn[] {
  const code = [
    ...(rule.args ?? []).flatMap((arg, i) => condition(arg, `${where}.args[${i}]`)),
    ret(actionValue(rule.action, rule.errnoRet, where)),
  ];
  return code.map((ins, at) => {
    const past = code.length - at - 1; // a jump of this many lands just after the rule
    return { ...ins, jt: ins.jt === 'fail' ? past : ins.jt, jf: ins.jf === 'fail' ? past : ins.jf };
  });
}

/**
 * The program for `profile` on ARCH (x64 or arm64, as process.arch names them), as the bytes of its struct
 * sock_filter array (what bwrap's --seccomp reads). A call the table does not
 * know is left out, as runc leaves out what libseccomp does not know.
 * Throws SeccompError naming the rule that cannot be compiled.
 */
export function compileSeccomp(profile: SeccompProfile, arch: string = process.arch): Buffer {
  const table = ARCHES[arch];
  if (!table) throw new SeccompError(`seccomp filters are compiled for x86_64 and arm64 hosts only, not ${arch}`);
  const fallback = actionValue(profile.defaultAction, profile.defaultErrnoRet, 'defaultAction');
  // Rules by call number, in the profile's order.
  const byCall = new Map<number, Insn[][]>();
  (profile.syscalls ?? []).forEach((rule, r) => {
    const where = `syscalls[${r}]`;
    const code = ruleCode(rule, where);
    // A rule without conditions whose action is the default changes nothing.
    if (code.length === 1 && code[0].k === fallback) return;
    for (const name of rule.names ?? []) {
      const nr = table.syscalls[name];
      if (nr === undefined) continue;
      const rules = byCall.get(nr) ?? [];
      rules.push(code);
      byCall.set(nr, rules);
    }
  });

  const program: Insn[] = [load(ARCH), insn(JEQ, table.audit, 1, 0), ret(RET_KILL_PROCESS), load(NR)];
  if (table.x32) program.push(insn(JGE, X32_SYSCALL_BIT, 0, 1), ret(RET_KILL_PROCESS));
  for (const [nr, rules] of byCall) {
    // The number is in the accumulator until a rule loads an argument; every block ends in a return.
    const block = [...rules.flat(), ret(fallback)];
    if (block.length > 255)
      throw new SeccompError(`the rules of system call ${nr} are too long for one filter jump (${block.length} instructions)`);
    program.push(insn(JEQ, nr, 0, block.length), ...block);
  }
  program.push(ret(fallback));
  if (program.length > MAX_INSTRUCTIONS)
    throw new SeccompError(`the profile makes a filter of ${program.length} instructions, more than the kernel's ${MAX_INSTRUCTIONS}`);

  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((ins, i) => {
    bytes.writeUInt16LE(ins.code, i * 8);
    bytes.writeUInt8(ins.jt as number, i * 8 + 2);
    bytes.writeUInt8(ins.jf as number, i * 8 + 3);
    bytes.writeUInt32LE(ins.k, i * 8 + 4);
  });
  return bytes;
}
