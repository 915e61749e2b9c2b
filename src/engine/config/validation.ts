// Validation of a decoded pod manifest, reporting every problem with the
// field path kubectl would print (`spec.containers[0].image`). A pod with any
// problem is not run; the others in the same file are.
import { isIP } from 'node:net';
import { quantityProblem } from '../api/quantity.js';
import {
  Checker,
  dnsSubdomainProblems,
  isObject,
  quote,
  truncate,
  MAX_NAME,
  ENV_NAME,
  type FieldError,
  type Obj,
} from './field-checker.js';
import {
  validateProbe,
  validateTolerations,
  validateEnvValueFrom,
  portNameProblems,
  validateLifecycle,
  int32,
} from './spec-field-validation.js';
import { validateOSAndUserNamespace, validatePodLevel, validateScheduling } from './pod-level-validation.js';
import { pathsByName, validateResizePolicy, validateVolumeDevices, validateVolumes } from './volume-validation.js';
import { validateEnvFrom } from './env-validation.js';
import { validateResources } from './resources-validation.js';
import { validateContainerRestartPolicy } from './restart-policy-validation.js';
import { validateSecurityContext, validateSysctls } from './security-context-validation.js';

export type { FieldError } from './field-checker.js';

const INT32_MAX = 2147483647;

/**
 * checkHostPortConflicts: a host port (protocol, host IP, port) used once
 * among the given containers; the regular containers are checked together,
 * each init container alone.
 */
function checkHostPortConflicts(c: Checker, path: string, containers: unknown[], hostNetwork: boolean, indexed = true): void {
  const seen = new Set<string>();
  containers.forEach((ctr, i) => {
    if (!isObject(ctr) || !Array.isArray(ctr.ports)) return;
    ctr.ports.forEach((port, j) => {
      if (!isObject(port)) return;
      // Under hostNetwork an unset host port is the container port (the v1 defaults).
      const hostPort = hostNetwork && !port.hostPort ? port.containerPort : port.hostPort;
      if (typeof hostPort !== 'number' || hostPort === 0) return;
      const key = `${typeof port.protocol === 'string' && port.protocol !== '' ? port.protocol : 'TCP'}/${typeof port.hostIP === 'string' ? port.hostIP : ''}/${hostPort}`;
      if (seen.has(key)) c.fail(`${indexed ? `${path}[${i}]` : path}.ports[${j}].hostPort`, `Duplicate value: ${JSON.stringify(key)}`);
      seen.add(key);
    });
  });
}

export interface ValidateOptions {
  /** Room left in the name for the `-<node name>` suffix static pods get. */
  nameSuffixLength: number;
}

