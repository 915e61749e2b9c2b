// The apiserver's pod-wide rules (ValidatePodSpec in validation.go): DNS
// policy and config, os.name, a shared process namespace; hostname, subdomain, nodeName,
// nodeSelector, affinity, readinessGates, topologySpreadConstraints; and the
// rules that follow from os.name: windows and hostUsers: false forbid fields.
// A node runs no scheduler, but the kubelet validates what the apiserver
// would, so a pod refused by one is refused by the other.
import { isIP } from 'node:net';
import { Checker, dnsSubdomainWithUnderscoreProblems, isObject, labelValueProblems, quote, type Obj } from './field-checker.js';
import { goPodResourceClaim } from './go-values.js';

/**
 * The pod-wide rules of ValidatePodSpec knode had not checked: dnsPolicy,
 * dnsConfig under policy None, os.name, shareProcessNamespace with hostPID.
 * An unset dnsPolicy is ClusterFirst (the v1 default).
 */
export function validatePodLevel(c: Checker, spec: Obj): void {
  if (spec.dnsPolicy !== undefined && spec.dnsPolicy !== null && spec.dnsPolicy !== '')
    c.oneOf('spec.dnsPolicy', spec.dnsPolicy, ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']);
  // validatePodDNSConfig: under policy None, a missing config or nameserver is the only problem named.
  let dnsChecked = false;
  if (spec.dnsPolicy === 'None') {
    if (spec.dnsConfig === undefined || spec.dnsConfig === null) {
      c.fail('spec.dnsConfig', 'Required value: must provide `dnsConfig` when `dnsPolicy` is None');
      dnsChecked = true;
    } else if (
      c.object('spec.dnsConfig', spec.dnsConfig) &&
      !(Array.isArray(spec.dnsConfig.nameservers) && spec.dnsConfig.nameservers.length > 0)
    ) {
      c.fail('spec.dnsConfig.nameservers', 'Required value: must provide at least one DNS nameserver when `dnsPolicy` is None');
      dnsChecked = true;
    }
  }
  if (!dnsChecked && spec.dnsConfig !== undefined && spec.dnsConfig !== null && c.object('spec.dnsConfig', spec.dnsConfig))
    validateDNSConfig(c, spec.dnsConfig);
  if (spec.os !== undefined && spec.os !== null && c.object('spec.os', spec.os)) {
    if (spec.os.name === undefined || spec.os.name === null || spec.os.name === '') c.fail('spec.os.name', 'Required value');
    else if (c.string('spec.os.name', spec.os.name) && !['linux', 'windows'].includes(spec.os.name))
      c.fail('spec.os', `Unsupported value: ${JSON.stringify(spec.os.name)}: supported values: "linux", "windows"`);
  }
  for (const flag of [
    'shareProcessNamespace',
    'hostPID',
    'hostIPC',
    'hostUsers',
    'setHostnameAsFQDN',
    'automountServiceAccountToken',
    'enableServiceLinks',
  ])
    c.boolean(`spec.${flag}`, spec[flag]);
  validateGatesAndClaims(c, spec);
  if (spec.shareProcessNamespace === true && spec.hostPID === true)
    c.fail('spec.shareProcessNamespace', 'Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled');
}

/** validatePodDNSConfig's limits, which the kubelet's resolver file obeys: 3 nameservers, 32 search paths of 2048 characters. */
function validateDNSConfig(c: Checker, dns: Obj): void {
  const nameservers: unknown[] = Array.isArray(dns.nameservers) ? dns.nameservers : [];
  if (nameservers.length > 3)
    c.fail('spec.dnsConfig.nameservers', `Invalid value: ${JSON.stringify(nameservers)}: must not have more than 3 nameservers`);
  nameservers.forEach((ns, i) => {
    if (typeof ns !== 'string' || isIP(ns) === 0)
      c.fail(
        `spec.dnsConfig.nameservers[${i}]`,
        `Invalid value: ${JSON.stringify(ns)}: must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
      );
  });
  const searches: unknown[] = Array.isArray(dns.searches) ? dns.searches : [];
  if (searches.length > 32)
    c.fail('spec.dnsConfig.searches', `Invalid value: ${JSON.stringify(searches)}: must not have more than 32 search paths`);
  if (searches.join(' ').length > 2048)
    c.fail(
      'spec.dnsConfig.searches',
      `Invalid value: ${JSON.stringify(searches)}: must not have more than 2048 characters (including spaces) in the search list`,
    );
  searches.forEach((search, i) => {
    if (search === '.') return;
    // One trailing dot allowed; what is left is checked and printed whole (IsDNS1123SubdomainWithUnderscore).
    const name = typeof search === 'string' ? search.replace(/\.$/, '') : '';
    for (const problem of dnsSubdomainWithUnderscoreProblems(name))
      c.fail(`spec.dnsConfig.searches[${i}]`, `Invalid value: ${JSON.stringify(name)}: ${problem}`);
  });
  const options: unknown[] = Array.isArray(dns.options) ? dns.options : [];
  options.forEach((o, i) => {
    if (!o || typeof o !== 'object' || !(o as Obj).name) c.fail(`spec.dnsConfig.options[${i}]`, 'Required value: must not be empty');
  });
}

const present = (v: unknown) => v !== undefined && v !== null;
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** hostname, subdomain (DNS labels), nodeName (a DNS subdomain), nodeSelector (labels), readinessGates, affinity, topology spread. */
export function validateScheduling(c: Checker, spec: Obj): void {
  for (const field of ['hostname', 'subdomain'])
    if (typeof spec[field] === 'string' && spec[field] !== '') c.dnsLabel(`spec.${field}`, spec[field]);
  if (typeof spec.nodeName === 'string' && spec.nodeName !== '') c.dnsSubdomain('spec.nodeName', spec.nodeName);
  c.labels('spec.nodeSelector', spec.nodeSelector);
  if (c.array('spec.readinessGates', spec.readinessGates))
    spec.readinessGates.forEach((gate, i) => {
      if (isObject(gate)) c.qualifiedName(`spec.readinessGates[${i}].conditionType`, str(gate.conditionType));
    });
  if (present(spec.affinity) && c.object('spec.affinity', spec.affinity)) validateAffinity(c, 'spec.affinity', spec.affinity);
  if (c.array('spec.topologySpreadConstraints', spec.topologySpreadConstraints))
    spec.topologySpreadConstraints.forEach((t, i) => {
      if (!isObject(t)) return;
      const at = `spec.topologySpreadConstraints[${i}]`;
      if (typeof t.maxSkew !== 'number' || t.maxSkew <= 0)
        c.fail(`${at}.maxSkew`, `Invalid value: ${JSON.stringify(t.maxSkew ?? 0)}: must be greater than zero`);
      if (str(t.topologyKey) === '') c.fail(`${at}.topologyKey`, 'Required value: can not be empty');
      else c.qualifiedName(`${at}.topologyKey`, str(t.topologyKey));
      const when = str(t.whenUnsatisfiable);
      if (when === '') c.fail(`${at}.whenUnsatisfiable`, 'Required value');
      else c.oneOf(`${at}.whenUnsatisfiable`, when, ['DoNotSchedule', 'ScheduleAnyway']);
    });
}

/** The label values of a required node affinity are checked; a preferred one may hold any (it can match on a one-node cluster). */
function nodeSelectorTerm(c: Checker, at: string, term: unknown, checkValues: boolean): void {
  if (!isObject(term)) return;
  list(term.matchExpressions).forEach((rq, j) => {
    if (!isObject(rq)) return;
    const p = `${at}.matchExpressions[${j}]`;
    const [operator, values] = [str(rq.operator), list(rq.values)];
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length === 0) c.fail(`${p}.values`, "Required value: must be specified when `operator` is 'In' or 'NotIn'");
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length > 0) c.fail(`${p}.values`, "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    } else if (operator === 'Gt' || operator === 'Lt') {
      if (values.length !== 1) c.fail(`${p}.values`, "Required value: must be specified single value when `operator` is 'Lt' or 'Gt'");
    } else c.fail(`${p}.operator`, `Invalid value: ${JSON.stringify(operator)}: not a valid selector operator`);
    c.qualifiedName(`${p}.key`, str(rq.key));
    if (checkValues)
      values.forEach((v, k) => {
        if (typeof v === 'string')
          for (const problem of labelValueProblems(v)) c.fail(`${p}.values[${k}]`, `Invalid value: ${quote(v)}: ${problem}`);
      });
  });
  list(term.matchFields).forEach((rq, j) => {
    if (!isObject(rq)) return;
    const p = `${at}.matchFields[${j}]`;
    if (rq.operator !== 'In' && rq.operator !== 'NotIn')
      c.fail(`${p}.operator`, `Invalid value: ${JSON.stringify(str(rq.operator))}: not a valid selector operator`);
    else if (list(rq.values).length !== 1)
      c.fail(`${p}.values`, "Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector");
    if (rq.key !== 'metadata.name') c.fail(`${p}.key`, `Invalid value: ${JSON.stringify(str(rq.key))}: not a valid field selector key`);
  });
}

function weight(c: Checker, at: string, w: unknown): void {
  if (typeof w !== 'number' || w <= 0 || w > 100)
    c.fail(`${at}.weight`, `Invalid value: ${JSON.stringify(w ?? 0)}: must be in the range 1-100`);
}

function podAffinityTerm(c: Checker, at: string, term: unknown): void {
  if (!isObject(term)) return;
  const key = str(term.topologyKey);
  if (key === '') c.fail(`${at}.topologyKey`, 'Required value: can not be empty');
  c.qualifiedName(`${at}.topologyKey`, key);
}

/** validateAffinity: node affinity's selector terms, pod (anti-)affinity's terms, weights in 1-100. */
function validateAffinity(c: Checker, path: string, affinity: Obj): void {
  const node = affinity.nodeAffinity;
  if (isObject(node)) {
    const required = node.requiredDuringSchedulingIgnoredDuringExecution;
    const at = `${path}.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution`;
    if (isObject(required)) {
      const terms = list(required.nodeSelectorTerms);
      if (terms.length === 0) c.fail(`${at}.nodeSelectorTerms`, 'Required value: must have at least one node selector term');
      terms.forEach((term, i) => nodeSelectorTerm(c, `${at}.nodeSelectorTerms[${i}]`, term, true));
    }
    list(node.preferredDuringSchedulingIgnoredDuringExecution).forEach((term, i) => {
      const p = `${path}.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
      if (!isObject(term)) return;
      weight(c, p, term.weight);
      nodeSelectorTerm(c, `${p}.preference`, term.preference, false);
    });
  }
  for (const kind of ['podAffinity', 'podAntiAffinity']) {
    const pods = affinity[kind];
    if (!isObject(pods)) continue;
    list(pods.requiredDuringSchedulingIgnoredDuringExecution).forEach((term, i) =>
      podAffinityTerm(c, `${path}.${kind}.requiredDuringSchedulingIgnoredDuringExecution[${i}]`, term),
    );
    list(pods.preferredDuringSchedulingIgnoredDuringExecution).forEach((term, i) => {
      const p = `${path}.${kind}.preferredDuringSchedulingIgnoredDuringExecution[${i}]`;
      if (!isObject(term)) return;
      weight(c, p, term.weight);
      podAffinityTerm(c, `${p}.podAffinityTerm`, term.podAffinityTerm);
    });
  }
}

/** The pod-level securityContext fields a windows pod may not set (validateWindows), and the container-level ones. */
const WINDOWS_POD_FORBIDDEN = [
  'appArmorProfile',
  'seLinuxOptions',
  'seccompProfile',
  'fsGroup',
  'fsGroupChangePolicy',
  'sysctls',
  'runAsUser',
  'runAsGroup',
  'supplementalGroups',
  'supplementalGroupsPolicy',
  'seLinuxChangePolicy',
];
const WINDOWS_CONTAINER_FORBIDDEN = [
  'appArmorProfile',
  'seLinuxOptions',
  'seccompProfile',
  'capabilities',
  'readOnlyRootFilesystem',
  'privileged',
  'allowPrivilegeEscalation',
  'procMount',
  'runAsUser',
  'runAsGroup',
];

/** Each container of the pod with its path: init containers, then containers (VisitContainersWithPath). */
function containersOf(spec: Obj): [string, Obj][] {
  const out: [string, Obj][] = [];
  for (const kind of ['initContainers', 'containers'])
    list(spec[kind]).forEach((ctr, i) => {
      if (isObject(ctr)) out.push([`spec.${kind}[${i}]`, ctr]);
    });
  return out;
}

/** validateWindows (os.name windows) and validateHostUsers (hostUsers: false), the fields each forbids. */
export function validateOSAndUserNamespace(c: Checker, spec: Obj): void {
  if (isObject(spec.os) && spec.os.name === 'windows') {
    const forbid = (field: string) => c.fail(field, 'Forbidden: cannot be set for a windows pod');
    const sc = spec.securityContext;
    if (isObject(sc))
      for (const field of WINDOWS_POD_FORBIDDEN)
        if (field === 'sysctls' ? list(sc.sysctls).length > 0 : present(sc[field])) forbid(`spec.securityContext.${field}`);
    if (present(spec.hostUsers)) forbid('spec.hostUsers');
    if (spec.hostPID === true) forbid('spec.hostPID');
    if (spec.hostIPC === true) forbid('spec.hostIPC');
    if (present(spec.shareProcessNamespace)) forbid('spec.shareProcessNamespace');
    for (const [at, ctr] of containersOf(spec)) {
      if (!isObject(ctr.securityContext)) continue;
      for (const field of WINDOWS_CONTAINER_FORBIDDEN) if (present(ctr.securityContext[field])) forbid(`${at}.securityContext.${field}`);
    }
  }
  validateHostProcess(c, spec);
  if (spec.hostUsers === false) {
    // The apiserver's own spelling: HostPID and HostIPC are named as the Go fields.
    const forbid = (field: string) => c.fail(field, 'Forbidden: when `hostUsers` is false');
    if (spec.hostNetwork === true) forbid('spec.hostNetwork');
    if (spec.hostPID === true) forbid('spec.HostPID');
    if (spec.hostIPC === true) forbid('spec.HostIPC');
    for (const [at, ctr] of containersOf(spec)) if (list(ctr.volumeDevices).length > 0) forbid(`${at}.volumeDevices`);
  }
}

const hostProcessOf = (sc: unknown): boolean | undefined => {
  const options = isObject(sc) ? sc.windowsOptions : undefined;
  return isObject(options) && typeof options.hostProcess === 'boolean' ? options.hostProcess : undefined;
};

/** validateWindowsHostProcessPod, and validateLinux's refusal of windowsOptions on a linux pod. */
function validateHostProcess(c: Checker, spec: Obj): void {
  const podHostProcess = hostProcessOf(spec.securityContext);
  let [count, hostProcess] = [0, 0];
  for (const [at, ctr] of containersOf(spec)) {
    count++;
    const own = hostProcessOf(ctr.securityContext);
    if (podHostProcess !== undefined && own !== undefined && own !== podHostProcess)
      c.fail(
        `${at}.securityContext.windowsOptions.hostProcess`,
        `Invalid value: ${own}: pod hostProcess value must be identical if both are specified, was ${podHostProcess}`,
      );
    if (own ?? podHostProcess) hostProcess++;
  }
  if (hostProcess > 0) {
    if (hostProcess !== count)
      c.fail('spec', 'Invalid value: "": If pod contains any hostProcess containers then all containers must be HostProcess containers');
    if (spec.hostNetwork !== true)
      c.fail('spec.hostNetwork', 'Invalid value: false: hostNetwork must be true if pod contains any hostProcess containers');
  }
  if (!isObject(spec.os) || spec.os.name !== 'linux') return;
  const forbid = (at: string) => c.fail(at, 'Forbidden: windows options cannot be set for a linux pod');
  if (isObject(spec.securityContext) && present(spec.securityContext.windowsOptions)) forbid('spec.securityContext.windowsOptions');
  for (const [at, ctr] of containersOf(spec))
    if (isObject(ctr.securityContext) && present(ctr.securityContext.windowsOptions)) forbid(`${at}.securityContext.windowsOptions`);
}

/** schedulingGates (qualified names, once each, none beside a nodeName) and resourceClaims (a DNS label name, one source). */
function validateGatesAndClaims(c: Checker, spec: Obj): void {
  const gates = list(spec.schedulingGates);
  const seen = new Set<string>();
  gates.forEach((raw, i) => {
    const name = isObject(raw) && typeof raw.name === 'string' ? raw.name : '';
    c.qualifiedName(`spec.schedulingGates[${i}]`, name);
    if (seen.has(name)) c.fail(`spec.schedulingGates[${i}]`, `Duplicate value: ${JSON.stringify(name)}`);
    seen.add(name);
  });
  if (gates.length > 0 && typeof spec.nodeName === 'string' && spec.nodeName !== '')
    c.fail('spec.nodeName', 'Forbidden: cannot be set until all schedulingGates have been cleared');
  list(spec.resourceClaims).forEach((raw, i) => {
    const claim = isObject(raw) ? raw : {};
    c.dnsLabel(`spec.resourceClaims[${i}].name`, claim.name);
    const sources = ['resourceClaimName', 'resourceClaimTemplateName'].filter((k) => present(claim[k])).length;
    if (sources !== 1)
      c.fail(
        `spec.resourceClaims[${i}]`,
        `Invalid value: ${goPodResourceClaim(claim)}: ${sources === 0 ? 'must specify one of: `resourceClaimName`, `resourceClaimTemplateName`' : 'at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified'}`,
      );
  });
}
