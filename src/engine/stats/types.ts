/**
 * The kubelet's Summary API (`stats.k8s.io/v1alpha1`, served at
 * /stats/summary): the shape metrics-server and `kubectl top` read. Field
 * names are the upstream JSON names; times are RFC 3339 strings.
 */

export interface CPUStats {
  time: string;
  /** Average usage over the last sample window, in billionths of a core. */
  usageNanoCores?: number;
  /** Cumulative CPU time, in core-nanoseconds. */
  usageCoreNanoSeconds?: number;
}

export interface MemoryStats {
  time: string;
  availableBytes?: number;
  usageBytes?: number;
  workingSetBytes?: number;
  rssBytes?: number;
  pageFaults?: number;
  majorPageFaults?: number;
}

export interface FsStats {
  time: string;
  availableBytes?: number;
  capacityBytes?: number;
  usedBytes?: number;
  inodesFree?: number;
  inodes?: number;
  inodesUsed?: number;
}

export interface VolumeStats extends FsStats {
  name: string;
}

export interface ContainerStats {
  name: string;
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
  rootfs?: FsStats;
  logs?: FsStats;
}

export interface PodReference {
  name: string;
  namespace: string;
  uid: string;
}

export interface PodStats {
  podRef: PodReference;
  startTime: string;
  containers: ContainerStats[];
  cpu?: CPUStats;
  memory?: MemoryStats;
  volume?: VolumeStats[];
  'ephemeral-storage'?: FsStats;
  process_stats?: { process_count?: number };
}

export interface RuntimeStats {
  imageFs?: FsStats;
  containerFs?: FsStats;
}

export interface NodeStats {
  nodeName: string;
  systemContainers?: ContainerStats[];
  startTime: string;
  cpu?: CPUStats;
  memory?: MemoryStats;
  fs?: FsStats;
  runtime?: RuntimeStats;
  rlimit?: { time: string; maxpid?: number; curproc?: number };
}

export interface Summary {
  node: NodeStats;
  pods: PodStats[];
}
