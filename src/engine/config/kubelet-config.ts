import type { Taint } from '../api/cluster.js';
import { formatGoDuration } from './duration.js';
import { SETTINGS, settingDefault } from './settings.js';

/**
 * The one configuration object the engine takes: the kubelet's
 * KubeletConfiguration fields that knode implements (same names, durations in
 * milliseconds), with knode's own fields beside them. Flags and a config file
 * both fill it; nothing else reaches the engine.
 */
export interface KubeletConfiguration {
  nodeName: string;
  /** knode's root dir: pod logs, the embedded runtime. */
  rootDir: string;
  staticPodPath?: string;
  staticPodURL?: string;
  staticPodURLHeader: Record<string, string[]>;
  fileCheckFrequency: number;
  httpCheckFrequency: number;
  syncFrequency: number;
  maxPods: number;
  /** Sandboxes asked of the runtime at once, at most (0: no bound); one that takes over 5 s stops counting. */
  maxParallelSandboxStarts: number;
  /** --allowed-unsafe-sysctls: patterns (a name, or a prefix ending in *) admitted beside the safe sysctls. */
  allowedUnsafeSysctls: string[];
  /** --seccomp-default: RuntimeDefault for containers whose pod and container name no seccomp profile (Unconfined otherwise). */
  seccompDefault: boolean;
  runtimeRequestTimeout: number;
  containerRuntimeEndpoint: string;
  /** The read-only API's address and port (0 turns TCP off; the unix socket stays). */
  address: string;
  readOnlyPort: number;
  /** The kubelet API's port (HTTPS, what the apiserver proxies to; served when the node joined a cluster); 0 turns it off. */
  port: number;
  /** The kubelet API's serving certificate and key; without them a self-signed pair is made under the root dir. */
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** The cluster's DNS domain (--cluster-domain): a pod with a subdomain is `<hostname>.<subdomain>.<namespace>.svc.<clusterDomain>`. */
  clusterDomain: string;
  /** The cluster DNS servers' IPs (--cluster-dns): ClusterFirst pods' nameservers. */
  clusterDNS: string[];
  /** The host's resolver file (--resolv-conf) Default pods get; '' gives them the node's loopback. */
  resolvConf: string;
  /** Client certificates signed by this CA may call the kubelet API (authentication.x509.clientCAFile). */
  clientCAFile?: string;
  /** The node's IP (--node-ip): its InternalIP, status.hostIP, and where the kubelet API listens. Default: the host's primary IP. */
  nodeIP?: string;
  /** Labels the node registers with, besides kubernetes.io/hostname, os and arch (--node-labels). */
  nodeLabels: Record<string, string>;
  /** How often the Node status is computed, and written when it changed. */
  nodeStatusUpdateFrequency: number;
  /** How often the Node status is written even when nothing changed. */
  nodeStatusReportFrequency: number;
  /** The node Lease's duration; it is renewed every quarter of it. */
  nodeLeaseDurationSeconds: number;
  /** Serve /debug/profile and /debug/heap (on the unix socket, a loopback read-only port and the kubelet API). Off unless asked for. */
  enableProfilingHandler: boolean;
  /** Serve the node's log directory at /logs/. */
  enableSystemLogHandler: boolean;
  /** How long a drain (knode run --drain-on-exit) may take in all; 0: each pod gets its own grace period. */
  shutdownGracePeriod: number;
  /** The part of shutdownGracePeriod kept for system-critical pods, stopped after the others. */
  shutdownGracePeriodCriticalPods: number;
  /** A container's log is rotated once it reaches this many bytes; negative: never. */
  containerLogMaxSize: number;
  /** The most log files a container keeps: the current one and the rotated ones. */
  containerLogMaxFiles: number;
  /** How often the running containers' logs are checked for rotation. */
  containerLogMonitorInterval: number;
  /** How many container logs are rotated at once. */
  containerLogMaxWorkers: number;
  /** The image filesystem's usage (percent) at or above which unused images are collected. */
  imageGCHighThresholdPercent: number;
  /** The usage (percent) image garbage collection frees down to. */
  imageGCLowThresholdPercent: number;
  /** An image first seen less than this long ago is not collected. */
  imageMinimumGCAge: number;
  /** An image unused for longer than this is collected whatever the usage; 0: never. */
  imageMaximumGCAge: number;
  /** Hard eviction thresholds: signal to quantity or percentage ("memory.available": "100Mi"). */
  evictionHard: Record<string, string>;
  /** Soft eviction thresholds, each with a grace period in evictionSoftGracePeriod. */
  evictionSoft: Record<string, string>;
  /** How long a soft threshold is met before a pod is evicted for it (Go durations). */
  evictionSoftGracePeriod: Record<string, string>;
  /** How much past a threshold an eviction frees before the pressure counts as relieved. */
  evictionMinimumReclaim: Record<string, string>;
  /** How long a pressure condition stays after its threshold is no longer met. */
  evictionPressureTransitionPeriod: number;
  /** The longest grace period (seconds) a pod evicted for a soft threshold gets. */
  evictionMaxPodGracePeriod: number;
  /** Fill the signals evictionHard leaves out with the kubelet's defaults. */
  mergeDefaultEvictionSettings: boolean;

