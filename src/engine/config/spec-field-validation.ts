// The apiserver's rules for a container's probes, ports and env sources, and
// for the pod's tolerations (validateProbe, validateContainerPorts,
// validateEnvVarValueFrom, ValidateTolerations in validation.go).
import { Checker, isObject, labelValueProblems, typeName, type Obj } from './field-checker.js';
import { validateKeySelector, validateResourceFieldRef } from './env-validation.js';

/** The handler kinds of a probe; exactly one is set. */
const PROBE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'grpc'] as const;
/** The handler kinds of a lifecycle hook (LifecycleHandler): no grpc, and sleep. */
const LIFECYCLE_HANDLERS = ['exec', 'httpGet', 'tcpSocket', 'sleep'] as const;

/**
 * A probe as the apiserver checks it (validateProbe and its liveness,
 * readiness and startup variants), after the v1 defaults: a 0 threshold,
 * period or timeout is the default, an httpGet with no path or scheme is `/`
 * over HTTP.
 */
export function validateProbe(c: Checker, path: string, probe: unknown, kind: 'livenessProbe' | 'readinessProbe' | 'startupProbe'): void {
  if (probe === undefined || probe === null || !c.object(path, probe)) return;
  validateHandler(c, path, probe, PROBE_HANDLERS, undefined);
  for (const field of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
    const value = probe[field];
    if (int32(c, `${path}.${field}`, value, 'Probe') && value < 0)
      c.fail(`${path}.${field}`, `Invalid value: ${value}: must be greater than or equal to 0`);
  }
  const grace = probe.terminationGracePeriodSeconds;
  if (grace !== undefined && grace !== null && c.integer(`${path}.terminationGracePeriodSeconds`, grace, Number.MIN_SAFE_INTEGER)) {
    if (grace <= 0) c.fail(`${path}.terminationGracePeriodSeconds`, `Invalid value: ${grace}: must be greater than 0`);
    if (kind === 'readinessProbe')
      c.fail(`${path}.terminationGracePeriodSeconds`, `Invalid value: ${grace}: must not be set for readinessProbes`);
  }
  const success = probe.successThreshold;
  if (kind !== 'readinessProbe' && typeof success === 'number' && success !== 0 && success !== 1)
    c.fail(`${path}.successThreshold`, `Invalid value: ${success}: must be 1`);
}

/**
 * validateHandler: exactly one handler (probes: exec, httpGet, tcpSocket,
 * grpc; lifecycle hooks: exec, httpGet, tcpSocket, sleep), each checked; a
 * sleep within the pod's grace period.
 */
function validateHandler(c: Checker, path: string, handler: Obj, kinds: readonly string[], grace: number | undefined): void {
  let handlers = 0;
  for (const kind of kinds) {
    const action = handler[kind];
    if (action === undefined || action === null) continue;
    const at = `${path}.${kind}`;
    if (handlers++ > 0) {
      c.fail(at, 'Forbidden: may not specify more than 1 handler type');
      continue;
    }
    if (!c.object(at, action)) continue;
    if (kind === 'exec') {
      if (c.array(`${at}.command`, action.command) ? action.command.length === 0 : action.command === undefined || action.command === null)
        c.fail(`${at}.command`, 'Required value');
      else c.strings(`${at}.command`, action.command);
    } else if (kind === 'sleep') {
      // An unset seconds decodes as 0.
      const seconds = action.seconds ?? 0;
      if (c.integer(`${at}.seconds`, seconds, Number.MIN_SAFE_INTEGER) && grace !== undefined && (seconds < 0 || seconds > grace))
        c.fail(at, `Invalid value: ${seconds}: must be non-negative and less than terminationGracePeriodSeconds (${grace})`);
    } else {
      portNumOrName(c, `${at}.port`, action.port, kind === 'grpc');
    }
    if (kind === 'httpGet') {
      c.string(`${at}.path`, action.path);
      if (Array.isArray(action.httpHeaders))
        for (const header of action.httpHeaders) {
          const name: unknown = isObject(header) ? header.name : undefined;
          if (typeof name !== 'string' || !/^[-A-Za-z0-9]+$/.test(name))
            c.fail(
              `${at}.httpHeaders`,
              `Invalid value: ${JSON.stringify(name ?? '')}: a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')`,
            );
        }
      if (action.scheme !== undefined && action.scheme !== null && action.scheme !== '')
        c.oneOf(`${at}.scheme`, action.scheme, ['HTTP', 'HTTPS']);
    }
  }
  if (handlers === 0) c.fail(path, 'Required value: must specify a handler type');
}

