import { hostname } from 'node:os';
import { join } from 'node:path';
import { formatByteQuantity } from '../api/quantity.js';
import { LIFETIME_SETTINGS } from './settings-lifetime.js';
import { SERVING_SETTINGS } from './settings-serving.js';
import { JOIN_SETTINGS } from './settings-join.js';
import { RUNTIME_SETTINGS } from './settings-runtime.js';
import { formatGoDuration } from './duration.js';
import type { KubeletConfiguration } from './kubelet-config.js';

/**
 * How a setting is written. In a --config file: duration "1m30s", int a
 * non-negative integer, bool true/false, string/path/name text, strings a list,
 * headers a map of header names to lists of values, quantity a size in bytes
 * written as a Kubernetes quantity ("10Mi", a negative one turns the feature off), signals a map of
 * eviction signals to values. On the command line:
 * strings comma-separated, headers 'Name: value' (repeated), labels
 * 'k=v,k2=v2', path made absolute, name lowercased, enum one of `options`,
 * signals 'memory.available<100Mi,…' (or '=', as `separator` says), taints
 * 'key=value:Effect,…' (in a file, a list of {key, value, effect}).
 */
export type SettingType =
  'duration' | 'int' | 'bool' | 'string' | 'path' | 'name' | 'strings' | 'headers' | 'labels' | 'enum' | 'quantity' | 'signals' | 'taints';

/** The commands whose flags include a setting's flag; `all` is a global flag of every command. */
export type SettingCommand = 'run' | 'apply' | 'delete' | 'all';

export interface Setting {
  /** The KubeletConfiguration property it fills. */
  field: keyof KubeletConfiguration;
  /** Its name in a --config file, the docs and `--print-config`: the kubelet's field name where --config reads it. */
  name: string;
  /** --config reads it (a KubeletConfiguration field); otherwise it is knode's own. */
  file: boolean;
  /** The flag that sets it, without the dashes. */
  flag?: string;
  commands: SettingCommand[];
  type: SettingType;
  /** enum: the flag's words and the values they stand for. */
  options?: Record<string, unknown>;
  /** signals: what stands between a signal and its value on the command line, as the kubelet's flag. */
  separator?: '<' | '=';
  /** bool: the flag also takes a --no- form. */
  allowNo?: boolean;
  /** The default (the kubelet's, where it has one); a function when it depends on the machine or the root dir. */
  default?: unknown;
  /** How the docs and --help name a default that depends on the machine. */
  defaultText?: string;
  /** `--print-config` leaves it out (a knode setting only). */
  unprinted?: boolean;
  description: string;
}

/** What a default may depend on. */
export interface SettingContext {
  rootDir: string;
}

/**
 * Every setting knode has, once: its field, name, flag, type, default and
 * description. The flags (src/cli/kubelet-flags.ts), the --config parser,
 * `--print-config` and docs/configuration.md are all made from this table.
 * The file fields come in the order `--print-config` prints them.
 */
