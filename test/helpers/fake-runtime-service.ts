// A CRI runtime for unit tests of engine components, after the kubelet's
// FakeRuntimeService (cri-api pkg/apis/testing/fake_runtime_service.go): it
// records every call, keeps sandboxes, containers and images in maps, and lets
// a test script the answer of any method or make it fail.
import { createHash } from 'node:crypto';
import { CriError, GrpcCode } from '../../src/cri/errors.js';
import type { ImageService, RuntimeService } from '../../src/cri/runtime-service.js';
import {
  KubeletLabels,
  type Container,
  type ContainerEvent,
  type ContainerFilter,
  type ContainerStatus,
  type Image,
  type ImageSpec,
  type NamespaceMode,
  type PodSandbox,
  type PodSandboxFilter,
  type PodSandboxStatus,
} from '../../src/cri/types.js';
import { ObjectManager } from '../../src/engine/cluster/object-manager.js';
import { EventStream } from '../../src/engine/events.js';
import { ContainerManager } from '../../src/engine/kuberuntime/containers.js';
import { HookRunner } from '../../src/engine/kuberuntime/hooks.js';
import { ImagePuller } from '../../src/engine/kuberuntime/image-puller.js';
import { NodeNameLabel } from '../../src/engine/kuberuntime/labels.js';
import { RuntimeManager } from '../../src/engine/kuberuntime/runtime-manager.js';
import { Backoff } from '../../src/util/backoff.js';
import type { Clock } from '../../src/util/clock.js';

type Services = RuntimeService & ImageService;

/** The calls a test can script or make fail: every method but the event stream. */
export type FakeMethod = Exclude<keyof Services, 'getContainerEvents'>;
type Args<M extends FakeMethod> = Parameters<Services[M]>;
type Answer<M extends FakeMethod> = Awaited<ReturnType<Services[M]>>;
type Script<M extends FakeMethod> = (...args: Args<M>) => Answer<M> | Promise<Answer<M>>;
type Hook<M extends FakeMethod> = (...args: Args<M>) => void | Promise<void>;

/** A sandbox's status, every field filled: the defaults of a ready sandbox on the pod's network, with OVERRIDES. */
export function fakeSandboxStatus(overrides: Partial<PodSandboxStatus> = {}): PodSandboxStatus {
  return {
    id: '',
    metadata: { name: '', uid: '', namespace: '', attempt: 0 },
    state: 'SANDBOX_READY',
    createdAt: 0,
    network: { ip: '', additionalIps: [] },
    linux: null,
    labels: {},
    annotations: {},
    runtimeHandler: '',
    ...overrides,
  };
}

/** A container's status, every field filled: the defaults of a created container, with OVERRIDES. */
export function fakeContainerStatus(overrides: Partial<ContainerStatus> = {}): ContainerStatus {
  return {
    id: '',
    metadata: { name: '', attempt: 0 },
    state: 'CONTAINER_CREATED',
    createdAt: 0,
    startedAt: 0,
    finishedAt: 0,
    exitCode: 0,
    image: null,
    imageRef: '',
    reason: '',
    message: '',
    labels: {},
    annotations: {},
    mounts: [],
    logPath: '',
    imageId: '',
    stopSignal: 'SIGNAL_RUNTIME_DEFAULT',
    ...overrides,
  };
}

/** The labels the kubelet puts on a pod's sandboxes and containers on node NODENAME. */
export function podLabels(pod: { uid: string; name: string; namespace: string }, nodeName: string): Record<string, string> {
  return {
    [NodeNameLabel]: nodeName,
    [KubeletLabels.podUid]: pod.uid,
    [KubeletLabels.podName]: pod.name,
    [KubeletLabels.podNamespace]: pod.namespace,
  };
}

/**
 * The engine's runtime manager over RUNTIME, on CLOCK, as node NODENAME: what
 * the PLEG reads pods through. Its directories do not exist: reading pods writes no file.
 */
export function fakeRuntimeManager(runtime: FakeRuntimeService, clock: Clock, nodeName = 'node-1'): RuntimeManager {
  return new RuntimeManager({
    runtime,
    images: runtime,
    clock,
    events: new EventStream(() => clock.now()),
    nodeName,
    rootDir: '/nonexistent',
    podLogsDir: '/nonexistent',
    crashLoopBackOff: new Backoff(clock, 10_000, 300_000),
    imageBackOff: new Backoff(clock, 10_000, 300_000),
    hostIP: '10.0.0.1',
  });
}

/**
 * The real ContainerManager over the fake, with the kubelet's back-offs
 * (10 s doubling to 5 min) on `clock`; `rootDir` is where it writes
 * termination messages and back-off files.
 */