/** Validates a decoded Pod object; an empty list means the pod can run. */
export function validatePod(raw: unknown, options: ValidateOptions): FieldError[] {
  const c = new Checker();
  if (!c.object('', raw, true)) return c.errors;
  zeroNullItems(raw);
  c.oneOf('apiVersion', raw.apiVersion, ['v1']);
  if (c.object('metadata', raw.metadata, true)) {
    const meta = raw.metadata;
    if ((meta.name === undefined || meta.name === null || meta.name === '') && !meta.generateName)
      c.fail('metadata.name', 'Required value: name or generateName is required');
    else c.dnsSubdomain('metadata.name', meta.name, MAX_NAME - options.nameSuffixLength);
    // A prefix: a trailing dash is allowed (the name generated from it ends otherwise).
    if (typeof meta.generateName === 'string' && meta.generateName !== '')
      for (const problem of dnsSubdomainProblems(meta.generateName.replace(/(.)-$/, '$1a')))
        c.fail('metadata.generateName', `Invalid value: ${quote(meta.generateName)}: ${problem}`);
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

/** The lists of objects in a pod: a null item decodes as an empty object, as Go's decoder makes it. */
const OBJECT_LISTS = new Set([
  'containers',
  'initContainers',
  'ephemeralContainers',
  'env',
  'envFrom',
  'ports',
  'volumeMounts',
  'volumes',
  'hostAliases',
  'tolerations',
  'sysctls',
  'items',
  'sources',
  'readinessGates',
  'topologySpreadConstraints',
  'imagePullSecrets',
  'options',
]);

/** Replaces null items of the pod's object lists by `{}` (the pod is the decoded copy, not the user's text). */
function zeroNullItems(node: unknown, depth = 0): void {
  if (typeof node !== 'object' || node === null || depth > 12) return;
  for (const [key, value] of Object.entries(node)) {
    if (Array.isArray(value) && OBJECT_LISTS.has(key)) value.forEach((item, i) => item === null && (value[i] = {}));
    if (typeof value === 'object') zeroNullItems(value, depth + 1);
  }
}

/** TotalAnnotationSizeLimitB: the bytes of every annotation key and value together. */
const MAX_ANNOTATIONS_BYTES = 256 * 1024;

/** What the checks of one container need to know of the pod around it. */
interface PodContext {
  hostNetwork: boolean;
  /** terminationGracePeriodSeconds after defaulting (30): a sleep hook's bound. */
  grace: number;
  /** The names of the pod's volumes. */
  volumes: Map<string, string>;
  /** The names of the pod's resourceClaims. */
  claims: Set<string>;
  /** hostUsers unset or true: the pod shares the host's user namespace. */
  hostUsers: boolean;
}

function validateSpec(c: Checker, spec: Obj): void {
  // An empty enum is unset: the v1 defaults fill it before validation.
  if (spec.restartPolicy !== '') c.oneOf('spec.restartPolicy', spec.restartPolicy, ['Always', 'OnFailure', 'Never']);
  // A negative grace period is made 1 on create (the pod strategy), not refused.
  c.integer('spec.terminationGracePeriodSeconds', spec.terminationGracePeriodSeconds, Number.MIN_SAFE_INTEGER);
  const deadline = spec.activeDeadlineSeconds;
  if (c.integer('spec.activeDeadlineSeconds', deadline, Number.MIN_SAFE_INTEGER) && (deadline < 1 || deadline > INT32_MAX))
    c.fail('spec.activeDeadlineSeconds', `Invalid value: ${deadline}: must be between 1 and ${INT32_MAX}, inclusive`);
  c.boolean('spec.hostNetwork', spec.hostNetwork);
  int32(c, 'spec.priority', spec.priority, 'PodSpec');
  validateSecurityContext(c, 'spec.securityContext', spec.securityContext, true, spec.hostUsers !== false);
  if (isObject(spec.securityContext)) validateSysctls(c, 'spec.securityContext.sysctls', spec.securityContext.sysctls, spec);
  c.stringMap('spec.nodeSelector', spec.nodeSelector);
  if (isObject(spec.overhead))
    for (const [name, q] of Object.entries(spec.overhead)) {
      const problem = quantityProblem(q);
      if (problem) c.fail(`spec.overhead[${name}]`, `Invalid value: ${JSON.stringify(q)?.slice(0, 64)}: ${problem}`);
    }
  validatePodLevel(c, spec);
  validateScheduling(c, spec);
  validateOSAndUserNamespace(c, spec);
  validateTolerations(c, 'spec.tolerations', spec.tolerations);
  const volumes = validateVolumes(c, spec.volumes);
  // SetDefaults_PodSpec: a negative grace period is 1, an unset one 30; 0 stays 0.
  const grace =
    typeof spec.terminationGracePeriodSeconds === 'number'
      ? spec.terminationGracePeriodSeconds < 0
        ? 1
        : spec.terminationGracePeriodSeconds
      : 30;
  const claims = new Set<string>();
  if (Array.isArray(spec.resourceClaims))
    for (const claim of spec.resourceClaims) if (isObject(claim) && typeof claim.name === 'string') claims.add(claim.name);
  const pod: PodContext = { hostNetwork: spec.hostNetwork === true, grace, volumes, claims, hostUsers: spec.hostUsers !== false };
  // The regular containers first: an init container that repeats one of their names is the duplicate.
  const names = new Set<string>();
  if (c.array('spec.containers', spec.containers, true)) {
    if (spec.containers.length === 0) c.fail('spec.containers', 'Required value');
    spec.containers.forEach((ctr, i) => validateContainer(c, `spec.containers[${i}]`, ctr, names, false, pod));
    checkHostPortConflicts(c, 'spec.containers', spec.containers, pod.hostNetwork);
  }
  if (c.array('spec.initContainers', spec.initContainers)) {
    spec.initContainers.forEach((ctr, i) => {
      validateContainer(c, `spec.initContainers[${i}]`, ctr, names, true, pod);
      checkHostPortConflicts(c, `spec.initContainers[${i}]`, [ctr], pod.hostNetwork, false);
    });
  }
  if (c.array('spec.hostAliases', spec.hostAliases)) {
    spec.hostAliases.forEach((a, i) => {
      if (!c.object(`spec.hostAliases[${i}]`, a, true)) return;
      // An unset ip is "", which is no IP address.
      const ip = a.ip ?? '';
      if (c.string(`spec.hostAliases[${i}].ip`, ip) && isIP(ip) === 0)
        c.fail(`spec.hostAliases[${i}].ip`, `Invalid value: ${quote(ip)}: must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`);
      if (c.array(`spec.hostAliases[${i}].hostnames`, a.hostnames))
        a.hostnames.forEach((h, j) => c.dnsSubdomain(`spec.hostAliases[${i}].hostnames[${j}]`, h, 253));
    });
  }
}

function validateContainer(c: Checker, path: string, ctr: unknown, names: Set<string>, init: boolean, pod: PodContext): void {
  if (!c.object(path, ctr, true)) return;
  const { hostNetwork } = pod;
  c.dnsLabel(`${path}.name`, ctr.name);
  // An unset name is "" as the apiserver reads it: a regular container's counts, an init container's is only checked.
  const name = ctr.name === undefined || ctr.name === null ? '' : ctr.name;
  if (typeof name === 'string') {
    if (names.has(name)) c.fail(`${path}.name`, `Duplicate value: ${JSON.stringify(name)}`);
    else if (!init || name !== '') names.add(name);
  }
  if (c.string(`${path}.image`, ctr.image, true) && ctr.image.trim() !== ctr.image)
    c.fail(`${path}.image`, `Invalid value: "${truncate(ctr.image)}": must not have leading or trailing whitespace`);
  c.strings(`${path}.command`, ctr.command);
  c.strings(`${path}.args`, ctr.args);
  c.string(`${path}.workingDir`, ctr.workingDir);
  if (ctr.imagePullPolicy !== '') c.oneOf(`${path}.imagePullPolicy`, ctr.imagePullPolicy, ['Always', 'IfNotPresent', 'Never']);
  if (ctr.terminationMessagePolicy !== '')
    c.oneOf(`${path}.terminationMessagePolicy`, ctr.terminationMessagePolicy, ['File', 'FallbackToLogsOnError']);
  for (const flag of ['stdin', 'stdinOnce', 'tty']) c.boolean(`${path}.${flag}`, ctr[flag]);
  c.string(`${path}.terminationMessagePath`, ctr.terminationMessagePath);
  // The same rules for init containers: with both gates on, a sidecar may have rules too.
  validateContainerRestartPolicy(c, path, ctr);
  if (c.array(`${path}.env`, ctr.env)) {
    ctr.env.forEach((e, i) => {
      const p = `${path}.env[${i}]`;
      if (!c.object(p, e, true)) return;
      // IsRelaxedEnvVarName (RelaxedEnvironmentVariableValidation, on since v1.34).
      if (c.string(`${p}.name`, e.name, true) && !ENV_NAME.test(e.name)) {
        c.fail(
          `${p}.name`,
          `Invalid value: "${truncate(e.name)}": a valid environment variable name must consist only of printable ASCII characters other than '='`,
        );
      }
      c.string(`${p}.value`, e.value);
      if (e.valueFrom !== undefined && e.valueFrom !== null && c.object(`${p}.valueFrom`, e.valueFrom))
        validateEnvValueFrom(c, `${p}.valueFrom`, e.valueFrom, typeof e.value === 'string' ? e.value : '');
    });
  }
  validateEnvFrom(c, `${path}.envFrom`, ctr.envFrom);
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
      // Under hostNetwork an unset hostPort of a regular container is its containerPort (the v1 defaults).
      const defaulted =
        hostNetwork && !init && !port.hostPort && typeof port.containerPort === 'number' ? port.containerPort : port.hostPort;
      if (int32(c, `${p}.hostPort`, defaulted, 'ContainerPort') && (defaulted < 0 || defaulted > 65535))
        c.fail(`${p}.hostPort`, `Invalid value: ${defaulted}: must be between 1 and 65535, inclusive`);
      if (port.protocol !== '') c.oneOf(`${p}.protocol`, port.protocol, ['SCTP', 'TCP', 'UDP']);
      if (port.name !== undefined && c.string(`${p}.name`, port.name) && port.name.length > 0) {
        const problems = portNameProblems(port.name);
        for (const message of problems) c.fail(`${p}.name`, `Invalid value: ${JSON.stringify(port.name)}: ${message}`);
        if (problems.length === 0 && portNames.has(port.name)) c.fail(`${p}.name`, `Duplicate value: ${JSON.stringify(port.name)}`);
        portNames.add(port.name);
      }
      // validatePodHostNetworkDeps, for regular containers: an unset hostPort is defaulted to the containerPort.
      const hostPort = port.hostPort ?? 0;
      const containerPort = port.containerPort ?? 0;
      if (hostNetwork && !init && hostPort !== 0 && typeof containerPort === 'number' && hostPort !== containerPort)
        c.fail(`${p}.hostPort`, `Invalid value: ${JSON.stringify(hostPort)}: must match \`containerPort\` when \`hostNetwork\` is true`);
    });
  }
  validateResources(c, `${path}.resources`, ctr.resources, pod.claims);
  validateSecurityContext(c, `${path}.securityContext`, ctr.securityContext, false, pod.hostUsers);
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
  validateResizePolicy(c, `${path}.resizePolicy`, ctr.resizePolicy);
  const devices = pathsByName(ctr.volumeDevices, 'devicePath');
  validateVolumeDevices(c, `${path}.volumeDevices`, ctr.volumeDevices, pod.volumes, pathsByName(ctr.volumeMounts, 'mountPath'));
  const devicePaths = new Set(devices.values());
  if (c.array(`${path}.volumeMounts`, ctr.volumeMounts)) {
    const mountPaths = new Set<string>();
    ctr.volumeMounts.forEach((m, i) => {
      const p = `${path}.volumeMounts[${i}]`;
      if (!c.object(p, m, true)) return;
      if (c.string(`${p}.name`, m.name, true) && !pod.volumes.has(m.name)) c.fail(`${p}.name`, `Not found: ${JSON.stringify(m.name)}`);
      if (typeof m.name === 'string' && devices.has(m.name))
        c.fail(`${p}.name`, `Invalid value: ${JSON.stringify(m.name)}: must not already exist in volumeDevices`);
      if (typeof m.mountPath === 'string' && devicePaths.has(m.mountPath))
        c.fail(`${p}.mountPath`, `Invalid value: ${JSON.stringify(m.mountPath)}: must not already exist as a path in volumeDevices`);
      if (c.string(`${p}.mountPath`, m.mountPath, true)) {
        if (mountPaths.has(m.mountPath)) c.fail(`${p}.mountPath`, `Invalid value: ${JSON.stringify(m.mountPath)}: must be unique`);
        mountPaths.add(m.mountPath);
      }
      // The apiserver names these four without the mount's index (ValidateVolumeMounts), and so does knode.
      const q = `${path}.volumeMounts`;
      if (m.subPath !== undefined && m.subPath !== '') c.relativePath(`${q}.subPath`, m.subPath, false);
      if (typeof m.subPathExpr === 'string' && m.subPathExpr !== '') {
        if (typeof m.subPath === 'string' && m.subPath !== '')
          c.fail(`${p}.subPathExpr`, `Invalid value: ${JSON.stringify(m.subPathExpr)}: subPathExpr and subPath are mutually exclusive`);
        c.relativePath(`${q}.subPathExpr`, m.subPathExpr, false);
      }
      c.oneOf(`${q}.mountPropagation`, m.mountPropagation, ['Bidirectional', 'HostToContainer', 'None']);
      const privileged = isObject(ctr.securityContext) && ctr.securityContext.privileged === true;
      if (m.mountPropagation === 'Bidirectional' && !privileged)
        c.fail(`${q}.mountPropagation`, 'Forbidden: Bidirectional mount propagation is available only to privileged containers');
      c.oneOf(`${q}.recursiveReadOnly`, m.recursiveReadOnly, ['Disabled', 'Enabled', 'IfPossible']);
      if (m.recursiveReadOnly === 'Enabled' || m.recursiveReadOnly === 'IfPossible') {
        if (m.readOnly !== true) c.fail(`${q}.recursiveReadOnly`, 'Forbidden: may only be specified when readOnly is true');
        if (m.mountPropagation !== undefined && m.mountPropagation !== null && m.mountPropagation !== 'None')
          c.fail(`${q}.recursiveReadOnly`, 'Forbidden: may only be specified when mountPropagation is None or not specified');
      }
    });
  }
}
