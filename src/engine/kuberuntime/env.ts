import { parseCpu, parseMemory } from '../api/quantity.js';
import type { Container, EnvVar, Pod, ResourceFieldSelector } from '../api/v1.js';
import { ObjectError, type ConfigData, type ObjectManager } from '../cluster/object-manager.js';
import { SyncError, SyncErrors } from './sync-result.js';

/** The ConfigMaps and Secrets a container's environment names, read before its config is made (null: not found). */
export interface EnvSources {
  configMaps: Map<string, ConfigData | null>;
  secrets: Map<string, ConfigData | null>;
}

/** A C identifier, what an environment variable name from envFrom must be (others are skipped, as the kubelet does). */
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/**
 * Reads every ConfigMap and Secret the container's env and envFrom name. A
 * missing one is recorded as such (optional references then resolve to
 * nothing); any other failure is a CreateContainerConfigError.
 */
export async function fetchEnvSources(pod: Pod, container: Container, objects: ObjectManager): Promise<EnvSources> {
  const sources: EnvSources = { configMaps: new Map(), secrets: new Map() };
  const wanted: ['configMaps' | 'secrets', string][] = [];
  for (const env of container.env ?? []) {
    if (env.valueFrom?.configMapKeyRef) wanted.push(['configMaps', env.valueFrom.configMapKeyRef.name ?? '']);
    if (env.valueFrom?.secretKeyRef) wanted.push(['secrets', env.valueFrom.secretKeyRef.name ?? '']);
  }
  for (const from of container.envFrom ?? []) {
    if (from.configMapRef) wanted.push(['configMaps', from.configMapRef.name ?? '']);
    if (from.secretRef) wanted.push(['secrets', from.secretRef.name ?? '']);
  }
  for (const [kind, name] of wanted) {
    if (sources[kind].has(name)) continue;
    try {
      const data =
        kind === 'configMaps'
          ? await objects.configMap(pod.metadata.namespace!, name)
          : await objects.secret(pod.metadata.namespace!, name);
      sources[kind].set(name, data);
    } catch (err) {
      if (err instanceof ObjectError && err.notFound) sources[kind].set(name, null);
      else throw new SyncError(SyncErrors.createContainerConfig, (err as Error).message);
    }
  }
  return sources;
}

export interface PodAddresses {
  podIP: string;
  podIPs: string[];
  hostIP: string;
  nodeName: string;
  /** What a container without a limit may use: the node's allocatable CPU (millicores) and memory (bytes). */
  allocatable?: { cpu: number; memory: number };
}

/**
 * The container's environment as the kubelet builds it: envFrom's keys
 * first (with their prefix), then each env variable in order, `$(NAME)`
 * expanded from the ones before it, downward-API fields, ConfigMap and Secret
 * keys resolved. A missing ConfigMap, Secret or key is a
 * CreateContainerConfigError unless the reference is optional.
 */
export function makeEnvironmentVariables(
  pod: Pod,
  container: Container,
  addresses: PodAddresses,
  sources: EnvSources = { configMaps: new Map(), secrets: new Map() },
): { name: string; value: string }[] {
  const values = new Map<string, string>();
  const out: { name: string; value: string }[] = [];
  const set = (name: string, value: string) => {
    values.set(name, value);
    const existing = out.findIndex((e) => e.name === name);
    if (existing >= 0) out[existing].value = value;
    else out.push({ name, value });
  };
  for (const from of container.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    if (!ref) continue;
    const kind = from.configMapRef ? 'configmap' : 'secret';
    const data = (from.configMapRef ? sources.configMaps : sources.secrets).get(ref.name ?? '');
    if (!data) {
      if (ref.optional) continue;
      throw new SyncError(SyncErrors.createContainerConfig, `${kind} "${ref.name ?? ''}" not found`);
    }
    for (const [key, value] of data) {
      const name = `${from.prefix ?? ''}${key}`;
      if (ENV_NAME.test(name)) set(name, value.toString('utf8'));
    }
  }
  const lookup = (name: string) => values.get(name);
  for (const env of container.env ?? []) {
    const value = env.valueFrom ? resolveValueFrom(pod, container, env, addresses, sources) : expand(env.value ?? '', lookup);
    if (value !== undefined) set(env.name, value);
  }
  return out;
}

