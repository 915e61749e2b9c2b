import type {
  AuthConfig,
  Container,
  ContainerConfig,
  ContainerEvent,
  ContainerFilter,
  ContainerStats,
  ContainerStatsFilter,
  ContainerStatusResponse,
  ExecSyncResponse,
  Image,
  ImageFilter,
  ImageFsInfoResponse,
  ImageSpec,
  PodSandbox,
  PodSandboxConfig,
  PodSandboxFilter,
  PodSandboxStats,
  PodSandboxStatsFilter,
  PodSandboxStatusResponse,
  StatusResponse,
  VersionResponse,
} from './types.js';

/** Which of the command's streams a client wants; with a TTY, stderr is part of stdout. */
export interface StreamFlags {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/**
 * The CRI runtime service as the engine sees it (the kubelet's
 * internalapi.RuntimeService). The gRPC client implements it; unit tests of one
 * engine component may use a fake. Every method rejects with a CriError that
 * keeps the runtime's gRPC status code.
 */
export interface RuntimeService {
  version(): Promise<VersionResponse>;
  status(verbose?: boolean): Promise<StatusResponse>;

  runPodSandbox(config: PodSandboxConfig, runtimeHandler?: string): Promise<string>;
  stopPodSandbox(podSandboxId: string): Promise<void>;
  removePodSandbox(podSandboxId: string): Promise<void>;
  podSandboxStatus(podSandboxId: string, verbose?: boolean): Promise<PodSandboxStatusResponse>;
  listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox[]>;

  createContainer(podSandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig): Promise<string>;
  /** SIGNAL cancels the call: a start not yet made by then is not made (on runtimes that honour a cancelled call). */
  startContainer(containerId: string, signal?: AbortSignal): Promise<void>;
  /** Stops within `timeoutSeconds` (then kills); the call's own deadline allows for it. */
  stopContainer(containerId: string, timeoutSeconds: number): Promise<void>;
  removeContainer(containerId: string): Promise<void>;
  listContainers(filter?: ContainerFilter): Promise<Container[]>;
  containerStatus(containerId: string, verbose?: boolean): Promise<ContainerStatusResponse>;
  reopenContainerLog(containerId: string): Promise<void>;
  execSync(containerId: string, cmd: string[], timeoutSeconds: number): Promise<ExecSyncResponse>;
  /** The URL of the runtime's streaming server where `cmd` runs once a client connects (SPDY, remotecommand). */
  exec(request: StreamFlags & { containerId: string; cmd: string[] }): Promise<string>;
  /** The URL where a client attaches to the container's output and stdin. */
  attach(request: StreamFlags & { containerId: string }): Promise<string>;
  /** The URL where a client forwards ports of the sandbox (portforward.k8s.io). */
  portForward(podSandboxId: string, ports: number[]): Promise<string>;
  containerStats(containerId: string): Promise<ContainerStats | null>;
  listContainerStats(filter?: ContainerStatsFilter): Promise<ContainerStats[]>;
  /** Each sandbox's usage with its containers'; containerd 1.6 rejects it with UNIMPLEMENTED. */
  listPodSandboxStats(filter?: PodSandboxStatsFilter): Promise<PodSandboxStats[]>;

  /**
   * Container lifecycle events until `signal` aborts. A runtime without the
   * stream (containerd 1.6) rejects the first read with UNIMPLEMENTED.
   */
  getContainerEvents(signal: AbortSignal): AsyncIterable<ContainerEvent>;
}

/** The CRI image service as the engine sees it (internalapi.ImageManagerService). */
export interface ImageService {
  listImages(filter?: ImageFilter): Promise<Image[]>;
  /** The image, or null when the runtime does not have it. */
  imageStatus(image: ImageSpec, verbose?: boolean): Promise<Image | null>;
  /** Pulls and returns the image reference (usually its digest or id). */
  pullImage(image: ImageSpec, auth?: AuthConfig, sandboxConfig?: PodSandboxConfig): Promise<string>;
  removeImage(image: ImageSpec): Promise<void>;
  imageFsInfo(): Promise<ImageFsInfoResponse>;
}