export function fakeContainerManager(runtime: FakeRuntimeService, clock: Clock, events: EventStream, rootDir: string): ContainerManager {
  return new ContainerManager({
    runtime,
    images: runtime,
    puller: new ImagePuller(runtime, new Backoff(clock, 10_000, 300_000), clock, events),
    hooks: new HookRunner(runtime, clock),
    crashLoopBackOff: new Backoff(clock, 10_000, 300_000),
    clock,
    events,
    nodeName: 'node-1',
    rootDir,
    objects: new ObjectManager(undefined, clock),
  });
}

/** A container in the fake: its status and the sandbox it runs in. */
export interface FakeContainer {
  status: ContainerStatus;
  sandboxId: string;
}

/** Whether LABELS hold every pair of SELECTOR. */
const selected = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
  Object.entries(selector ?? {}).every(([k, v]) => labels[k] === v);

const capitalized = (method: string) => method[0].toUpperCase() + method.slice(1);

/**
 * The fake runtime. Ids are sb-1, sb-2 … for sandboxes and c-1, c-2 … for
 * containers, in order of creation; timestamps come from `now` (ms), as
 * nanoseconds like the CRI's. A call for an id the fake does not hold fails
 * with NOT_FOUND, as a real runtime's does.
 */
export class FakeRuntimeService implements RuntimeService, ImageService {
  /** Each call's method name, in order (upstream's Called). */
  readonly called: FakeMethod[] = [];
  readonly sandboxes = new Map<string, PodSandboxStatus>();
  readonly containers = new Map<string, FakeContainer>();
  /** Images by the reference they were pulled or added by. */
  readonly images = new Map<string, Image>();

  // By method; each entry's types are those of its method (what calls, respond and beforeCall take).
  private readonly args = new Map<FakeMethod, unknown[][]>();
  private readonly errors = new Map<FakeMethod, Error[]>();
  private readonly scripts = new Map<FakeMethod, (...args: never[]) => unknown>();
  private readonly hooks = new Map<FakeMethod, (...args: never[]) => unknown>();
  private readonly events: ContainerEvent[] = [];
  private wake = () => {};
  private readonly lastId = { sandbox: 0, container: 0 };

  constructor(private readonly now: () => number = Date.now) {}

  /** The arguments of each call of METHOD so far, in order. */
  calls<M extends FakeMethod>(method: M): Args<M>[] {
    return (this.args.get(method) ?? []) as Args<M>[];
  }

  /** The next calls of METHOD fail, one with each of ERRORS in turn (upstream's InjectError). */
  injectError(method: FakeMethod, ...errors: Error[]): void {
    this.errors.set(method, [...(this.errors.get(method) ?? []), ...errors]);
  }

  /** Every later call of METHOD answers with SCRIPT (which may throw) instead of the fake's model; undefined goes back to the model. */
  respond<M extends FakeMethod>(method: M, script: Script<M> | undefined): void {
    if (script) this.scripts.set(method, script);
    else this.scripts.delete(method);
  }

  /** HOOK runs, and is awaited, as each later call of METHOD begins: to record, hold or fail the call. */
  beforeCall<M extends FakeMethod>(method: M, hook: Hook<M> | undefined): void {
    if (hook) this.hooks.set(method, hook);
    else this.hooks.delete(method);
  }

  /** Adds a sandbox as a runtime would hold it (upstream's SetFakeSandboxes). */
  addSandbox(overrides: Partial<PodSandboxStatus> & { id: string }): PodSandboxStatus {
    const sandbox = fakeSandboxStatus(overrides);
    this.sandboxes.set(sandbox.id, sandbox);
    return sandbox;
  }

  /** Adds a container in SANDBOXID (upstream's SetFakeContainers). */
  addContainer(sandboxId: string, overrides: Partial<ContainerStatus> & { id: string }): FakeContainer {
    const container = { status: fakeContainerStatus(overrides), sandboxId };
    this.containers.set(container.status.id, container);
    return container;
  }

  /** Adds an image, as pulled by REFERENCE. */
  addImage(reference: string): Image {
    const image: Image = {
      id: `sha256:${createHash('sha256').update(reference).digest('hex')}`,
      repoTags: [reference],
      repoDigests: [],
      size: 0,
      uid: null,
      username: '',
      spec: null,
      pinned: false,
    };
    this.images.set(reference, image);
    return image;
  }

  /** Sends EVENT to whoever reads getContainerEvents. */
  emitContainerEvent(event: ContainerEvent): void {
    this.events.push(event);
    this.wake();
  }

  /** Records the call, runs its hook, then fails it with an injected error or answers with its script or the model. */
  private async call<M extends FakeMethod>(method: M, args: Args<M>, model: () => Answer<M>): Promise<Answer<M>> {
    this.called.push(method);
    this.args.set(method, [...(this.args.get(method) ?? []), args]);
    const hook = this.hooks.get(method) as Hook<M> | undefined;
    if (hook) await hook(...args);
    const error = this.errors.get(method)?.shift();
    if (error) throw error;
    const script = this.scripts.get(method) as Script<M> | undefined;
    return script ? script(...args) : model();
  }