/** validateLifecycle: postStart and preStop each a handler as a probe's, or a sleep; `grace` is the pod's terminationGracePeriodSeconds after defaulting. */
export function validateLifecycle(c: Checker, path: string, lifecycle: unknown, grace: number): void {
  if (lifecycle === undefined || lifecycle === null || !c.object(path, lifecycle)) return;
  for (const hook of ['postStart', 'preStop']) {
    const handler = lifecycle[hook];
    if (handler !== undefined && handler !== null && c.object(`${path}.${hook}`, handler))
      validateHandler(c, `${path}.${hook}`, handler, LIFECYCLE_HANDLERS, grace);
  }
}

/** The largest and smallest int32: what the apiserver's decoder fits an int32 field into. */
const INT32 = { min: -2147483648, max: 2147483647 };

/**
 * An int32 field: an integer the decoder can fit, else its error (the pod is
 * never decoded, so nothing else of it is checked by the apiserver). `struct`
 * is the Go type holding the field, as the decoder's message names it.
 */
export function int32(c: Checker, path: string, v: unknown, struct: string): v is number {
  if (!c.integer(path, v, Number.MIN_SAFE_INTEGER)) return false;
  if (v >= INT32.min && v <= INT32.max) return true;
  const goPath = path.replace(/\[[^\]]*\]/g, '');
  c.fail(path, `json: cannot unmarshal number ${v} into Go struct field ${struct}.${goPath} of type int32`);
  return false;
}

/** A port given as a number (1-65535) or as a name (an IANA_SVC_NAME), as ValidatePortNumOrName checks it; a missing port is 0. */
function portNumOrName(c: Checker, path: string, port: unknown, numberOnly: boolean): void {
  if (port === undefined || port === null) port = 0;
  if (typeof port === 'string' && !numberOnly) {
    for (const message of portNameProblems(port)) c.fail(path, `Invalid value: ${JSON.stringify(port)}: ${message}`);
    return;
  }
  if (typeof port !== 'number' || !Number.isInteger(port)) {
    c.fail(path, `expected ${numberOnly ? 'an integer' : 'an integer or a string'}, got ${typeName(port)}`);
    return;
  }
  if (port < 1 || port > 65535) c.fail(path, `Invalid value: ${port}: must be between 1 and 65535, inclusive`);
}

/** IsValidPortName: what is wrong with a port name (an IANA_SVC_NAME), in the apiserver's words. */
export function portNameProblems(name: string): string[] {
  const problems: string[] = [];
  if (name.length > 15) problems.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) problems.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) problems.push('must contain at least one letter (a-z)');
  if (name.includes('--')) problems.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) problems.push('must not begin or end with a hyphen');
  return problems;
}

/** ValidateTolerations: a key is a label name, an empty key needs Exists, tolerationSeconds needs NoExecute, Exists takes no value. */
export function validateTolerations(c: Checker, path: string, tolerations: unknown): void {
  if (!c.array(path, tolerations)) return;
  tolerations.forEach((t, i) => {
    const at = `${path}[${i}]`;
    if (!c.object(at, t, true)) return;
    for (const field of ['key', 'operator', 'value', 'effect']) c.string(`${at}.${field}`, t[field]);
    const str = (v: unknown) => (typeof v === 'string' ? v : '');
    const [key, operator, value, effect] = [str(t.key), str(t.operator), str(t.value), str(t.effect)];
    if (key.length > 0) c.qualifiedName(`${at}.key`, key);
    if (key.length === 0 && operator !== 'Exists')
      c.fail(
        `${at}.operator`,
        `Invalid value: ${JSON.stringify(operator)}: operator must be Exists when \`key\` is empty, which means "match all values and all keys"`,
      );
    const seconds = t.tolerationSeconds;
    if (seconds !== undefined && seconds !== null) {
      c.integer(`${at}.tolerationSeconds`, seconds, Number.MIN_SAFE_INTEGER);
      if (effect !== 'NoExecute')
        c.fail(`${at}.effect`, `Invalid value: ${JSON.stringify(effect)}: effect must be 'NoExecute' when \`tolerationSeconds\` is set`);
    }
    if (operator === 'Equal' || operator === '') {
      const problems = labelValueProblems(value);
      if (problems.length > 0) c.fail(`${at}.operator`, `Invalid value: ${JSON.stringify(value)}: ${problems.join(';')}`);
    } else if (operator === 'Exists') {
      if (value.length > 0)
        c.fail(`${at}.operator`, `Invalid value: ${JSON.stringify(value)}: value must be empty when \`operator\` is 'Exists'`);
    } else if (operator === 'Lt' || operator === 'Gt') {
      // The TaintTolerationComparisonOperators gate is off by default in v1.37.
      c.fail(`${at}.operator`, `Unsupported value: ${JSON.stringify(operator)}: supported values: "Equal", "Exists", "Lt", "Gt"`);
    } else {
      c.fail(`${at}.operator`, `Unsupported value: ${JSON.stringify(operator)}: supported values: "Equal", "Exists"`);
    }
    if (effect.length > 0) c.oneOf(`${at}.effect`, effect, ['NoSchedule', 'PreferNoSchedule', 'NoExecute']);
  });
}

