import * as grpc from '@grpc/grpc-js';
import { chmodSync, existsSync, rmSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { loadCri, loadKnode } from '../cri/grpc-services.js';
import type { ImagesHandlers } from '../cri/gen/knode/v1/Images.js';
import type { ImageServiceHandlers } from '../cri/gen/runtime/v1/ImageService.js';
import type { RuntimeServiceHandlers } from '../cri/gen/runtime/v1/RuntimeService.js';
import { toContainer, toContainerStatus, toImage, toPodSandbox, toPodSandboxStatus } from './convert.js';
import { listenEager } from './eager-socket.js';
import { EncodedListCache } from './encoded-lists.js';
import { invalid, precondition, RuntimeError } from './errors.js';
import { OciImageStore } from './oci/image-store.js';
import { parseReference } from './reference.js';
import type { EmbeddedRuntime } from './runtime.js';

type Log = (message: string) => void;

/**
 * Wraps one CRI call: the answer or a gRPC status. A RuntimeError keeps its
 * code; anything else is a bug, answered INTERNAL and logged, never a crash.
 */
function unary<Req, Res>(
  method: string,
  log: Log,
  fn: (req: Req, cancelled: () => boolean) => Res | Promise<Res>,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    let result: Res | Promise<Res>;
    try {
      result = fn(call.request, () => call.cancelled);
    } catch (err) {
      callback(toStatus(method, err, log));
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (res) => callback(null, res),
        (err) => callback(toStatus(method, err, log)),
      );
    } else {
      callback(null, result);
    }
  };
}

