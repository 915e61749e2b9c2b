// What the embedded runtime remembers about sandboxes and containers. Records
// are plain JSON, persisted one file each, so a restarted runtime knows what
// it ran. Times are nanoseconds since the epoch, as CRI reports them.

import { hostname } from 'node:os';
import type { HostPortMapping } from './host-ports.js';
import type { PodNetworkRecord } from './network/pod-network.js';

export type SandboxState = 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
export type ContainerState = 'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' | 'CONTAINER_UNKNOWN';

export interface NamespaceModes {
  network: string;
  pid: string;
  ipc: string;
}

export interface SandboxRecord {
  id: string;
  metadata: { name: string; uid: string; namespace: string; attempt: number };
  state: SandboxState;
  createdAt: number;
  hostname: string;
  logDirectory: string;
  runtimeHandler: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  namespaces: NamespaceModes;
  ip: string;
  /** The process holding the sandbox's shared PID namespace, while its containers use one. */
  pidHolder?: { pid: number; startTime: string };
  /** The process holding the pod's IPC, UTS and PID namespaces, while sandboxed containers use them. */
  podHolder?: { pid: number; startTime: string };
  /** The port mappings the runtime relays (a hostPort that is not its containerPort). */
  hostPorts?: HostPortMapping[];
  /** The pod's sysctls as files under /proc/sys and their values, written in its holder's namespaces (sandboxes). */
  sysctls?: [file: string, value: string][];
  /** The pod's DNS settings (its resolv.conf in sandboxes). */
  dns?: { servers: string[]; searches: string[]; options: string[] };
  /** The pod's own network (a CNI network in a namespace of its own); absent: the host's. */
  podNetwork?: PodNetworkRecord;
  /** The pod's IPs after `ip` (a pod network's IPv6 one). */
  additionalIps?: string[];
}

/** What a sandboxed container runs, fixed at CreateContainer from its image and its config. */
export interface SandboxedSpec {
  /** Where its root file system is mounted on the host. */
  rootfs: string;
  argv: string[];
  env: Record<string, string>;
  /** The working directory inside the root file system. */
  cwd: string;
  uid: number;
  gid: number;
  /** Supplementary groups: securityContext.supplementalGroups and the user's groups in the image. */
  groups?: number[];
  /** securityContext.readonlyRootfs: its root file system is mounted read-only (its volumes keep their own mode). */
  readonlyRootfs?: boolean;
  /** The capabilities it keeps (setpriv's names); absent: all of them (privileged, or a record from before they were kept). */
  capabilities?: string[];
  /** securityContext.privileged: /sys is mounted writable. */
  privileged?: boolean;
  /** Covered with /dev/null or an empty tmpfs (masked_paths; none when privileged). */
  maskedPaths?: string[];
  /** Bound read-only (readonly_paths; none when privileged). */
  readonlyPaths?: string[];
  /** The compiled seccomp filter it runs under (a file bwrap loads); absent: none. */
  seccomp?: string;
  /** CRI's no_new_privs: a setuid program does not gain its owner's rights (bwrap sets it whatever this says). */
  noNewPrivs?: boolean;
  /**
   * Its set-up mounts its root's overlay in its own mount namespace, where
   * nothing else sees it: nothing is mounted at `rootfs` on the host, and
   * the overlay goes with the last of its processes.
   */
  ownRoot?: boolean;
}

/**
 * A container's mount. propagation: absent when private (the default);
 * recursiveReadOnly: its submounts read-only too. An image volume has
 * `image` (as asked, and the id of the image it resolved to) and the sub
 * path asked for, and `hostPath` is where that is on the host: its image's
 * files, stacked for volumes.
 */
export interface RecordMount {
  containerPath: string;
  hostPath: string;
  readonly: boolean;
  propagation?: 'PROPAGATION_HOST_TO_CONTAINER' | 'PROPAGATION_BIDIRECTIONAL';
  recursiveReadOnly?: boolean;
  image?: { image: string; imageId: string; userSpecifiedImage?: string };
  imageSubPath?: string;
}

export interface ContainerRecord {
  id: string;
  podSandboxId: string;
  metadata: { name: string; attempt: number };
  /** The image as the create named it (the kubelet names it by id). */
  image: string;
  /** The image's first tag when the container was made: its status names the image so, as containerd's does. */
  imageTag?: string;
  /** The image as the pod's spec named it (CRI user_specified_image). */
  userSpecifiedImage?: string;
  imageRef: string;
  imageId: string;
  command: string[];
  args: string[];
  workingDir: string;
  envs: { key: string; value: string }[];
  mounts: RecordMount[];
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** Absolute path of the CRI log file, or '' when output is discarded. */
  logPath: string;
  stdin: boolean;
  /** The stdin closes after the first attach ends (absent in records from before it was kept). */
  stdinOnce?: boolean;
  stopSignal: string;
  /** CRI's NamespaceOption.pid (and target_id for TARGET); records from before it have none, which is POD. */
  pidNamespace?: { mode: string; targetId: string };
  /** The Linux resources asked for; enforced through cgroups where the host allows. */
  resources?: { memoryLimitInBytes: number; cpuQuota: number; cpuPeriod: number; cpuShares: number };
  state: ContainerState;
  createdAt: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  reason: string;
  message: string;
  /** Process id and its /proc start time, so a restarted runtime can tell it from a reused pid. */
  pid?: number;
  pidStartTime?: string;
  /** A container of a real image runs in a bubblewrap sandbox: what it runs there (sandbox/image-sandboxes.ts). */
  sandboxed?: SandboxedSpec;
}

export interface ImageRecord {
  /** The config's digest for a real image (as containerd reports it). */
  id: string;
  repoTags: string[];
  repoDigests: string[];
  size: number;
  pulledAt: number;
  /** Real images only (pulled or imported): the platform manifest, its layers' diff_ids lowest first, every blob kept. */
  manifestDigest?: string;
  layers?: string[];
  blobs?: string[];
  /** The config's User: a numeric user as uid, a name as username (CRI's Image fields). */
  uid?: number;
  username?: string;
}

/** The pod's own network namespace (a pod network's), while it has one. */
export function podNetns(sandbox: Pick<SandboxRecord, 'podNetwork'>): string | undefined {
  return sandbox.podNetwork && !sandbox.podNetwork.removed ? sandbox.podNetwork.netns : undefined;
}

/** The hostname a pod's containers get: the one its config gives, else the node's (as containerd falls back to os.Hostname()). */
export function podHostname(sandbox: Pick<SandboxRecord, 'hostname'>): string {
  return sandbox.hostname || hostname();
}