function resolveValueFrom(pod: Pod, container: Container, env: EnvVar, addresses: PodAddresses, sources: EnvSources): string | undefined {
  const from = env.valueFrom!;
  if (from.fieldRef) return podFieldValue(pod, from.fieldRef.fieldPath, addresses, env.name);
  if (from.resourceFieldRef) return resourceFieldValue(container, from.resourceFieldRef, addresses, env.name);
  const ref = from.configMapKeyRef ?? from.secretKeyRef;
  if (ref) {
    const kind = from.configMapKeyRef ? 'configmap' : 'secret';
    const data = (from.configMapKeyRef ? sources.configMaps : sources.secrets).get(ref.name ?? '');
    const value = data?.get(ref.key);
    if (value !== undefined) return value.toString('utf8');
    if (ref.optional) return undefined;
    if (!data) throw new SyncError(SyncErrors.createContainerConfig, `${kind} "${ref.name ?? ''}" not found`);
    throw new SyncError(
      SyncErrors.createContainerConfig,
      `couldn't find key ${ref.key} in ${kind === 'configmap' ? 'ConfigMap' : 'Secret'} ${pod.metadata.namespace}/${ref.name ?? ''}`,
    );
  }
  return '';
}

/** The downward API fields an env var can name. */
export function podFieldValue(pod: Pod, fieldPath: string, a: PodAddresses, envName = ''): string {
  const label = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (label) return (label[1] === 'labels' ? pod.metadata.labels : pod.metadata.annotations)?.[label[2]] ?? '';
  switch (fieldPath) {
    case 'metadata.name':
      return pod.metadata.name ?? '';
    case 'metadata.namespace':
      return pod.metadata.namespace ?? '';
    case 'metadata.uid':
      return pod.metadata.uid ?? '';
    case 'spec.nodeName':
      return pod.spec.nodeName ?? a.nodeName;
    case 'spec.serviceAccountName':
      return pod.spec.serviceAccountName ?? '';
    case 'status.podIP':
      return a.podIP;
    case 'status.podIPs':
      return a.podIPs.join(',');
    case 'status.hostIP':
      return a.hostIP;
    case 'status.hostIPs':
      return a.hostIP;
    default:
      throw new SyncError(SyncErrors.createContainerConfig, `unsupported fieldPath "${fieldPath}" in env ${envName}`);
  }
}

/**
 * A resource of the container as the downward API gives it: the quantity
 * divided by the divisor (default 1 core, 1 byte), rounded up. A missing
 * limit is the node's allocatable amount; a missing request is the limit.
 */
export function resourceFieldValue(container: Container, ref: ResourceFieldSelector, a: PodAddresses, envName: string): string {
  const [kind, name] = ref.resource.split('.') as ['limits' | 'requests', string];
  const parse = name === 'cpu' ? parseCpu : parseMemory;
  if ((kind !== 'limits' && kind !== 'requests') || !name) {
    throw new SyncError(SyncErrors.createContainerConfig, `unsupported resource "${ref.resource}" in env ${envName}`);
  }
  const limit = container.resources?.limits?.[name];
  const fallback = name === 'cpu' ? a.allocatable?.cpu : name === 'memory' ? a.allocatable?.memory : undefined;
  const limitValue = limit !== undefined ? parse(limit) : (fallback ?? 0);
  const value =
    kind === 'limits'
      ? limitValue
      : container.resources?.requests?.[name] !== undefined
        ? parse(container.resources.requests[name])
        : limit !== undefined
          ? limitValue
          : 0;
  const divisor = ref.divisor !== undefined ? parse(ref.divisor) : name === 'cpu' ? 1000 : 1;
  return String(Math.ceil(value / (divisor || 1)));
}

/**
 * Kubernetes' $(VAR) expansion: a defined variable is replaced, `$$` is a
 * literal `$`, and an undefined reference stays as written.
 */
export function expand(input: string, lookup: (name: string) => string | undefined): string {
  let out = '';
  for (let i = 0; i < input.length; i++) {
    const ch = input[i];
    if (ch !== '$' || i + 1 >= input.length) {
      out += ch;
      continue;
    }
    const next = input[i + 1];
    if (next === '$') {
      out += '$';
      i++;
      continue;
    }
    if (next === '(') {
      const close = input.indexOf(')', i + 2);
      if (close > 0) {
        const name = input.slice(i + 2, close);
        const value = lookup(name);
        out += value ?? `$(${name})`;
        i = close;
        continue;
      }
    }
    out += ch;
  }
  return out;
}

/** Command and args with $(VAR) expanded from the container's environment. */
export function expandCommand(container: Container, env: { name: string; value: string }[]): { command: string[]; args: string[] } {
  const values = new Map(env.map((e) => [e.name, e.value]));
  const lookup = (name: string) => values.get(name);
  return {
    command: (container.command ?? []).map((c) => expand(c, lookup)),
    args: (container.args ?? []).map((a) => expand(a, lookup)),
  };
}
