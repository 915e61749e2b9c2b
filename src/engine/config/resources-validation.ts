// The apiserver's rules for a container's resources (validateResourceRequirements
// in validation.go), after the v1 defaults: a limit without a request is also
// the request. Names a container may use, quantities, requests within limits,
// hugepages beside cpu or memory, claims the pod declares.
import { canonicalQuantity, compareQuantities, parseQuantity, quantityProblem } from '../api/quantity.js';
import { Checker, isObject, QUALIFIED_NAME } from './field-checker.js';

const SYNTAX = 'quantities must match the regular expression';
const STANDARD_CONTAINER = ['cpu', 'memory', 'ephemeral-storage'];
/** standardResources: names a quota or a node may use, beyond a container's. */
const STANDARD = [
  ...STANDARD_CONTAINER,
  'storage',
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
];

/** IsExtendedResourceName: a domain-qualified name outside kubernetes.io (not a quota's `requests.` name). */
function isExtendedResource(name: string): boolean {
  if (!name.includes('/') || name.includes('kubernetes.io/') || name.startsWith('requests.')) return false;
  return /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(
    `requests.${name}`,
  );
}

/** validateContainerResourceName: a standard container resource, or a fully qualified (extended) one. */
function resourceName(c: Checker, at: string, name: string): void {
  const slash = name.lastIndexOf('/');
  const local = name.slice(slash + 1);
  if (local.length === 0 || local.length > 63 || !QUALIFIED_NAME.test(local))
    c.fail(at, `Invalid value: ${JSON.stringify(name)}: name part must consist of alphanumeric characters, '-', '_' or '.'`);
  if (slash < 0) {
    if (!STANDARD_CONTAINER.includes(name) && !name.startsWith('hugepages-')) {
      if (!STANDARD.includes(name))
        c.fail(at, `Invalid value: ${JSON.stringify(name)}: must be a standard resource type or fully qualified`);
      c.fail(at, `Invalid value: ${JSON.stringify(name)}: must be a standard resource for containers`);
    }
  } else if (!name.includes('kubernetes.io/') && !isExtendedResource(name)) {
    c.fail(at, `Invalid value: ${JSON.stringify(name)}: doesn't follow extended resource name standard`);
  }
}

/** ValidateResourceQuantityValue: not negative, and whole for an extended resource. False when it is no quantity at all. */
function quantity(c: Checker, at: string, name: string, q: unknown): boolean {
  const problem = quantityProblem(q);
  if (problem?.startsWith(SYNTAX) || typeof q === 'object' || typeof q === 'boolean') {
    c.fail(at, `Invalid value: ${JSON.stringify(q)?.slice(0, 64)}: ${problem}`);
    return false;
  }
  if (problem) c.fail(at, `Invalid value: ${JSON.stringify(q)?.slice(0, 64)}: ${problem}`);
  else if (isExtendedResource(name) && !Number.isInteger(parseQuantity(q as string | number)))
    c.fail(at, `Invalid value: ${JSON.stringify(canonicalQuantity(q as string | number))}: must be an integer`);
  return true;
}

export function validateResources(c: Checker, path: string, resources: unknown, podClaims: ReadonlySet<string>): void {
  if (resources === undefined || resources === null || !c.object(path, resources)) return;
  const limits = resources.limits !== undefined && c.object(`${path}.limits`, resources.limits) ? resources.limits : {};
  const given = resources.requests !== undefined && c.object(`${path}.requests`, resources.requests) ? resources.requests : {};
  const requests = { ...limits, ...given };
  let cpuOrMemory = false;
  let hugepages = false;
  for (const [name, q] of Object.entries(limits)) {
    resourceName(c, `${path}.limits[${name}]`, name);
    quantity(c, `${path}.limits[${name}]`, name, q);
    if (name.startsWith('hugepages-')) hugepages = true;
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
  }
  for (const [name, q] of Object.entries(requests)) {
    resourceName(c, `${path}.requests[${name}]`, name);
    const ok = quantity(c, `${path}.requests[${name}]`, name, q);
    if (name.startsWith('hugepages-')) hugepages = true;
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
    const overcommit = !name.startsWith('hugepages-') && !isExtendedResource(name);
    const limit = limits[name];
    if (limit === undefined || limit === null) {
      if (!overcommit) c.fail(`${path}.limits`, 'Required value: Limit must be set for non overcommitable resources');
      continue;
    }
    if (!ok || quantityProblem(limit)?.startsWith(SYNTAX) || typeof limit === 'object') continue;
    const cmp = compareQuantities(q as string | number, limit as string | number);
    const [value, bound] = [canonicalQuantity(q as string | number), canonicalQuantity(limit as string | number)];
    if (cmp !== 0 && !overcommit) c.fail(`${path}.requests`, `Invalid value: "${value}": must be equal to ${name} limit of ${bound}`);
    else if (cmp === 1) c.fail(`${path}.requests`, `Invalid value: "${value}": must be less than or equal to ${name} limit of ${bound}`);
  }
  if (hugepages && !cpuOrMemory) c.fail(path, 'Forbidden: HugePages require cpu or memory');
  if (Array.isArray(resources.claims))
    resources.claims.forEach((claim, i) => {
      const name = isObject(claim) && typeof claim.name === 'string' ? claim.name : '';
      if (name === '') c.fail(`${path}.claims[${i}].name`, 'Required value');
      else if (!podClaims.has(name))
        c.fail(
          `${path}.claims[${i}]`,
          `Not found: ${JSON.stringify(name)}: must be one of the names in pod.spec.resourceClaims${podClaims.size === 0 ? ' which is empty' : ''}`,
        );
    });
}
