// Seccomp profile types: the OCI runtime spec's LinuxSeccomp fields, spelled
// as a seccomp profile file (JSON, camelCase, SCMP_* strings) gives them.

export type SeccompAction =
  | 'SCMP_ACT_KILL'
  | 'SCMP_ACT_KILL_PROCESS'
  | 'SCMP_ACT_KILL_THREAD'
  | 'SCMP_ACT_TRAP'
  | 'SCMP_ACT_ERRNO'
  | 'SCMP_ACT_TRACE'
  | 'SCMP_ACT_ALLOW'
  | 'SCMP_ACT_LOG'
  | 'SCMP_ACT_NOTIFY';
export type SeccompOperator =
  'SCMP_CMP_NE' | 'SCMP_CMP_LT' | 'SCMP_CMP_LE' | 'SCMP_CMP_EQ' | 'SCMP_CMP_GE' | 'SCMP_CMP_GT' | 'SCMP_CMP_MASKED_EQ';
export interface SeccompArg {
  index: number;
  value: number;
  valueTwo?: number;
  op: SeccompOperator;
}
export interface SeccompRule {
  names: string[];
  action: SeccompAction;
  errnoRet?: number;
  args?: SeccompArg[];
}
export interface SeccompProfile {
  defaultAction: SeccompAction;
  defaultErrnoRet?: number;
  architectures?: string[];
  syscalls?: SeccompRule[];
}