export const SETTINGS: readonly Setting[] = [
  {
    field: 'staticPodPath',
    name: 'staticPodPath',
    file: true,
    flag: 'static-dir',
    commands: ['run'],
    type: 'path',
    description: 'Directory (or file) of static pod manifests, watched for changes',
  },
  {
    field: 'staticPodURL',
    name: 'staticPodURL',
    file: true,
    flag: 'manifest-url',
    commands: ['run'],
    type: 'string',
    description: 'URL of pod manifests, polled',
  },
  {
    field: 'staticPodURLHeader',
    name: 'staticPodURLHeader',
    file: true,
    flag: 'manifest-url-header',
    commands: ['run'],
    type: 'headers',
    default: {},
    description: "Header for --manifest-url requests, 'Name: value' (repeatable)",
  },
  {
    field: 'syncFrequency',
    name: 'syncFrequency',
    file: true,
    flag: 'sync-frequency',
    commands: ['run', 'apply', 'delete'],
    type: 'duration',
    default: 60_000,
    description: 'How often a running pod is synced again (Go duration)',
  },
  {
    field: 'fileCheckFrequency',
    name: 'fileCheckFrequency',
    file: true,
    flag: 'file-check-frequency',
    commands: ['run'],
    type: 'duration',
    default: 20_000,
    description: 'How often the static dir is read again besides change events (Go duration)',
  },
  {
    field: 'httpCheckFrequency',
    name: 'httpCheckFrequency',
    file: true,
    flag: 'http-check-frequency',
    commands: ['run'],
    type: 'duration',
    default: 20_000,
    description: 'How often the manifest URL is fetched (Go duration)',
  },
  {
    field: 'maxPods',
    name: 'maxPods',
    file: true,
    flag: 'max-pods',
    commands: ['run', 'apply', 'delete'],
    type: 'int',
    default: 110,
    description: 'Pods this node admits at most',
  },
  {
    field: 'allowedUnsafeSysctls',
    name: 'allowedUnsafeSysctls',
    file: true,
    flag: 'allowed-unsafe-sysctls',
    commands: ['run', 'apply', 'delete'],
    type: 'strings',
    default: [],
    description:
      "Comma-separated sysctls, or prefixes ending in '*', that pods may set beside the safe ones (kernel.shm_rmid_forced, net.ipv4.ip_local_port_range, ...)",
  },
  {
    field: 'seccompDefault',
    name: 'seccompDefault',
    file: true,
    flag: 'seccomp-default',
    commands: ['run', 'apply', 'delete'],
    type: 'bool',
    allowNo: true,
    default: false,
    description: "Give containers that name no seccomp profile the runtime's default one (RuntimeDefault) rather than none",
  },
  ...SERVING_SETTINGS,
  ...JOIN_SETTINGS,
  {
    field: 'containerRuntimeEndpoint',
    name: 'containerRuntimeEndpoint',
    file: true,
    flag: 'runtime-endpoint',
    commands: ['all'],
    type: 'string',
    default: '',
    defaultText: 'the embedded runtime, started when needed',
    description: 'CRI endpoint of the container runtime, e.g. unix:///run/containerd/containerd.sock',
  },
  {
    field: 'runtimeRequestTimeout',
    name: 'runtimeRequestTimeout',
    file: true,
    commands: [],
    type: 'duration',
    default: 120_000,
    description: 'How long a request to the runtime may take',
  },
  {
    field: 'enableProfilingHandler',
    name: 'enableProfilingHandler',
    file: true,
    flag: 'enable-profiling-handler',
    commands: ['run'],
    type: 'bool',
    // The kubelet's default is true; knode profiles only when asked to.
    default: false,
    description:
      'Serve /debug/profile?seconds=N (a V8 CPU profile) and /debug/heap (a heap snapshot) on the unix socket, a loopback read-only port and the kubelet API',
  },
  {
    field: 'enableSystemLogHandler',
    name: 'enableSystemLogHandler',
    file: true,
    commands: [],
    type: 'bool',
    default: true,
    description: "Serve the node's log directory at /logs/",
  },
  {
    field: 'shutdownGracePeriod',
    name: 'shutdownGracePeriod',
    file: true,
    commands: [],
    type: 'duration',
    default: 0,
    description: 'How long a drain (knode run --drain-on-exit) may take in all; 0: each pod gets its own grace period',
  },
  {
    field: 'shutdownGracePeriodCriticalPods',
    name: 'shutdownGracePeriodCriticalPods',
    file: true,
    commands: [],
    type: 'duration',
    default: 0,
    description: 'The part of shutdownGracePeriod kept for system-critical pods, stopped after the others',
  },
  ...LIFETIME_SETTINGS,

  // knode's own settings: flags only; --print-config shows them as comments.
  {
    field: 'nodeName',
    name: 'nodeName',
    file: false,
    flag: 'node-name',
    commands: ['run', 'apply', 'delete'],
    type: 'name',
    default: () => hostname().toLowerCase(),
    defaultText: 'the hostname',
    description: 'Name of this node; static pods are named <pod>-<node-name>',
  },
  {
    field: 'rootDir',
    name: 'rootDir',
    file: false,
    flag: 'root-dir',
    commands: ['all'],
    type: 'string',
    default: (c: SettingContext) => c.rootDir,
    defaultText: '$KNODE_ROOT_DIR or ~/.knode',
    description: 'Directory for knode state, the embedded runtime and logs',
  },
  {
    field: 'podLogsDir',
    name: 'podLogsDir',
    file: false,
    commands: [],
    type: 'path',
    default: (c: SettingContext) => join(c.rootDir, 'pods'),
    defaultText: '<root-dir>/pods',
    description: "Where pod log directories live (the kubelet's /var/log/pods)",
  },
  {
    field: 'nodeLogDir',
    name: 'nodeLogDir',
    file: false,
    flag: 'node-log-dir',
    commands: ['run'],
    type: 'path',
    default: '/var/log',
    description: 'The directory /logs/ serves, as the kubelet serves /var/log',
  },
  ...RUNTIME_SETTINGS,
  {
    field: 'kubeconfig',
    name: 'kubeconfig',
    file: false,
    flag: 'kubeconfig',
    commands: ['run'],
    type: 'string',
    unprinted: true,
    description:
      'Join the cluster of this kubeconfig: run the pods bound to this node, register the Node, renew its Lease, report pod status, keep mirror pods of static pods. `default` finds one as kubectl does ($KUBECONFIG, ~/.kube/config, in-cluster)',
  },
  {
    field: 'nodeIP',
    name: 'nodeIP',
    file: false,
    flag: 'node-ip',
    commands: ['run'],
    type: 'string',
    unprinted: true,
    defaultText: "the host's primary IP",
    description: "The node's IP: its InternalIP, the pods' hostIP, where the kubelet API listens",
  },
  {
    field: 'nodeLabels',
    name: 'nodeLabels',
    file: false,
    flag: 'node-labels',
    commands: ['run'],
    type: 'labels',
    unprinted: true,
    default: {},
    description: "Labels to register the Node with, 'key=value,...' (a nodeSelector may also ask for them)",
  },
  {
    field: 'clientCAFile',
    name: 'clientCAFile',
    file: false,
    flag: 'client-ca-file',
    commands: ['run'],
    type: 'string',
    unprinted: true,
    description:
      "CA whose client certificates may call the kubelet API (the apiserver's --kubelet-client-certificate); bearer tokens are checked with the apiserver",
  },
  {
    field: 'runOnce',
    name: 'runOnce',
    file: false,
    commands: [],
    type: 'bool',
    unprinted: true,
    default: false,
    description: 'Read each source once and do not watch it (set by knode apply)',
  },
];