  private notFound(method: FakeMethod, what: string, id: string): CriError {
    return new CriError(capitalized(method), GrpcCode.NOT_FOUND, `${what} "${id}" not found`);
  }

  private sandbox(method: FakeMethod, id: string): PodSandboxStatus {
    const sandbox = this.sandboxes.get(id);
    if (!sandbox) throw this.notFound(method, 'pod sandbox', id);
    return sandbox;
  }

  private container(method: FakeMethod, id: string): FakeContainer {
    const container = this.containers.get(id);
    if (!container) throw this.notFound(method, 'container', id);
    return container;
  }

  private nowNs(): number {
    return this.now() * 1e6;
  }

  // ---- RuntimeService ----

  version(...args: Args<'version'>) {
    return this.call('version', args, () => ({
      version: '0.1.0',
      runtimeName: 'fakeRuntime',
      runtimeVersion: '0.1.0',
      runtimeApiVersion: 'v1',
    }));
  }

  status(...args: Args<'status'>) {
    const ready = (type: string) => ({ type, status: true, reason: '', message: '' });
    return this.call('status', args, () => ({
      status: { conditions: [ready('RuntimeReady'), ready('NetworkReady')] },
      info: {},
      runtimeHandlers: [],
    }));
  }

  runPodSandbox(...args: Args<'runPodSandbox'>) {
    const [config, runtimeHandler = ''] = args;
    return this.call('runPodSandbox', args, () => {
      const id = `sb-${++this.lastId.sandbox}`;
      const m = config.metadata ?? {};
      const options = config.linux?.securityContext?.namespaceOptions;
      const mode = (m: unknown, fallback: NamespaceMode) => (typeof m === 'string' ? (m as NamespaceMode) : fallback);
      this.addSandbox({
        id,
        metadata: { name: m.name ?? '', uid: m.uid ?? '', namespace: m.namespace ?? '', attempt: m.attempt ?? 0 },
        createdAt: this.nowNs(),
        network: { ip: '10.88.0.2', additionalIps: [] },
        linux: {
          namespaces: {
            options: {
              network: mode(options?.network, 'POD'),
              pid: mode(options?.pid, 'CONTAINER'),
              ipc: mode(options?.ipc, 'POD'),
              targetId: '',
            },
          },
        },
        labels: config.labels ?? {},
        annotations: config.annotations ?? {},
        runtimeHandler,
      });
      return id;
    });
  }

  stopPodSandbox(...args: Args<'stopPodSandbox'>) {
    return this.call('stopPodSandbox', args, () => {
      this.sandbox('stopPodSandbox', args[0]).state = 'SANDBOX_NOTREADY';
    });
  }

  removePodSandbox(...args: Args<'removePodSandbox'>) {
    const [id] = args;
    return this.call('removePodSandbox', args, () => {
      this.sandboxes.delete(id);
      for (const [cid, c] of this.containers) if (c.sandboxId === id) this.containers.delete(cid);
    });
  }

  podSandboxStatus(...args: Args<'podSandboxStatus'>) {
    return this.call('podSandboxStatus', args, () => ({
      status: structuredClone(this.sandbox('podSandboxStatus', args[0])),
      info: {},
      containersStatuses: [],
      timestamp: this.nowNs(),
    }));
  }

  listPodSandbox(...args: Args<'listPodSandbox'>) {
    const filter: PodSandboxFilter = args[0] ?? {};
    return this.call('listPodSandbox', args, () =>
      [...this.sandboxes.values()]
        .filter((s) => (!filter.id || filter.id === s.id) && (!filter.state || filter.state.state === s.state))
        .filter((s) => selected(filter.labelSelector, s.labels))
        .map((s): PodSandbox => ({
          id: s.id,
          metadata: s.metadata,
          state: s.state,
          createdAt: s.createdAt,
          labels: s.labels,
          annotations: s.annotations,
          runtimeHandler: s.runtimeHandler,
        })),
    );
  }

  createContainer(...args: Args<'createContainer'>) {
    const [sandboxId, config] = args;
    return this.call('createContainer', args, () => {
      const id = `c-${++this.lastId.container}`;
      const image = config.image?.image ?? '';
      this.addContainer(sandboxId, {
        id,
        metadata: { name: config.metadata?.name ?? '', attempt: config.metadata?.attempt ?? 0 },
        image: { image, annotations: {}, userSpecifiedImage: image, runtimeHandler: '', imageRef: '' },
        imageRef: image,
        createdAt: this.nowNs(),
        labels: config.labels ?? {},
        annotations: config.annotations ?? {},
        logPath: config.logPath ?? '',
      });
      return id;
    });
  }

