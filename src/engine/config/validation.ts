// Validation of a decoded pod manifest, reporting every problem with the
// field path kubectl would print (`spec.containers[0].image`). A pod with any
// problem is not run; the others in the same file are.
import { isIP } from 'node:net';
import { canonicalQuantity, compareQuantities, quantityProblem } from '../api/quantity.js';
import { namespaceOf, SYSCTL_MAX_LENGTH, SYSCTL_NAME } from '../sysctl-allowlist.js';
import { normalizeSysctlName } from '../../util/sysctl-name.js';
import { Checker, isObject, truncate, MAX_ID, MAX_NAME, ENV_NAME, type FieldError, type Obj } from './field-checker.js';
import {
  validateProbe,
  validateTolerations,
  validateEnvValueFrom,
  portNameProblems,
  validateLifecycle,
  int32,
} from './spec-field-validation.js';

export type { FieldError } from './field-checker.js';

export interface ValidateOptions {
  /** Room left in the name for the `-<node name>` suffix static pods get. */
  nameSuffixLength: number;
}

/** Validates a decoded Pod object; an empty list means the pod can run. */
export function validatePod(raw: unknown, options: ValidateOptions): FieldError[] {
  const c = new Checker();
  if (!c.object('', raw, true)) return c.errors;
  c.oneOf('apiVersion', raw.apiVersion, ['v1']);
  if (c.object('metadata', raw.metadata, true)) {
    const meta = raw.metadata;
    c.dnsSubdomain('metadata.name', meta.name, MAX_NAME - options.nameSuffixLength);
    if (meta.namespace !== undefined) c.dnsLabel('metadata.namespace', meta.namespace);
    if (meta.uid !== undefined) c.string('metadata.uid', meta.uid);
    c.labels('metadata.labels', meta.labels);
    c.stringMap('metadata.annotations', meta.annotations);
    if (isObject(meta.annotations)) for (const key of Object.keys(meta.annotations)) c.qualifiedName('metadata.annotations', key);
  }
  if (isObject(raw.metadata) && isObject(raw.metadata.annotations)) {
    const size = Object.entries(raw.metadata.annotations).reduce(
      (n, [k, v]) => n + Buffer.byteLength(k) + (typeof v === 'string' ? Buffer.byteLength(v) : 0),
      0,
    );
    if (size > MAX_ANNOTATIONS_BYTES) c.fail('metadata.annotations', `Too long: may not be more than ${MAX_ANNOTATIONS_BYTES} bytes`);
  }
  if (c.object('spec', raw.spec, true)) {
    validateSpec(c, raw.spec);
    // ValidatePodCreate: ephemeral containers come only through their subresource, on a pod that exists.
    if (Array.isArray(raw.spec.ephemeralContainers) && raw.spec.ephemeralContainers.length > 0)
      c.fail('spec.ephemeralContainers', 'Forbidden: cannot be set on create');
  }
  return c.errors;
}

/** TotalAnnotationSizeLimitB: the bytes of every annotation key and value together. */
const MAX_ANNOTATIONS_BYTES = 256 * 1024;

/**
 * The pod-wide rules of ValidatePodSpec knode had not checked: dnsPolicy,
 * dnsConfig under policy None, os.name, shareProcessNamespace with hostPID.
 * An unset dnsPolicy is ClusterFirst (the v1 default).
 */