/** The setting that fills `field`. */
export function settingFor(field: keyof KubeletConfiguration): Setting {
  const setting = SETTINGS.find((s) => s.field === field);
  if (!setting) throw new Error(`no setting fills ${field}`);
  return setting;
}

/** Its default in this context (a fresh copy of a list or map); undefined when it has none. */
export function settingDefault(setting: Setting, context: SettingContext): unknown {
  const value = setting.default;
  return typeof value === 'function' ? (value as (c: SettingContext) => unknown)(context) : structuredClone(value);
}

/** A value as a --config file and `--print-config` write it. */
export function formatSetting(setting: Setting, value: unknown): unknown {
  if (setting.type === 'duration') return formatGoDuration(value as number);
  if (setting.type === 'quantity') return formatByteQuantity(value as number);
  if (setting.type === 'enum') return Object.entries(setting.options ?? {}).find(([, v]) => v === value)?.[0] ?? value;
  return value;
}

/** A signals map as its flag writes it: "memory.available<100Mi,nodefs.available<10%". */
export function formatSignals(setting: Setting, value: Record<string, string>): string {
  return Object.entries(value)
    .map(([k, v]) => `${k}${setting.separator ?? '='}${v}`)
    .join(',');
}

/** The default as --help and the docs show it; undefined when there is nothing to show (no default, or an empty one). */
export function defaultText(setting: Setting): string | undefined {
  if (setting.defaultText) return setting.defaultText;
  const value = setting.default;
  if (value === undefined || value === '' || typeof value === 'function') return undefined;
  if (typeof value === 'object' && Object.keys(value as object).length === 0) return undefined;
  if (typeof value === 'boolean' && setting.type === 'bool') return value ? 'on' : 'off';
  if (setting.type === 'signals') return formatSignals(setting, value as Record<string, string>);
  return String(formatSetting(setting, value));
}
