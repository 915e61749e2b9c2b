// Which seccomp filter a sandboxed container runs under, from CRI's
// SecurityProfile as containerd reads it: none when unconfined (or when no
// profile is given at all) and for a privileged container; the runtime's
// default profile for RuntimeDefault, fitted to the capabilities the
// container keeps; the JSON file a Localhost profile names.
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { compileSeccomp, SeccompError } from './bpf.js';
import { runtimeDefaultProfile } from './default-profile.js';
import type { SecurityProfile__Output } from '../../../cri/gen/runtime/v1/SecurityProfile.js';
import type { SeccompProfile } from './profile.js';

/** The default profile's filter, by the capabilities it was fitted to. */
const defaults = new Map<string, Buffer>();

/**
 * The compiled filter for a container, or undefined for none. Throws
 * SeccompError with containerd's wording when a Localhost profile cannot be
 * read or compiled.
 */
export function seccompFilter(
  profile: SecurityProfile__Output | null | undefined,
  privileged: boolean,
  capabilities: readonly string[] | undefined,
): Buffer | undefined {
  if (!profile || privileged) return undefined;
  switch (profile.profileType) {
    case 'Unconfined':
      return undefined;
    case 'Localhost':
      return compileSeccomp(readLocalhostProfile(profile.localhostRef));
    default: {
      const key = capabilities ? capabilities.join(',') : 'all';
      let filter = defaults.get(key);
      if (!filter) {
        filter = compileSeccomp(runtimeDefaultProfile(capabilities));
        defaults.set(key, filter);
      }
      return filter;
    }
  }
}

/** A Localhost profile: an absolute path to the JSON of an OCI LinuxSeccomp. */
function readLocalhostProfile(path: string): SeccompProfile {
  if (!path || !isAbsolute(path))
    throw new SeccompError(`failed to generate seccomp spec opts: localhost profile path must be absolute, got "${path}"`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new SeccompError(`failed to generate seccomp spec opts: cannot load seccomp profile "${path}": ${(err as Error).message}`);
  }
  let profile: unknown;
  try {
    profile = JSON.parse(text);
  } catch (err) {
    throw new SeccompError(`failed to generate seccomp spec opts: seccomp profile "${path}" is not JSON: ${(err as Error).message}`);
  }
  const problem = shapeProblem(profile);
  if (problem) throw new SeccompError(`failed to generate seccomp spec opts: seccomp profile "${path}": ${problem}`);
  return profile as SeccompProfile;
}

/** What is wrong with a parsed profile's shape, if anything (the compiler checks actions and operators). */
function shapeProblem(p: unknown): string | undefined {
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return 'expected an object';
  const profile = p as Record<string, unknown>;
  if (typeof profile.defaultAction !== 'string') return 'defaultAction: Required value';
  if (profile.syscalls === undefined || profile.syscalls === null) return undefined;
  if (!Array.isArray(profile.syscalls)) return 'syscalls: expected an array';
  for (const [i, rule] of profile.syscalls.entries()) {
    if (typeof rule !== 'object' || rule === null) return `syscalls[${i}]: expected an object`;
    const r = rule as Record<string, unknown>;
    if (!Array.isArray(r.names) || r.names.some((n) => typeof n !== 'string')) return `syscalls[${i}].names: expected an array of names`;
    if (typeof r.action !== 'string') return `syscalls[${i}].action: Required value`;
    if (r.args !== undefined && r.args !== null && !Array.isArray(r.args)) return `syscalls[${i}].args: expected an array`;
    for (const [j, arg] of ((r.args as unknown[] | null) ?? []).entries()) {
      const a = arg as Record<string, unknown>;
      if (typeof a !== 'object' || a === null || typeof a.index !== 'number' || typeof a.value !== 'number' || typeof a.op !== 'string')
        return `syscalls[${i}].args[${j}]: expected index, value and op`;
    }
  }
  return undefined;
}
