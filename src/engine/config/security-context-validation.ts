// The apiserver's rules for a pod's and a container's securityContext
// (validatePodSecurityContext, ValidateSecurityContext, validateSysctls in
// validation.go): ids, flags, AppArmor and seccomp profiles, sysctls.
import { namespaceOf, SYSCTL_MAX_LENGTH, SYSCTL_NAME } from '../sysctl-allowlist.js';
import { normalizeSysctlName } from '../../util/sysctl-name.js';
import { Checker, MAX_ID, truncate } from './field-checker.js';
import { goProfile, goSecurityContext } from './go-values.js';

/** The securityContext fields knode passes on (security-context.ts): ids as the apiserver bounds them, flags as booleans. */
export function validateSecurityContext(c: Checker, path: string, sc: unknown, pod: boolean, hostUsers: boolean): void {
  if (sc === undefined || !c.object(path, sc)) return;
  for (const id of ['runAsUser', 'runAsGroup', ...(pod ? ['fsGroup'] : [])]) c.integer(`${path}.${id}`, sc[id], 0, MAX_ID);
  c.boolean(`${path}.runAsNonRoot`, sc.runAsNonRoot);
  validateAppArmorProfile(c, `${path}.appArmorProfile`, sc.appArmorProfile);
  if (pod) {
    c.oneOf(`${path}.fsGroupChangePolicy`, sc.fsGroupChangePolicy, ['Always', 'OnRootMismatch']);
    c.oneOf(`${path}.supplementalGroupsPolicy`, sc.supplementalGroupsPolicy, ['Merge', 'Strict']);
    if (c.array(`${path}.supplementalGroups`, sc.supplementalGroups))
      sc.supplementalGroups.forEach((g, i) => c.integer(`${path}.supplementalGroups[${i}]`, g, 0, MAX_ID));
  } else {
    for (const flag of ['readOnlyRootFilesystem', 'privileged', 'allowPrivilegeEscalation']) c.boolean(`${path}.${flag}`, sc[flag]);
    if (sc.capabilities !== undefined && c.object(`${path}.capabilities`, sc.capabilities)) {
      c.strings(`${path}.capabilities.add`, sc.capabilities.add);
      c.strings(`${path}.capabilities.drop`, sc.capabilities.drop);
    }
    c.oneOf(`${path}.procMount`, sc.procMount, ['Default', 'Unmasked']);
    if (hostUsers && sc.procMount === 'Unmasked')
      c.fail(`${path}.procMount`, 'Invalid value: "Unmasked": `hostUsers` must be false to use `Unmasked`');
    if (sc.allowPrivilegeEscalation === false) {
      // The apiserver prints the whole securityContext as the bad value, as its Go struct.
      if (sc.privileged === true)
        c.fail(
          path,
          `Invalid value: ${goSecurityContext(sc)}: cannot set \`allowPrivilegeEscalation\` to false and \`privileged\` to true`,
        );
      const added: unknown = (sc.capabilities as { add?: unknown } | undefined)?.add;
      if (Array.isArray(added) && added.includes('CAP_SYS_ADMIN'))
        c.fail(
          path,
          `Invalid value: ${goSecurityContext(sc)}: cannot set \`allowPrivilegeEscalation\` to false and \`capabilities.Add\` CAP_SYS_ADMIN`,
        );
    }
  }
  validateSeccompProfile(c, `${path}.seccompProfile`, sc.seccompProfile);
}

/** ValidateAppArmorProfileField: a known type; a profile name with Localhost only, and then required. */
function validateAppArmorProfile(c: Checker, path: string, profile: unknown): void {
  if (profile === undefined || profile === null || !c.object(path, profile)) return;
  const local = profile.localhostProfile;
  if (profile.type === undefined || profile.type === null || profile.type === '')
    return c.fail(`${path}.type`, 'Required value: type is required when appArmorProfile is set');
  c.oneOf(`${path}.type`, profile.type, ['Localhost', 'RuntimeDefault', 'Unconfined']);
  if (profile.type === 'Localhost') {
    if (typeof local !== 'string' || local.trim() === '')
      c.fail(`${path}.localhostProfile`, 'Required value: must be set when AppArmor type is Localhost');
    else if (local.trim() !== local)
      c.fail(`${path}.localhostProfile`, `Invalid value: ${JSON.stringify(local)}: must not be padded with whitespace`);
  } else if (local !== undefined && local !== null && (profile.type === 'RuntimeDefault' || profile.type === 'Unconfined'))
    c.fail(`${path}.localhostProfile`, `Invalid value: ${JSON.stringify(local)}: can only be set when AppArmor type is Localhost`);
}

/** seccompProfile as the apiserver checks it: a known type, and a relative profile path with Localhost only. */
function validateSeccompProfile(c: Checker, path: string, profile: unknown): void {
  if (profile === undefined || profile === null || !c.object(path, profile)) return;
  if (profile.type === undefined || profile.type === null || profile.type === '')
    return c.fail(`${path}.type`, 'Required value: type is required when seccompProfile is set');
  if (!c.string(`${path}.type`, profile.type, true)) return;
  c.oneOf(`${path}.type`, profile.type, ['Localhost', 'RuntimeDefault', 'Unconfined']);
  if (profile.type === 'Localhost') {
    if (profile.localhostProfile === undefined || profile.localhostProfile === null || profile.localhostProfile === '')
      c.fail(`${path}.localhostProfile`, 'Required value: must be set when seccomp type is Localhost');
    else c.relativePath(`${path}.localhostProfile`, profile.localhostProfile, true);
  } else if (profile.localhostProfile !== undefined && profile.localhostProfile !== null)
    c.fail(`${path}.localhostProfile`, `Invalid value: ${goProfile(profile)}: can only be set when seccomp type is Localhost`);
}

/** securityContext.sysctls as the apiserver checks them: a valid name once each, a string value, none of a namespace the pod shares with the host. */
export function validateSysctls(c: Checker, path: string, sysctls: unknown, spec: Record<string, unknown>): void {
  if (sysctls === undefined || sysctls === null || !c.array(path, sysctls)) return;
  const names = new Set<string>();
  sysctls.forEach((item, i) => {
    const at = `${path}[${i}]`;
    if (!c.object(at, item, true)) return;
    c.string(`${at}.value`, item.value);
    if (!c.string(`${at}.name`, item.name, true)) return;
    const name = item.name;
    if (name.length > SYSCTL_MAX_LENGTH || !SYSCTL_NAME.test(name)) {
      c.fail(
        `${at}.name`,
        `Invalid value: "${truncate(name)}": must have at most ${SYSCTL_MAX_LENGTH} characters and match regex ${SYSCTL_NAME.source.replace('[./]', '[\\./]')}`,
      );
    } else if (names.has(name)) {
      c.fail(`${at}.name`, `Duplicate value: "${name}"`);
    }
    names.add(name);
    const ns = namespaceOf(normalizeSysctlName(name));
    if (spec.hostNetwork === true && ns === 'Net')
      c.fail(`${at}.name`, `Invalid value: "${name}": may not be specified when 'hostNetwork' is true`);
    if (spec.hostIPC === true && ns === 'IPC')
      c.fail(`${at}.name`, `Invalid value: "${name}": may not be specified when 'hostIPC' is true`);
  });
}
