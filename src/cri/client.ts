import type { MethodDefinition } from '@grpc/proto-loader';
import { connect } from 'node:net';
import { CriError, GrpcCode } from './errors.js';
import { socketPathOf } from './endpoint.js';
import type { ImageServiceDefinition } from './gen/runtime/v1/ImageService.js';
import type { RuntimeServiceDefinition } from './gen/runtime/v1/RuntimeService.js';
import { GrpcChannel, type GrpcMethod } from './grpc-channel.js';
import { criClientMethods } from './proto.js';
import type { ImageService, RuntimeService, StreamFlags } from './runtime-service.js';
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
  ImageStatusResponse,
  LinuxContainerResources,
  PodSandbox,
  PodSandboxConfig,
  PodSandboxFilter,
  PodSandboxStats,
  PodSandboxStatsFilter,
  PodSandboxStatusResponse,
  RuntimeConfigResponse,
  StatusResponse,
  VersionResponse,
} from './types.js';

export interface CriClientOptions {
  /** Deadline of an ordinary call (the kubelet's --runtime-request-timeout, 2m). */
  requestTimeoutMs?: number;
  /** Deadline of PullImage, which can legitimately take long. */
  pullTimeoutMs?: number;
  /** Told about every finished call, for metrics and traces. */
  onCall?: (method: string, durationMs: number, error?: CriError) => void;
}

// The generated definitions carry an index signature; keep only the named methods.
type Named<T> = { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };
type Definitions = Named<RuntimeServiceDefinition> & Named<ImageServiceDefinition>;
type Method = keyof Definitions & string;
/* eslint-disable @typescript-eslint/no-explicit-any */
type RequestOf<M extends Method> = Definitions[M] extends MethodDefinition<infer Req, any, any, any> ? Req : never;
type ResponseOf<M extends Method> = Definitions[M] extends MethodDefinition<any, any, any, infer Res> ? Res : never;
/* eslint-enable @typescript-eslint/no-explicit-any */

const MAX_MESSAGE = 16 * 1024 * 1024;

/**
 * A CRI client over one gRPC channel to a unix socket (GrpcChannel), shared
 * by the runtime and image services. Every call has a deadline and rejects
 * with a CriError carrying the gRPC code. `close()` ends the channel and
 * cancels the calls still waiting for an answer (as closing a Go client's
 * connection does): nothing holds knode once it is done.
 */
export class CriClient implements RuntimeService, ImageService {
  readonly endpoint: string;
  readonly socketPath: string;
  private readonly channel: GrpcChannel;
  private readonly methods: Record<string, GrpcMethod<object, unknown>>;
  private readonly requestTimeoutMs: number;
  private readonly pullTimeoutMs: number;
  private readonly onCall?: CriClientOptions['onCall'];

  constructor(endpoint: string, options: CriClientOptions = {}) {
    this.endpoint = endpoint;
    this.socketPath = socketPathOf(endpoint);
    this.requestTimeoutMs = options.requestTimeoutMs ?? 120_000;
    this.pullTimeoutMs = options.pullTimeoutMs ?? 30 * 60_000;
    this.onCall = options.onCall;
    this.methods = criClientMethods();
    const socketPath = this.socketPath;
    this.channel = new GrpcChannel({ connect: () => connect(socketPath), maxMessageBytes: MAX_MESSAGE });
  }

  close(): void {
    this.channel.close();
  }

  /** One unary call; SIGNAL cancels it (the runtime sees the call cancelled, as a Go client's context does). */
  private async call<M extends Method>(
    method: M,
    req: RequestOf<M>,
    timeoutMs = this.requestTimeoutMs,
    signal?: AbortSignal,
  ): Promise<ResponseOf<M>> {
    const started = performance.now();
    try {
      const answer = (await this.channel.call(this.methods[method], req as object, timeoutMs, signal)) as ResponseOf<M>;
      this.onCall?.(method, performance.now() - started);
      return answer;
    } catch (err) {
      const error = CriError.from(method, err as Error);
      this.onCall?.(method, performance.now() - started, error);
      throw error;
    }
  }

  // ---- RuntimeService ----

  /** The runtime's name and version; TIMEOUTMS bounds this call alone (a probe of whether anything answers). */
  version(timeoutMs = this.requestTimeoutMs): Promise<VersionResponse> {
    return this.call('Version', { version: 'v1' }, timeoutMs);
  }

  status(verbose = false): Promise<StatusResponse> {
    return this.call('Status', { verbose });
  }

  async runPodSandbox(config: PodSandboxConfig, runtimeHandler = ''): Promise<string> {
    const res = await this.call('RunPodSandbox', { config, runtimeHandler });
    return res.podSandboxId;
  }

  async stopPodSandbox(podSandboxId: string): Promise<void> {
    await this.call('StopPodSandbox', { podSandboxId });
  }

  async removePodSandbox(podSandboxId: string): Promise<void> {
    await this.call('RemovePodSandbox', { podSandboxId });
  }

