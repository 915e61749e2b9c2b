// The apiserver's rules for what an env var or envFrom names (ValidateEnvFrom,
// validateEnvVarValueFrom's selectors in validation.go): ConfigMap and Secret
// names and keys, a container resource and its divisor.
import { canonicalQuantity, quantityProblem } from '../api/quantity.js';
import { Checker, dnsSubdomainProblems, ENV_NAME, isObject, quote, type Obj } from './field-checker.js';

/** IsConfigMapKey. */
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

/** validContainerResourceFieldPathExpressions, and the divisors each kind of resource may have. */
const RESOURCES = [
  'limits.cpu',
  'limits.ephemeral-storage',
  'limits.memory',
  'requests.cpu',
  'requests.ephemeral-storage',
  'requests.memory',
];
const HUGEPAGES = ['limits.hugepages-', 'requests.hugepages-'];
const BYTE_DIVISORS = ['1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei'];

function objectName(c: Checker, at: string, name: unknown): void {
  const v = typeof name === 'string' ? name : '';
  for (const problem of dnsSubdomainProblems(v)) c.fail(at, `Invalid value: ${quote(v)}: ${problem}`);
}

/** IsConfigMapKey, in the apiserver's words. */
function configKeyProblems(key: string): string[] {
  const problems: string[] = [];
  if (key.length > 253) problems.push('must be no more than 253 characters');
  if (!CONFIG_KEY.test(key))
    problems.push(
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    );
  if (key === '.') problems.push("must not be '.'");
  else if (key === '..') problems.push("must not be '..'");
  else if (key.startsWith('..')) problems.push("must not start with '..'");
  return problems;
}

/** A configMapKeyRef or secretKeyRef: an object name, and a key a ConfigMap can hold. */
export function validateKeySelector(c: Checker, at: string, ref: Obj): void {
  objectName(c, `${at}.name`, ref.name);
  const key = typeof ref.key === 'string' ? ref.key : '';
  if (key === '') c.fail(`${at}.key`, 'Required value');
  else for (const problem of configKeyProblems(key)) c.fail(`${at}.key`, `Invalid value: ${quote(key)}: ${problem}`);
}

/** validateContainerResourceFieldSelector for an env var: a known resource, a divisor it supports. */
export function validateResourceFieldRef(c: Checker, at: string, ref: Obj): void {
  const resource = typeof ref.resource === 'string' ? ref.resource : '';
  if (resource === '') c.fail(`${at}.resource`, 'Required value');
  else if (!RESOURCES.includes(resource) && !HUGEPAGES.some((p) => resource.startsWith(p)))
    c.fail(
      `${at}.resource`,
      `Unsupported value: ${JSON.stringify(resource)}: supported values: ${RESOURCES.map((r) => `"${r}"`).join(', ')}`,
    );
  const divisor = ref.divisor;
  if (divisor === undefined || divisor === null || quantityProblem(divisor) || canonicalQuantity(divisor as string | number) === '0')
    return;
  const shown = canonicalQuantity(divisor as string | number);
  const cpu = resource.endsWith('.cpu');
  const allowed = cpu ? ['1m', '1'] : BYTE_DIVISORS;
  const kind = cpu
    ? 'cpu'
    : resource.endsWith('.memory')
      ? 'memory'
      : resource.endsWith('.ephemeral-storage')
        ? 'local ephemeral storage'
        : 'hugepages';
  if (!cpu && kind === 'hugepages' && !HUGEPAGES.some((p) => resource.startsWith(p))) return;
  if (!allowed.includes(shown))
    c.fail(
      `${at}.divisor`,
      `Invalid value: ${JSON.stringify(resource)}: only divisor's values ${cpu ? '1m and 1' : BYTE_DIVISORS.join(', ')} are supported with the ${kind} resource`,
    );
}

/** ValidateEnvFrom: a prefix an env var name may start, exactly one source (named by the list, as the apiserver does). */
export function validateEnvFrom(c: Checker, path: string, envFrom: unknown): void {
  if (!c.array(path, envFrom)) return;
  envFrom.forEach((raw, i) => {
    const ev = isObject(raw) ? raw : {};
    const at = `${path}[${i}]`;
    if (typeof ev.prefix === 'string' && ev.prefix !== '' && !ENV_NAME.test(ev.prefix))
      c.fail(
        `${at}.prefix`,
        `Invalid value: ${JSON.stringify(ev.prefix)}: a valid environment variable name must consist only of printable ASCII characters other than '='`,
      );
    let sources = 0;
    for (const kind of ['configMapRef', 'secretRef']) {
      const ref = ev[kind];
      if (ref === undefined || ref === null) continue;
      sources++;
      objectName(c, `${at}.${kind}.name`, isObject(ref) ? ref.name : undefined);
    }
    if (sources === 0) c.fail(path, 'Invalid value: "": must specify one of: `configMapRef` or `secretRef`');
    else if (sources > 1) c.fail(path, 'Invalid value: "": may not have more than one field specified at a time');
  });
}