  startContainer(...args: Args<'startContainer'>) {
    return this.call('startContainer', args, () => {
      const { status } = this.container('startContainer', args[0]);
      status.state = 'CONTAINER_RUNNING';
      status.startedAt = this.nowNs();
    });
  }

  stopContainer(...args: Args<'stopContainer'>) {
    return this.call('stopContainer', args, () => {
      const { status } = this.container('stopContainer', args[0]);
      status.state = 'CONTAINER_EXITED';
      status.finishedAt = this.nowNs();
    });
  }

  removeContainer(...args: Args<'removeContainer'>) {
    return this.call('removeContainer', args, () => {
      this.containers.delete(args[0]);
    });
  }

  listContainers(...args: Args<'listContainers'>) {
    const filter: ContainerFilter = args[0] ?? {};
    return this.call('listContainers', args, () =>
      [...this.containers.values()]
        .filter(
          ({ status: s, sandboxId }) => (!filter.id || filter.id === s.id) && (!filter.podSandboxId || filter.podSandboxId === sandboxId),
        )
        .filter(({ status: s }) => (!filter.state || filter.state.state === s.state) && selected(filter.labelSelector, s.labels))
        .map(({ status: s, sandboxId }): Container => ({
          id: s.id,
          podSandboxId: sandboxId,
          metadata: s.metadata,
          image: s.image,
          imageRef: s.imageRef,
          imageId: s.imageId,
          state: s.state,
          createdAt: s.createdAt,
          labels: s.labels,
          annotations: s.annotations,
        })),
    );
  }

  containerStatus(...args: Args<'containerStatus'>) {
    return this.call('containerStatus', args, () => ({
      status: structuredClone(this.container('containerStatus', args[0]).status),
      info: {},
    }));
  }

  reopenContainerLog(...args: Args<'reopenContainerLog'>) {
    return this.call('reopenContainerLog', args, () => void this.container('reopenContainerLog', args[0]));
  }

  execSync(...args: Args<'execSync'>) {
    return this.call('execSync', args, () => {
      this.container('execSync', args[0]);
      return { exitCode: 0, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) };
    });
  }

  exec(...args: Args<'exec'>) {
    return this.call('exec', args, () => `http://fake-runtime.invalid/exec/${this.container('exec', args[0].containerId).status.id}`);
  }

  attach(...args: Args<'attach'>) {
    return this.call('attach', args, () => `http://fake-runtime.invalid/attach/${this.container('attach', args[0].containerId).status.id}`);
  }

  portForward(...args: Args<'portForward'>) {
    return this.call('portForward', args, () => `http://fake-runtime.invalid/portforward/${this.sandbox('portForward', args[0]).id}`);
  }

  containerStats(...args: Args<'containerStats'>) {
    return this.call('containerStats', args, () => null);
  }

  listContainerStats(...args: Args<'listContainerStats'>) {
    return this.call('listContainerStats', args, () => []);
  }

  listPodSandboxStats(...args: Args<'listPodSandboxStats'>) {
    return this.call('listPodSandboxStats', args, () => []);
  }

  /** The events emitContainerEvent sends, until SIGNAL aborts. */
  async *getContainerEvents(signal: AbortSignal): AsyncIterable<ContainerEvent> {
    const aborted = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    while (!signal.aborted) {
      while (this.events.length > 0 && !signal.aborted) yield this.events.shift()!;
      await Promise.race([aborted, new Promise<void>((resolve) => (this.wake = resolve))]);
    }
  }

  // ---- ImageService ----

  listImages(...args: Args<'listImages'>) {
    const wanted = args[0]?.image?.image;
    return this.call('listImages', args, () => [...this.images].filter(([ref]) => !wanted || ref === wanted).map(([, image]) => image));
  }

  imageStatus(...args: Args<'imageStatus'>) {
    const ref = args[0].image ?? '';
    return this.call('imageStatus', args, () => this.images.get(ref) ?? [...this.images.values()].find((i) => i.id === ref) ?? null);
  }

  pullImage(...args: Args<'pullImage'>) {
    const ref = args[0].image ?? '';
    return this.call('pullImage', args, () => (this.images.get(ref) ?? this.addImage(ref)).id);
  }

  removeImage(...args: Args<'removeImage'>) {
    const spec: ImageSpec = args[0];
    return this.call('removeImage', args, () => {
      for (const [ref, image] of this.images) if (ref === spec.image || image.id === spec.image) this.images.delete(ref);
    });
  }

  imageFsInfo(...args: Args<'imageFsInfo'>) {
    return this.call('imageFsInfo', args, () => ({ imageFilesystems: [], containerFilesystems: [] }));
  }
}