  podSandboxStatus(podSandboxId: string, verbose = false): Promise<PodSandboxStatusResponse> {
    return this.call('PodSandboxStatus', { podSandboxId, verbose });
  }

  async listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox[]> {
    const res = await this.call('ListPodSandbox', { filter: filter ?? null });
    return res.items;
  }

  async createContainer(podSandboxId: string, config: ContainerConfig, sandboxConfig: PodSandboxConfig): Promise<string> {
    const res = await this.call('CreateContainer', { podSandboxId, config, sandboxConfig });
    return res.containerId;
  }

  async startContainer(containerId: string, signal?: AbortSignal): Promise<void> {
    await this.call('StartContainer', { containerId }, this.requestTimeoutMs, signal);
  }

  async stopContainer(containerId: string, timeoutSeconds: number): Promise<void> {
    const deadline = this.requestTimeoutMs + Math.max(0, timeoutSeconds) * 1000;
    await this.call('StopContainer', { containerId, timeout: timeoutSeconds }, deadline);
  }

  async removeContainer(containerId: string): Promise<void> {
    await this.call('RemoveContainer', { containerId });
  }

  async listContainers(filter?: ContainerFilter): Promise<Container[]> {
    const res = await this.call('ListContainers', { filter: filter ?? null });
    return res.containers;
  }

  containerStatus(containerId: string, verbose = false): Promise<ContainerStatusResponse> {
    return this.call('ContainerStatus', { containerId, verbose });
  }

  async reopenContainerLog(containerId: string): Promise<void> {
    await this.call('ReopenContainerLog', { containerId });
  }

  execSync(containerId: string, cmd: string[], timeoutSeconds: number): Promise<ExecSyncResponse> {
    const deadline = timeoutSeconds > 0 ? this.requestTimeoutMs + timeoutSeconds * 1000 : this.requestTimeoutMs;
    return this.call('ExecSync', { containerId, cmd, timeout: timeoutSeconds }, deadline);
  }

  async exec(request: StreamFlags & { containerId: string; cmd: string[] }): Promise<string> {
    return (await this.call('Exec', request)).url;
  }

  async attach(request: StreamFlags & { containerId: string }): Promise<string> {
    return (await this.call('Attach', request)).url;
  }

  async portForward(podSandboxId: string, ports: number[]): Promise<string> {
    return (await this.call('PortForward', { podSandboxId, port: ports })).url;
  }

  async containerStats(containerId: string): Promise<ContainerStats | null> {
    const res = await this.call('ContainerStats', { containerId });
    return res.stats;
  }

  async listContainerStats(filter?: ContainerStatsFilter): Promise<ContainerStats[]> {
    const res = await this.call('ListContainerStats', { filter: filter ?? null });
    return res.stats;
  }

  async podSandboxStats(podSandboxId: string): Promise<PodSandboxStats | null> {
    const res = await this.call('PodSandboxStats', { podSandboxId });
    return res.stats;
  }

  async listPodSandboxStats(filter?: PodSandboxStatsFilter): Promise<PodSandboxStats[]> {
    const res = await this.call('ListPodSandboxStats', { filter: filter ?? null });
    return res.stats;
  }

  async updateContainerResources(containerId: string, linux: LinuxContainerResources): Promise<void> {
    await this.call('UpdateContainerResources', { containerId, linux });
  }

  runtimeConfig(): Promise<RuntimeConfigResponse> {
    return this.call('RuntimeConfig', {});
  }

  async *getContainerEvents(signal: AbortSignal): AsyncIterable<ContainerEvent> {
    try {
      for await (const event of this.channel.watch(this.methods.GetContainerEvents, {}, signal)) yield event as ContainerEvent;
    } catch (err) {
      const error = CriError.from('GetContainerEvents', err as Error);
      if (!(signal.aborted && error.code === GrpcCode.CANCELLED)) throw error;
    }
  }

  // ---- ImageService ----

  async listImages(filter?: ImageFilter): Promise<Image[]> {
    const res = await this.call('ListImages', { filter: filter ?? null });
    return res.images;
  }

  async imageStatus(image: ImageSpec, verbose = false): Promise<Image | null> {
    const res = await this.call('ImageStatus', { image, verbose });
    return res.image && res.image.id ? res.image : null;
  }

  /** The whole answer, with the runtime's `info` (verbose: the image config, for containerd and the embedded runtime). */
  imageStatusInfo(image: ImageSpec): Promise<ImageStatusResponse> {
    return this.call('ImageStatus', { image, verbose: true });
  }

  async pullImage(image: ImageSpec, auth?: AuthConfig, sandboxConfig?: PodSandboxConfig): Promise<string> {
    const req = { image, auth: auth ?? null, sandboxConfig: sandboxConfig ?? null };
    const res = await this.call('PullImage', req, this.pullTimeoutMs);
    return res.imageRef;
  }

  async removeImage(image: ImageSpec): Promise<void> {
    await this.call('RemoveImage', { image });
  }

  imageFsInfo(): Promise<ImageFsInfoResponse> {
    return this.call('ImageFsInfo', {});
  }
}
