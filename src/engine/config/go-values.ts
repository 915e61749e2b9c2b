// A bad value as the apiserver prints it when it is one of its internal
// structs (field.Invalid with a struct): json.Marshal of a type without json
// tags, so every field by its Go name, in the type's order, an unset pointer
// or slice as null. pkg/apis/core/types.go gives the fields.
import { isObject, type Obj } from './field-checker.js';

type Field = [goName: string, value: (o: Obj) => unknown];

/** A field by its JSON name, null when unset (a nil pointer or slice). */
const ptr =
  (name: string, inner?: (v: unknown) => unknown): Field[1] =>
  (o) => {
    const v = o[name];
    if (v === undefined || v === null) return null;
    return inner ? inner(v) : v;
  };
/** A plain string field: "" when unset. */
const str =
  (name: string): Field[1] =>
  (o) =>
    o[name] ?? '';

function struct(fields: Field[]): (v: unknown) => Record<string, unknown> {
  return (v) => {
    const o = isObject(v) ? v : {};
    return Object.fromEntries(fields.map(([goName, get]) => [goName, get(o)]));
  };
}

const capabilities = struct([
  ['Add', ptr('add')],
  ['Drop', ptr('drop')],
]);
const seLinuxOptions = struct([
  ['User', str('user')],
  ['Role', str('role')],
  ['Type', str('type')],
  ['Level', str('level')],
]);
const windowsOptions = struct([
  ['GMSACredentialSpecName', ptr('gmsaCredentialSpecName')],
  ['GMSACredentialSpec', ptr('gmsaCredentialSpec')],
  ['RunAsUserName', ptr('runAsUserName')],
  ['HostProcess', ptr('hostProcess')],
]);
const profile = struct([
  ['Type', str('type')],
  ['LocalhostProfile', ptr('localhostProfile')],
]);
const securityContext = struct([
  ['Capabilities', ptr('capabilities', capabilities)],
  ['Privileged', ptr('privileged')],
  ['SELinuxOptions', ptr('seLinuxOptions', seLinuxOptions)],
  ['WindowsOptions', ptr('windowsOptions', windowsOptions)],
  ['RunAsUser', ptr('runAsUser')],
  ['RunAsGroup', ptr('runAsGroup')],
  ['RunAsNonRoot', ptr('runAsNonRoot')],
  ['ReadOnlyRootFilesystem', ptr('readOnlyRootFilesystem')],
  ['AllowPrivilegeEscalation', ptr('allowPrivilegeEscalation')],
  ['ProcMount', ptr('procMount')],
  ['SeccompProfile', ptr('seccompProfile', profile)],
  ['AppArmorProfile', ptr('appArmorProfile', profile)],
]);
const podResourceClaim = struct([
  ['Name', str('name')],
  ['ResourceClaimName', ptr('resourceClaimName')],
  ['ResourceClaimTemplateName', ptr('resourceClaimTemplateName')],
]);

/** A container's securityContext as the apiserver prints it (core.SecurityContext). */
export const goSecurityContext = (v: unknown): string => JSON.stringify(securityContext(v));
/** A seccomp or AppArmor profile as the apiserver prints it (core.SeccompProfile, core.AppArmorProfile). */
export const goProfile = (v: unknown): string => JSON.stringify(profile(v));
/** A pod's resource claim as the apiserver prints it (core.PodResourceClaim). */
export const goPodResourceClaim = (v: unknown): string => JSON.stringify(podResourceClaim(v));