function toStatus(method: string, err: unknown, log: Log): Partial<grpc.StatusObject> {
  if (err instanceof RuntimeError) return { code: err.code, details: err.message };
  log(`${method}: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return { code: grpc.status.INTERNAL, details: `${method}: ${err instanceof Error ? err.message : String(err)}` };
}

/** Open GetContainerEvents calls, so a shutdown can end them (they never end on their own). */
export type EventStreams = Set<{ end(): void }>;

export function runtimeHandlers(rt: EmbeddedRuntime, log: Log, streams: EventStreams = new Set()): RuntimeServiceHandlers {
  const encoded = { containers: new EncodedListCache('Container'), sandboxes: new EncodedListCache('PodSandbox') };
  return {
    Version: unary('Version', log, () => rt.version()),
    Status: unary('Status', log, (req) => rt.status(req.verbose)),
    RunPodSandbox: unary('RunPodSandbox', log, async (req) => ({ podSandboxId: await rt.sandboxes.run(req.config, req.runtimeHandler) })),
    StopPodSandbox: unary('StopPodSandbox', log, async (req) => {
      await rt.sandboxes.stop(req.podSandboxId);
      return {};
    }),
    RemovePodSandbox: unary('RemovePodSandbox', log, async (req) => {
      await rt.sandboxes.remove(req.podSandboxId);
      return {};
    }),
    PodSandboxStatus: unary('PodSandboxStatus', log, (req) => {
      const sandbox = rt.sandboxes.get(req.podSandboxId);
      return {
        status: toPodSandboxStatus(sandbox),
        info: verboseInfo(req.verbose, sandbox),
        containersStatuses: [],
        timestamp: Date.now() * 1e6,
      };
    }),
    // Pre-encoded answers (see EncodedListCache); the service definition passes the bytes through.
    ListPodSandbox: unary(
      'ListPodSandbox',
      log,
      (req) => encoded.sandboxes.encode(rt.sandboxes.list(req.filter), (id) => rt.state.revision(id), toPodSandbox) as never,
    ),
    CreateContainer: unary('CreateContainer', log, (req) => ({ containerId: rt.containers.create(req.podSandboxId, req.config) })),
    // A start the client gave up on (a kill cancelled the pod's sync) while it waited for its turn is not made.
    StartContainer: unary('StartContainer', log, async (req, cancelled) => {
      await rt.containers.start(req.containerId, cancelled);
      return {};
    }),
    StopContainer: unary('StopContainer', log, async (req) => {
      await rt.containers.stop(req.containerId, req.timeout);
      return {};
    }),
    RemoveContainer: unary('RemoveContainer', log, async (req) => {
      await rt.containers.remove(req.containerId);
      return {};
    }),
    ListContainers: unary(
      'ListContainers',
      log,
      (req) => encoded.containers.encode(rt.containers.list(req.filter), (id) => rt.state.revision(id), toContainer) as never,
    ),
    ContainerStatus: unary('ContainerStatus', log, (req) => {
      const c = rt.containers.get(req.containerId);
      return { status: toContainerStatus(c), info: verboseInfo(req.verbose, { ...c, pid: rt.containers.pidOf(c.id) }) };
    }),
    ReopenContainerLog: unary('ReopenContainerLog', log, async (req) => {
      await rt.containers.reopenLog(req.containerId);
      return {};
    }),
    ExecSync: unary('ExecSync', log, (req) => rt.containers.exec(req.containerId, req.cmd, req.timeout)),
    Exec: unary('Exec', log, (req) => ({ url: rt.streams.execUrl(req.containerId, req.cmd, req) })),
    Attach: unary('Attach', log, (req) => ({ url: rt.streams.attachUrl(req.containerId, req) })),
    PortForward: unary('PortForward', log, (req) => ({ url: rt.streams.portForwardUrl(req.podSandboxId) })),
    ContainerStats: unary('ContainerStats', log, (req) => {
      const c = rt.containers.get(req.containerId);
      return { stats: rt.containerStats({ id: c.id, podSandboxId: '', labelSelector: {} })[0] ?? null };
    }),
    ListContainerStats: unary('ListContainerStats', log, (req) => ({ stats: rt.containerStats(req.filter) })),
    PodSandboxStats: unary('PodSandboxStats', log, (req) => {
      const sandbox = rt.sandboxes.get(req.podSandboxId);
      return { stats: rt.podSandboxStats({ id: sandbox.id, labelSelector: {} })[0] ?? null };
    }),
    ListPodSandboxStats: unary('ListPodSandboxStats', log, (req) => ({ stats: rt.podSandboxStats(req.filter) })),
    UpdateContainerResources: unary('UpdateContainerResources', log, (req) => {
      rt.containers.updateResources(req.containerId, req.linux);
      return {};
    }),
    RuntimeConfig: unary('RuntimeConfig', log, () => ({ linux: { cgroupDriver: 'CGROUPFS' } })),
    GetContainerEvents: (call) => {
      const unsubscribe = rt.events.subscribe(eagerWriter(call));
      const done = () => {
        unsubscribe();
        streams.delete(open);
      };
      // Ended by a shutdown: nothing more is written to it (the containers' stops come after).
      const open = {
        end: () => {
          done();
          call.end();
        },
      };
      streams.add(open);
      call.on('cancelled', done);
      call.on('close', done);
      call.on('error', done);
    },
  };
}

/**
 * Writes a server stream's messages without waiting for each to be sent.
 * grpc-js's ServerWritableStream is an object-mode Writable that hands the
 * HTTP/2 stream one message, and the next only once that one has left: one
 * message per turn of the event loop, which a burst of pods makes long: its
 * events queued up behind one another (bench/notes/density.md). The call under it writes
 * straight to the HTTP/2 stream, in order, and what is queued goes out
 * together. Where a grpc-js release hides that call, messages go through the
 * Writable as before.
 */
function eagerWriter<T>(stream: grpc.ServerWritableStream<unknown, T>): (message: T) => void {
  const call = (stream as unknown as { call?: { sendMessage?: (message: T, sent: () => void) => void } }).call;
  const send = call?.sendMessage;
  if (typeof send !== 'function') return (message) => void stream.write(message);
  return (message) => send.call(call, message, () => {});
}

export function imageHandlers(rt: EmbeddedRuntime, log: Log): ImageServiceHandlers {
  return {
    ListImages: unary('ListImages', log, (req) => {
      const wanted = req.filter?.image?.image;
      const images = wanted ? [rt.images.find(wanted)].filter((i) => i !== undefined) : rt.images.list();
      return { images: images.map(toImage) };
    }),
    ImageStatus: unary('ImageStatus', log, (req) => {
      const name = req.image?.image ?? '';
      if (name === '') return { image: null, info: {} };
      const image = rt.images.find(name);
      // Verbose answers carry the image config as containerd's do (info.imageSpec), for real images.
      const info: Record<string, string> =
        image && req.verbose && rt.images instanceof OciImageStore
          ? { info: JSON.stringify({ id: image.id, imageSpec: rt.images.config(image) }) }
          : {};
      return { image: image ? toImage(image) : null, info };
    }),
    PullImage: unary('PullImage', log, async (req) => {
      const image = await rt.images.pull(req.image?.image ?? '', req.auth);
      return { imageRef: image.id };
    }),
    RemoveImage: unary('RemoveImage', log, (req) => {
      const name = req.image?.image ?? '';
      parseOrId(name);
      rt.images.remove(name);
      rt.containers.pruneImageRoots();
      return {};
    }),
    ImageFsInfo: unary('ImageFsInfo', log, () => ({ imageFilesystems: [rt.imageFsUsage()], containerFilesystems: [] })),
  };
}

/** knode.v1.Images: what CRI has no verb for (proto/knode/v1/images.proto). */
export function knodeImageHandlers(rt: EmbeddedRuntime, log: Log): ImagesHandlers {
  return {
    ImportImages: unary('ImportImages', log, async (req) => {
      if (!(rt.images instanceof OciImageStore)) {
        throw precondition(
          `images are records on this runtime: create ${rt.options.registryConfig ?? '<root-dir>/registries.yaml'} (it may be empty) and restart the runtime to import real images`,
        );
      }
      if (!isAbsolute(req.path)) throw invalid(`archive path "${req.path}" must be absolute`);
      return { images: (await rt.images.import(req.path, req.baseName || undefined)).map(toImage) };
    }),
  };
}

/** Verbose status answers carry the runtime's own view as JSON under "info", as containerd's do. */
function verboseInfo(verbose: boolean, value: unknown): Record<string, string> {
  return verbose ? { info: JSON.stringify(value) } : {};
}

function parseOrId(name: string): void {
  if (!/^(?:sha256:)?[a-f0-9]{64}$/.test(name)) parseReference(name);
}

/** The runtime service, with list answers that may already be encoded bytes. */
function passEncodedLists(service: grpc.ServiceDefinition): grpc.ServiceDefinition {
  const out: Record<string, grpc.MethodDefinition<unknown, unknown>> = { ...service };
  for (const method of ['ListContainers', 'ListPodSandbox']) {
    const def = service[method];
    out[method] = { ...def, responseSerialize: (value: unknown) => (Buffer.isBuffer(value) ? value : def.responseSerialize(value)) };
  }
  return out;
}

export interface RunningServer {
  server: grpc.Server;
  socketPath: string;
  close(): Promise<void>;
}

/** Serves the runtime on a unix socket; a stale socket file left by a dead runtime is replaced. */
export async function serveRuntime(rt: EmbeddedRuntime, socketPath: string, log: Log): Promise<RunningServer> {
  const cri = loadCri();
  const server = new grpc.Server({
    'grpc.max_receive_message_length': 16 * 1024 * 1024,
    'grpc.max_send_message_length': 16 * 1024 * 1024,
    // channelz bookkeeping costs a noticeable share of each call and nothing reads it.
    'grpc.enable_channelz': 0,
  });
  const streams: EventStreams = new Set();
  server.addService(passEncodedLists(cri.RuntimeService.service), runtimeHandlers(rt, log, streams));
  server.addService(cri.ImageService.service, imageHandlers(rt, log));
  server.addService(loadKnode().Images.service, knodeImageHandlers(rt, log));
  if (existsSync(socketPath)) rmSync(socketPath);
  // Each connection as an EagerSocket, so that the session never stops reading (see eager-socket.ts).
  const injector = server.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  const listener = await listenEager(socketPath, (connection) => injector.injectConnection(connection));
  // Whoever can connect can run any command as this user: the owner only.
  chmodSync(socketPath, 0o600);
  // Exec, Attach and PortForward answer with URLs here: loopback, and each URL a one-time secret.
  await rt.streams.server.listen();
  return {
    server,
    socketPath,
    close: () =>
      new Promise<void>((resolve) => {
        // Event streams never finish on their own: end them, so the clients see the end and the server can close.
        for (const call of streams) call.end();
        streams.clear();
        void rt.streams.server.close();
        listener.close();
        server.tryShutdown(() => resolve());
        setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 1000).unref();
      }),
  };
}
