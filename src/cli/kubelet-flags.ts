import { Flags } from '@oclif/core';
import { resolve } from 'node:path';
import { readKubeletConfigFile } from '../engine/config/config-file.js';
import { DurationError, formatGoDuration, parseGoDuration } from '../engine/config/duration.js';
import { defaultKubeletConfiguration, type KubeletConfiguration } from '../engine/config/kubelet-config.js';
import { SysctlAllowlist } from '../engine/sysctl-allowlist.js';
import { UserError } from '../util/user-error.js';

/**
 * Flags that fill the KubeletConfiguration, shared by `run`, `apply` and
 * `delete`. None has an oclif default: what is not given comes from --config,
 * then from the kubelet's defaults, so a flag always wins over the file.
 */
export const kubeletFlags = {
  config: Flags.string({ description: 'A kubelet.config.k8s.io/v1beta1 KubeletConfiguration file (YAML or JSON); flags override it' }),
  'node-name': Flags.string({ description: 'Name of this node; static pods are named <pod>-<node-name> [default: the hostname]' }),
  'max-pods': Flags.integer({ description: 'Pods this node admits at most [default: 110]' }),
  'allowed-unsafe-sysctls': Flags.string({
    description:
      "Comma-separated sysctls, or prefixes ending in '*', that pods may set beside the safe ones (kernel.shm_rmid_forced, net.ipv4.ip_local_port_range, ...)",
  }),
  'seccomp-default': Flags.boolean({
    description: "Give containers that name no seccomp profile the runtime's default one (RuntimeDefault) rather than none [default: off]",
    allowNo: true,
  }),
  'sync-frequency': Flags.string({ description: 'How often a running pod is synced again (Go duration) [default: 1m]' }),
  pleg: Flags.string({
    description:
      'evented: runtime container events trigger relists of the pod (falls back to relist when the runtime has none); relist: relist every --pleg-relist-period only [default: evented]',
    options: ['evented', 'relist'],
  }),
  'pleg-relist-period': Flags.string({ description: 'Period of the full PLEG relist (Go duration) [default: 1s]' }),
  'pleg-relist-threshold': Flags.string({
    description: 'How long without a finished relist before the PLEG, and so the node, is unhealthy (Go duration) [default: 3m]',
  }),
};

/** A Go duration flag in milliseconds; a bad one is a usage error naming the flag. */
export function parseDuration(text: string, flag: string): number {
  try {
    return parseGoDuration(text);
  } catch (err) {
    if (!(err instanceof DurationError)) throw err;
    throw new UserError('usage', `--${flag}: ${err.message}`, err.hint);
  }
}

const DURATION_FLAGS: [string, keyof KubeletConfiguration][] = [
  ['sync-frequency', 'syncFrequency'],
  ['pleg-relist-period', 'plegRelistPeriod'],
  ['pleg-relist-threshold', 'plegRelistThreshold'],
  ['file-check-frequency', 'fileCheckFrequency'],
  ['http-check-frequency', 'httpCheckFrequency'],
  ['node-status-update-frequency', 'nodeStatusUpdateFrequency'],
];

const LABEL_KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

/** Labels in the kubernetes.io and k8s.io namespaces a kubelet may set on its own Node (the kubelet's allowed set). */
const ALLOWED_KUBERNETES_LABELS = new Set([
  'kubernetes.io/hostname',
  'kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/instance-type',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'node.kubernetes.io/instance-type',
]);

function isAllowedNodeLabel(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return true;
  const prefix = key.slice(0, slash);
  const kubernetes = (ns: string) => prefix === ns || prefix.endsWith(`.${ns}`);
  if (!kubernetes('kubernetes.io') && !kubernetes('k8s.io')) return true;
  return ALLOWED_KUBERNETES_LABELS.has(key) || kubernetes('kubelet.kubernetes.io') || kubernetes('node.kubernetes.io');
}

/** --node-labels 'k=v,k2=v2' as the kubelet reads it; a bad label is a usage error naming it. */
export function parseNodeLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const item of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const eq = item.indexOf('=');
    const key = eq < 0 ? item : item.slice(0, eq);
    const value = eq < 0 ? '' : item.slice(eq + 1);
    if (eq < 0 || !LABEL_KEY.test(key) || !LABEL_VALUE.test(value)) {
      throw new UserError(
        'usage',
        `--node-labels: "${item}" is not a valid label`,
        "write key=value pairs separated by commas, e.g. --node-labels 'tier=edge,zone=lab'",
      );
    }
    if (!isAllowedNodeLabel(key)) {
      throw new UserError(
        'usage',
        `--node-labels: "${key}" is in the kubernetes.io/k8s.io namespace, where a node may only set its own labels`,
        'use your own prefix (example.com/tier=edge), or *.kubelet.kubernetes.io/ and *.node.kubernetes.io/',
      );
    }
    labels[key] = value;
  }
  return labels;
}