  // knode's fields
  /** The directory /logs/ serves (the kubelet's /var/log). */
  nodeLogDir: string;
  /** The kubeconfig of the apiserver to join (--kubeconfig; `default` finds one as kubectl does); none: no apiserver. */
  kubeconfig?: string;
  /** Bootstrap credentials for a missing or expired --kubeconfig (TLS bootstrap). */
  bootstrapKubeconfig?: string;
  /** Where the node's certificates and keys are kept (the kubelet's --cert-dir). */
  certDirectory: string;
  /** Renew the client certificate through the cluster before it expires. */
  rotateCertificates: boolean;
  /** Request the kubelet API's serving certificate from the cluster, and renew it. */
  serverTLSBootstrap: boolean;
  /** Taints the Node is registered with. */
  registerWithTaints: Taint[];
  /** The generic PLEG's relist period (the kubelet's is fixed at 1s). */
  plegRelistPeriod: number;
  /** Use runtime container events as hints for targeted relists (DESIGN.md: "events are hints"). */
  eventedPleg: boolean;
  /** The full relist period while container events arrive (a safety net), and the longest a pod's sync holds back its events. */
  plegEventedRelistPeriod: number;
  /** How long without a finished relist before the PLEG is unhealthy (the kubelet's is fixed at 3m). */
  plegRelistThreshold: number;
  /** Where pod log directories live (the kubelet's /var/log/pods). */
  podLogsDir: string;
  /** Read each source once and do not watch it (runOnce, `knode apply`). */
  runOnce: boolean;
}

/** The kubelet's defaults, as the settings table (settings.ts) gives them, then `overrides`. */
export function defaultKubeletConfiguration(rootDir: string, overrides: Partial<KubeletConfiguration> = {}): KubeletConfiguration {
  const defaults: Record<string, unknown> = {};
  for (const setting of SETTINGS) {
    const value = settingDefault(setting, { rootDir });
    if (value !== undefined) defaults[setting.field] = value;
  }
  return { ...(defaults as unknown as KubeletConfiguration), ...overrides };
}

/** What the kubelet's validation says of the container log settings, or undefined when they are good (its texts). */
export function containerLogProblem(config: KubeletConfiguration): string | undefined {
  if (config.containerLogMaxWorkers < 1) return 'containerLogMaxWorkers must be greater than or equal to 1';
  if (config.containerLogMonitorInterval < 3_000)
    return 'containerLogMonitorInterval must be a positive time duration greater than or equal to 3s';
  if (config.containerLogMaxFiles <= 1) return 'containerLogMaxFiles must be greater than 1';
  return undefined;
}

/** What the kubelet's validation says of the image garbage collection settings, or undefined when they are good (its texts; negative values do not parse). */
export function imageGCProblem(config: KubeletConfiguration): string | undefined {
  const { imageGCHighThresholdPercent: high, imageGCLowThresholdPercent: low, imageMinimumGCAge: min, imageMaximumGCAge: max } = config;
  if (high < 0 || high > 100) return `imageGCHighThresholdPercent (--image-gc-high-threshold) ${high} must be between 0 and 100, inclusive`;
  if (low < 0 || low > 100) return `imageGCLowThresholdPercent (--image-gc-low-threshold) ${low} must be between 0 and 100, inclusive`;
  if (low >= high)
    return `imageGCLowThresholdPercent (--image-gc-low-threshold) ${low} must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) ${high}`;
  if (max > 0 && max <= min)
    return `imageMaximumGCAge ${formatGoDuration(max)} must be greater than imageMinimumGCAge ${formatGoDuration(min)}`;
  return undefined;
}

/** Constants of the kubelet that are not configuration. */
export const KubeletConstants = {
  housekeepingPeriod: 2_000,
  syncLoopTick: 1_000,
  /** Error backoff of a pod worker (kubelet backOffPeriod). */
  workerBackOffPeriod: 10_000,
  crashLoopBackOffInitial: 10_000,
  crashLoopBackOffMax: 300_000,
  imageBackOffInitial: 10_000,
  imageBackOffMax: 300_000,
  runtimeStatusPeriod: 5_000,
  /** How often container and node usage is read while someone reads it, so CPU rates are ready (the eviction manager's period; SummaryProvider.refresh). */
  statsRefreshPeriod: 10_000,
  defaultTerminationGracePeriodSeconds: 30,
} as const;