function validatePodLevel(c: Checker, spec: Obj): void {
  if (spec.dnsPolicy !== undefined && spec.dnsPolicy !== null && spec.dnsPolicy !== '')
    c.oneOf('spec.dnsPolicy', spec.dnsPolicy, ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']);
  if (spec.dnsPolicy === 'None') {
    if (spec.dnsConfig === undefined || spec.dnsConfig === null)
      c.fail('spec.dnsConfig', 'Required value: must provide `dnsConfig` when `dnsPolicy` is None');
    else if (
      c.object('spec.dnsConfig', spec.dnsConfig) &&
      !(Array.isArray(spec.dnsConfig.nameservers) && spec.dnsConfig.nameservers.length > 0)
    )
      c.fail('spec.dnsConfig.nameservers', 'Required value: must provide at least one DNS nameserver when `dnsPolicy` is None');
  }
  if (spec.dnsConfig !== undefined && spec.dnsConfig !== null && c.object('spec.dnsConfig', spec.dnsConfig))
    validateDNSConfig(c, spec.dnsConfig);
  if (spec.os !== undefined && spec.os !== null && c.object('spec.os', spec.os)) {
    if (spec.os.name === undefined || spec.os.name === null || spec.os.name === '') c.fail('spec.os.name', 'Required value');
    else if (c.string('spec.os.name', spec.os.name) && !['linux', 'windows'].includes(spec.os.name))
      c.fail('spec.os', `Unsupported value: ${JSON.stringify(spec.os.name)}: supported values: "linux", "windows"`);
  }
  c.boolean('spec.shareProcessNamespace', spec.shareProcessNamespace);
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
  const options: unknown[] = Array.isArray(dns.options) ? dns.options : [];
  options.forEach((o, i) => {
    if (!o || typeof o !== 'object' || !(o as Obj).name) c.fail(`spec.dnsConfig.options[${i}]`, 'Required value: must not be empty');
  });
}

/** What the checks of one container need to know of the pod around it. */
interface PodContext {
  hostNetwork: boolean;
  /** terminationGracePeriodSeconds after defaulting (30): a sleep hook's bound. */
  grace: number;
  /** The names of the pod's volumes. */
  volumes: Set<string>;
}

function validateSpec(c: Checker, spec: Obj): void {
  c.oneOf('spec.restartPolicy', spec.restartPolicy, ['Always', 'OnFailure', 'Never']);
  c.integer('spec.terminationGracePeriodSeconds', spec.terminationGracePeriodSeconds, 0);
  c.integer('spec.activeDeadlineSeconds', spec.activeDeadlineSeconds, 1);
  c.boolean('spec.hostNetwork', spec.hostNetwork);
  int32(c, 'spec.priority', spec.priority, 'PodSpec');
  validateSecurityContext(c, 'spec.securityContext', spec.securityContext, true);
  if (isObject(spec.securityContext)) validateSysctls(c, 'spec.securityContext.sysctls', spec.securityContext.sysctls, spec);
  c.stringMap('spec.nodeSelector', spec.nodeSelector);
  validatePodLevel(c, spec);
  validateTolerations(c, 'spec.tolerations', spec.tolerations);
  const volumes = new Set<string>();
  if (Array.isArray(spec.volumes)) for (const v of spec.volumes) if (isObject(v) && typeof v.name === 'string') volumes.add(v.name);
  const grace = typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 30;
  const pod: PodContext = { hostNetwork: spec.hostNetwork === true, grace, volumes };
  const names = new Set<string>();
  if (c.array('spec.initContainers', spec.initContainers)) {
    spec.initContainers.forEach((ctr, i) => validateContainer(c, `spec.initContainers[${i}]`, ctr, names, true, pod));
  }
  if (c.array('spec.containers', spec.containers, true)) {
    if (spec.containers.length === 0) c.fail('spec.containers', 'Required value: a pod needs at least one container');
    spec.containers.forEach((ctr, i) => validateContainer(c, `spec.containers[${i}]`, ctr, names, false, pod));
  }
  if (c.array('spec.hostAliases', spec.hostAliases)) {
    spec.hostAliases.forEach((a, i) => {
      if (!c.object(`spec.hostAliases[${i}]`, a, true)) return;
      if (c.string(`spec.hostAliases[${i}].ip`, a.ip, true) && isIP(a.ip) === 0)
        c.fail(`spec.hostAliases[${i}].ip`, `Invalid value: "${truncate(a.ip)}": must be a valid IP address`);
      if (c.array(`spec.hostAliases[${i}].hostnames`, a.hostnames))
        a.hostnames.forEach((h, j) => c.dnsSubdomain(`spec.hostAliases[${i}].hostnames[${j}]`, h, 253));
    });
  }
  if (c.array('spec.volumes', spec.volumes)) {
    const seen = new Set<string>();
    spec.volumes.forEach((v, i) => {
      if (!c.object(`spec.volumes[${i}]`, v, true)) return;
      c.dnsLabel(`spec.volumes[${i}].name`, v.name);
      if (typeof v.name === 'string') {
        if (seen.has(v.name)) c.fail(`spec.volumes[${i}].name`, `Duplicate value: "${v.name}"`);
        seen.add(v.name);
      }
      validateVolumeSource(c, `spec.volumes[${i}]`, v);
    });
  }
}

/** The hostPath types (supportedHostPathTypes), sorted as the apiserver lists them; "" checks nothing. */
const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

/** The parts of a volume source that name paths: a hostPath without `..`, item paths inside the volume; an image volume's reference and pull policy. */
function validateVolumeSource(c: Checker, path: string, v: Obj): void {
  if (v.hostPath !== undefined && c.object(`${path}.hostPath`, v.hostPath)) {
    const p = `${path}.hostPath.path`;
    if (c.string(p, v.hostPath.path, true) && v.hostPath.path.split('/').includes('..'))
      c.fail(p, `Invalid value: "${truncate(v.hostPath.path)}": must not contain '..'`);
    c.oneOf(`${path}.hostPath.type`, v.hostPath.type, HOST_PATH_TYPES);
  }
  const items = (source: unknown, at: string) => {
    if (!isObject(source) || !c.array(`${at}.items`, source.items)) return;
    source.items.forEach((item, j) => {
      if (c.object(`${at}.items[${j}]`, item, true)) c.relativePath(`${at}.items[${j}].path`, item.path, true);
    });
  };
  if (v.image !== undefined && c.object(`${path}.image`, v.image)) {
    c.string(`${path}.image.reference`, v.image.reference, true);
    c.oneOf(`${path}.image.pullPolicy`, v.image.pullPolicy, ['Always', 'IfNotPresent', 'Never']);
  }
  for (const kind of ['downwardAPI', 'configMap', 'secret']) items(v[kind], `${path}.${kind}`);
  if (isObject(v.projected) && c.array(`${path}.projected.sources`, v.projected.sources)) {
    v.projected.sources.forEach((src, j) => {
      if (!isObject(src)) return;
      for (const kind of ['downwardAPI', 'configMap', 'secret']) items(src[kind], `${path}.projected.sources[${j}].${kind}`);
      if (isObject(src.serviceAccountToken))
        c.relativePath(`${path}.projected.sources[${j}].serviceAccountToken.path`, src.serviceAccountToken.path, true);
    });
  }
}

function validateResources(c: Checker, path: string, resources: unknown): void {
  if (resources === undefined || !c.object(path, resources)) return;
  for (const group of ['limits', 'requests']) {
    const values = resources[group];
    if (values === undefined || !c.object(`${path}.${group}`, values)) continue;
    for (const [name, q] of Object.entries(values)) {
      const problem = quantityProblem(q);
      if (problem) c.fail(`${path}.${group}[${name}]`, `Invalid value: ${JSON.stringify(q)?.slice(0, 64)}: ${problem}`);
    }
  }
  // validateResourceRequirements: a request at most its limit, equal to it for what cannot be overcommitted.
  const limits = isObject(resources.limits) ? resources.limits : {};
  if (!isObject(resources.requests)) return;
  for (const [name, q] of Object.entries(resources.requests)) {
    if (quantityProblem(q)) continue;
    const limit = limits[name];
    const overcommit = !name.startsWith('hugepages-') && !isExtendedResource(name);
    if (limit === undefined || limit === null) {
      if (!overcommit) c.fail(`${path}.limits`, 'Required value: Limit must be set for non overcommitable resources');
      continue;
    }
    if (quantityProblem(limit)) continue;
    const cmp = compareQuantities(q as string | number, limit as string | number);
    const [value, bound] = [canonicalQuantity(q as string | number), canonicalQuantity(limit as string | number)];
    if (cmp !== 0 && !overcommit) c.fail(`${path}.requests`, `Invalid value: "${value}": must be equal to ${name} limit of ${bound}`);
    else if (cmp === 1) c.fail(`${path}.requests`, `Invalid value: "${value}": must be less than or equal to ${name} limit of ${bound}`);
  }
}

/** IsExtendedResourceName: a domain-qualified name outside kubernetes.io (not a quota's `requests.` name). */
function isExtendedResource(name: string): boolean {
  if (!name.includes('/') || name.includes('kubernetes.io/') || name.startsWith('requests.')) return false;
  return /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(
    `requests.${name}`,
  );
}

/** The securityContext fields knode passes on (security-context.ts): ids as the apiserver bounds them, flags as booleans. */
function validateSecurityContext(c: Checker, path: string, sc: unknown, pod: boolean): void {
  if (sc === undefined || !c.object(path, sc)) return;
  for (const id of ['runAsUser', 'runAsGroup', ...(pod ? ['fsGroup'] : [])]) c.integer(`${path}.${id}`, sc[id], 0, MAX_ID);
  c.boolean(`${path}.runAsNonRoot`, sc.runAsNonRoot);
  if (pod) {
    if (c.array(`${path}.supplementalGroups`, sc.supplementalGroups))
      sc.supplementalGroups.forEach((g, i) => c.integer(`${path}.supplementalGroups[${i}]`, g, 0, MAX_ID));
  } else {
    for (const flag of ['readOnlyRootFilesystem', 'privileged', 'allowPrivilegeEscalation']) c.boolean(`${path}.${flag}`, sc[flag]);
    if (sc.capabilities !== undefined && c.object(`${path}.capabilities`, sc.capabilities)) {
      c.strings(`${path}.capabilities.add`, sc.capabilities.add);
      c.strings(`${path}.capabilities.drop`, sc.capabilities.drop);
    }
    c.oneOf(`${path}.procMount`, sc.procMount, ['Default', 'Unmasked']);
    if (sc.allowPrivilegeEscalation === false) {
      if (sc.privileged === true) c.fail(path, 'Invalid value: cannot set `allowPrivilegeEscalation` to false and `privileged` to true');
      const added: unknown = (sc.capabilities as { add?: unknown } | undefined)?.add;
      if (Array.isArray(added) && added.includes('CAP_SYS_ADMIN'))
        c.fail(path, 'Invalid value: cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN');
    }
  }
  validateSeccompProfile(c, `${path}.seccompProfile`, sc.seccompProfile);
}

/** seccompProfile as the apiserver checks it: a known type, and a relative profile path with Localhost only. */
function validateSeccompProfile(c: Checker, path: string, profile: unknown): void {
  if (profile === undefined || profile === null || !c.object(path, profile)) return;
  if (!c.string(`${path}.type`, profile.type, true)) return;
  c.oneOf(`${path}.type`, profile.type, ['Localhost', 'RuntimeDefault', 'Unconfined']);
  if (profile.type === 'Localhost') c.relativePath(`${path}.localhostProfile`, profile.localhostProfile, true);
  else if (profile.localhostProfile !== undefined && profile.localhostProfile !== null)
    c.fail(`${path}.localhostProfile`, 'Invalid value: can only be set when seccomp type is Localhost');
}

/** securityContext.sysctls as the apiserver checks them: a valid name once each, a string value, none of a namespace the pod shares with the host. */
function validateSysctls(c: Checker, path: string, sysctls: unknown, spec: Record<string, unknown>): void {
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
        `Invalid value: "${truncate(name)}": must have at most ${SYSCTL_MAX_LENGTH} characters and match regex ${SYSCTL_NAME.source}`,
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

function validateContainer(c: Checker, path: string, ctr: unknown, names: Set<string>, init: boolean, pod: PodContext): void {
  if (!c.object(path, ctr, true)) return;
  const { hostNetwork } = pod;
  c.dnsLabel(`${path}.name`, ctr.name);
  if (typeof ctr.name === 'string') {
    if (names.has(ctr.name)) c.fail(`${path}.name`, `Duplicate value: "${ctr.name}"`);
    names.add(ctr.name);
  }
  if (c.string(`${path}.image`, ctr.image, true) && /\s/.test(ctr.image))
    c.fail(`${path}.image`, `Invalid value: "${truncate(ctr.image)}": must not contain spaces`);
  c.strings(`${path}.command`, ctr.command);
  c.strings(`${path}.args`, ctr.args);
  c.string(`${path}.workingDir`, ctr.workingDir);
  c.oneOf(`${path}.imagePullPolicy`, ctr.imagePullPolicy, ['Always', 'IfNotPresent', 'Never']);
  c.oneOf(`${path}.terminationMessagePolicy`, ctr.terminationMessagePolicy, ['File', 'FallbackToLogsOnError']);
  c.string(`${path}.terminationMessagePath`, ctr.terminationMessagePath);
  if (init) c.oneOf(`${path}.restartPolicy`, ctr.restartPolicy, ['Always']);
  else if (ctr.restartPolicy !== undefined) c.fail(`${path}.restartPolicy`, 'Forbidden: may not be set for non-init containers');
  if (c.array(`${path}.env`, ctr.env)) {
    ctr.env.forEach((e, i) => {
      const p = `${path}.env[${i}]`;
      if (!c.object(p, e, true)) return;
      if (c.string(`${p}.name`, e.name, true) && !ENV_NAME.test(e.name)) {
        c.fail(
          `${p}.name`,
          `Invalid value: "${truncate(e.name)}": a valid environment variable name must consist of letters, digits, '_', '-' or '.' and not start with a digit`,
        );
      }
      c.string(`${p}.value`, e.value);
      if (e.valueFrom !== undefined && e.valueFrom !== null && c.object(`${p}.valueFrom`, e.valueFrom))
        validateEnvValueFrom(c, `${p}.valueFrom`, e.valueFrom, typeof e.value === 'string' ? e.value : '');
    });
  }
  if (c.array(`${path}.ports`, ctr.ports)) {
    const portNames = new Set<string>();
    ctr.ports.forEach((port, i) => {
      const p = `${path}.ports[${i}]`;
      if (!c.object(p, port, true)) return;
      if (port.containerPort === undefined || port.containerPort === 0) c.fail(`${p}.containerPort`, 'Required value');
      else if (
        int32(c, `${p}.containerPort`, port.containerPort, 'ContainerPort') &&
        (port.containerPort < 1 || port.containerPort > 65535)
      )
        c.fail(`${p}.containerPort`, `Invalid value: ${port.containerPort}: must be between 1 and 65535, inclusive`);
      if (int32(c, `${p}.hostPort`, port.hostPort, 'ContainerPort') && (port.hostPort < 0 || port.hostPort > 65535))
        c.fail(`${p}.hostPort`, `Invalid value: ${port.hostPort}: must be between 1 and 65535, inclusive`);
      c.oneOf(`${p}.protocol`, port.protocol, ['TCP', 'UDP', 'SCTP']);
      if (port.name !== undefined && c.string(`${p}.name`, port.name) && port.name.length > 0) {
        const problems = portNameProblems(port.name);
        for (const message of problems) c.fail(`${p}.name`, `Invalid value: ${JSON.stringify(port.name)}: ${message}`);
        if (problems.length === 0 && portNames.has(port.name)) c.fail(`${p}.name`, `Duplicate value: ${JSON.stringify(port.name)}`);
        portNames.add(port.name);
      }
      // validatePodHostNetworkDeps, for regular containers: an unset hostPort is defaulted to the containerPort.
      const hostPort = port.hostPort ?? 0;
      if (hostNetwork && !init && hostPort !== 0 && typeof port.containerPort === 'number' && hostPort !== port.containerPort)
        c.fail(`${p}.hostPort`, `Invalid value: ${JSON.stringify(hostPort)}: must match \`containerPort\` when \`hostNetwork\` is true`);
    });
  }
  validateResources(c, `${path}.resources`, ctr.resources);
  validateSecurityContext(c, `${path}.securityContext`, ctr.securityContext, false);
  const sidecar = init && ctr.restartPolicy === 'Always';
  if (init && !sidecar) {
    for (const field of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe'])
      if (ctr[field] !== undefined && ctr[field] !== null)
        c.fail(`${path}.${field}`, 'Forbidden: may not be set for init containers without restartPolicy=Always');
  } else {
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const)
      validateProbe(c, `${path}.${probe}`, ctr[probe], probe);
    validateLifecycle(c, `${path}.lifecycle`, ctr.lifecycle, pod.grace);
  }
  if (c.array(`${path}.volumeMounts`, ctr.volumeMounts)) {
    const mountPaths = new Set<string>();
    ctr.volumeMounts.forEach((m, i) => {
      const p = `${path}.volumeMounts[${i}]`;
      if (!c.object(p, m, true)) return;
      if (c.string(`${p}.name`, m.name, true) && !pod.volumes.has(m.name)) c.fail(`${p}.name`, `Not found: ${JSON.stringify(m.name)}`);
      if (c.string(`${p}.mountPath`, m.mountPath, true)) {
        if (mountPaths.has(m.mountPath)) c.fail(`${p}.mountPath`, `Invalid value: ${JSON.stringify(m.mountPath)}: must be unique`);
        mountPaths.add(m.mountPath);
      }
      if (m.subPath !== undefined && m.subPath !== '') c.relativePath(`${p}.subPath`, m.subPath, false);
      c.oneOf(`${p}.mountPropagation`, m.mountPropagation, ['Bidirectional', 'HostToContainer', 'None']);
      const privileged = isObject(ctr.securityContext) && ctr.securityContext.privileged === true;
      if (m.mountPropagation === 'Bidirectional' && !privileged)
        c.fail(`${p}.mountPropagation`, 'Forbidden: Bidirectional mount propagation is available only to privileged containers');
      c.oneOf(`${p}.recursiveReadOnly`, m.recursiveReadOnly, ['Disabled', 'Enabled', 'IfPossible']);
      if (m.recursiveReadOnly === 'Enabled' || m.recursiveReadOnly === 'IfPossible') {
        if (m.readOnly !== true) c.fail(`${p}.recursiveReadOnly`, 'Forbidden: may only be specified when readOnly is true');
        if (m.mountPropagation !== undefined && m.mountPropagation !== null && m.mountPropagation !== 'None')
          c.fail(`${p}.recursiveReadOnly`, 'Forbidden: may only be specified when mountPropagation is None or not specified');
      }
    });
  }
}