/**
 * The one KubeletConfiguration the engine gets: the kubelet's defaults, then
 * the --config file, then the flags given, then what the command itself
 * decides (`extra`; undefined entries there change nothing).
 */
export function kubeletConfigFromFlags(
  rootDir: string,
  flags: Record<string, unknown>,
  extra: Partial<KubeletConfiguration>,
  warn: (message: string) => void = () => {},
): KubeletConfiguration {
  let fromFile: Partial<KubeletConfiguration> = {};
  if (typeof flags.config === 'string') {
    try {
      const file = readKubeletConfigFile(flags.config);
      fromFile = file.values;
      for (const w of file.warnings) warn(w);
    } catch (err) {
      throw new UserError('usage', (err as Error).message, 'see the fields knode reads in the README (KubeletConfiguration)');
    }
  }
  const fromFlags: Partial<KubeletConfiguration> = {};
  if (flags['node-name'] !== undefined) fromFlags.nodeName = String(flags['node-name']).toLowerCase();
  if (flags['max-pods'] !== undefined) fromFlags.maxPods = Number(flags['max-pods']);
  if (flags['allowed-unsafe-sysctls'] !== undefined)
    fromFlags.allowedUnsafeSysctls = String(flags['allowed-unsafe-sysctls'])
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (flags['seccomp-default'] !== undefined) fromFlags.seccompDefault = Boolean(flags['seccomp-default']);
  if (flags.pleg !== undefined) fromFlags.eventedPleg = flags.pleg !== 'relist';
  if (flags.address !== undefined) fromFlags.address = String(flags.address);
  if (flags['read-only-port'] !== undefined) fromFlags.readOnlyPort = Number(flags['read-only-port']);
  if (flags.port !== undefined) fromFlags.port = Number(flags.port);
  if (flags.kubeconfig !== undefined) fromFlags.kubeconfig = String(flags.kubeconfig);
  if (flags['node-ip'] !== undefined) fromFlags.nodeIP = String(flags['node-ip']);
  if (flags['tls-cert-file'] !== undefined) fromFlags.tlsCertFile = String(flags['tls-cert-file']);
  if (flags['tls-private-key-file'] !== undefined) fromFlags.tlsPrivateKeyFile = String(flags['tls-private-key-file']);
  if (flags['client-ca-file'] !== undefined) fromFlags.clientCAFile = String(flags['client-ca-file']);
  if (flags['enable-profiling-handler'] !== undefined) fromFlags.enableProfilingHandler = Boolean(flags['enable-profiling-handler']);
  if (flags['node-log-dir'] !== undefined) fromFlags.nodeLogDir = resolve(String(flags['node-log-dir']));
  if (flags['node-labels'] !== undefined) fromFlags.nodeLabels = parseNodeLabels(String(flags['node-labels']));
  for (const [flag, field] of DURATION_FLAGS) {
    if (flags[flag] !== undefined) (fromFlags as Record<string, unknown>)[field] = parseDuration(String(flags[flag]), flag);
  }
  const decided = Object.fromEntries(Object.entries(extra).filter(([, v]) => v !== undefined));
  const config = defaultKubeletConfiguration(rootDir, { ...fromFile, ...fromFlags, ...decided });
  try {
    new SysctlAllowlist(config.allowedUnsafeSysctls);
  } catch (err) {
    throw new UserError(
      'usage',
      `--allowed-unsafe-sysctls: ${(err as Error).message}`,
      "give sysctl names or prefixes ending in '*' of a namespaced group: kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*, net.*",
    );
  }
  if (config.shutdownGracePeriodCriticalPods > config.shutdownGracePeriod) {
    throw new UserError(
      'usage',
      `${flags.config}: shutdownGracePeriodCriticalPods (${formatGoDuration(config.shutdownGracePeriodCriticalPods)}) must be at most shutdownGracePeriod (${formatGoDuration(config.shutdownGracePeriod)})`,
      "the critical pods' time is the last part of the drain's whole time",
    );
  }
  return config;
}