const ENV_SOURCES = ['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef', 'fileKeyRef'] as const;

/** The pod fields an env var's fieldRef may name (validEnvDownwardAPIFieldPathExpressions). */
const ENV_FIELD_PATHS = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
];

/** The pod fields the downward API knows at all (ConvertDownwardAPIFieldLabel); `spec.host` is the old name of spec.nodeName. */
const DOWNWARD_FIELDS = [
  'metadata.annotations',
  'metadata.labels',
  ...ENV_FIELD_PATHS,
  'spec.restartPolicy',
  'spec.schedulerName',
  'status.phase',
];

/** validateEnvVarValueFrom: exactly one source, none beside a non-empty value, a fieldRef the downward API can give an env var. */
export function validateEnvValueFrom(c: Checker, path: string, from: Obj, value: string): void {
  const sources = ENV_SOURCES.filter((s) => from[s] !== undefined && from[s] !== null).length;
  if (sources === 0)
    c.fail(
      path,
      'Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`',
    );
  else if (value.length > 0) c.fail(path, 'Invalid value: "": may not be specified when `value` is not empty');
  else if (sources > 1) c.fail(path, 'Invalid value: "": may not have more than one field specified at a time');
  for (const kind of ['configMapKeyRef', 'secretKeyRef']) if (isObject(from[kind])) validateKeySelector(c, `${path}.${kind}`, from[kind]);
  if (isObject(from.resourceFieldRef)) validateResourceFieldRef(c, `${path}.resourceFieldRef`, from.resourceFieldRef);
  const ref = from.fieldRef;
  if (ref === undefined || ref === null || !c.object(`${path}.fieldRef`, ref)) return;
  validateFieldRef(c, `${path}.fieldRef`, ref, ENV_FIELD_PATHS);
}

/** validateObjectFieldSelector: a fieldPath the downward API can convert, one of `allowed` (or a label or annotation by its key). */
export function validateFieldRef(c: Checker, path: string, ref: Obj, allowed: readonly string[]): void {
  const at = `${path}.fieldPath`;
  if (!c.string(at, ref.fieldPath, true)) return;
  const fieldPath = ref.fieldPath;
  const version = ref.apiVersion || 'v1';
  const converting = (why: string) => c.fail(at, `Invalid value: ${JSON.stringify(fieldPath)}: error converting fieldPath: ${why}`);
  if (version !== 'v1') return converting(`unsupported pod version: ${String(version)}`);
  const subscripted = /^(.*?)\['(.*)'\]$/.exec(fieldPath);
  if (subscripted) {
    if (subscripted[1] !== 'metadata.annotations' && subscripted[1] !== 'metadata.labels')
      converting(`field label does not support subscript: ${fieldPath}`);
    return;
  }
  const internal = fieldPath === 'spec.host' ? 'spec.nodeName' : fieldPath;
  if (!DOWNWARD_FIELDS.includes(internal)) return converting(`field label not supported: ${fieldPath}`);
  if (!allowed.includes(internal))
    c.fail(at, `Unsupported value: ${JSON.stringify(internal)}: supported values: ${allowed.map((f) => `"${f}"`).join(', ')}`);
}
