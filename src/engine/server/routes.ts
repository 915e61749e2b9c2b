import type { IncomingMessage, ServerResponse } from 'node:http';
import { podRef } from '../api/pod-util.js';
import { rfc3339, type Pod, type PodList } from '../api/v1.js';
import type { LifecycleEvent } from '../events.js';
import { limitedOutput, logsSince, readContainerLog } from '../logs.js';
import { toKubeletConfigurationDocument } from '../config/config-file.js';
import { resourceMetrics } from '../stats/resource-metrics.js';
import { serveDebug } from './debug.js';
import { EVENTS_PATH, serveEvents } from './event-routes.js';
import type { HostInterface } from './host.js';
import { logInstance } from './log-container.js';
import { isNear } from '../../util/near-names.js';
import { serveNodeLog } from './node-logs.js';

/** What a listener lets its callers reach beyond the read-only endpoints. */
export interface RouteAccess {
  /** /debug/profile and /debug/heap: only where enableProfilingHandler is on and the listener is local or authenticated. */
  profiling: boolean;
}

type Handler = (
  k: HostInterface,
  url: URL,
  req: IncomingMessage,
  res: ServerResponse,
  streams: Set<ServerResponse>,
  access: RouteAccess,
) => Promise<void> | void;

/** Routes of the read-only API, by path (prefix match where the path carries names). */
const ROUTES: [RegExp, Handler][] = [
  [/^\/healthz$/, healthz],
  [/^\/pods\/?$/, pods],
  [/^\/runningpods\/?$/, runningPods],
  [/^\/metrics$/, metrics],
  [/^\/node$/, node],
  [/^\/events$/, (k, url, req, res, streams) => stream(k, url, req, res, streams, () => true)],
  [EVENTS_PATH, (k, url, req, res, streams) => serveEvents(k, url, req, res, streams)],
  [/^\/pleg$/, (k, url, req, res, streams) => stream(k, url, req, res, streams, (e) => e.type === 'PLEGEvent' || e.type === 'PLEGRelist')],
  [/^\/traces\/?$/, (k, _url, _req, res) => json(res, 200, { pods: k.traces.pods() })],
  [/^\/traces\/[^/]+\/[^/]+$/, traces],
  [/^\/containerLogs\/[^/]+\/[^/]+\/[^/]+$/, containerLogs],
  [/^\/stats\/summary\/?$/, summary],
  [
    /^\/metrics\/resource$/,
    async (k, _url, _req, res) => text(res, 200, resourceMetrics(await k.stats.get(true)), 'text/plain; version=0.0.4; charset=utf-8'),
  ],
  [/^\/images\/?$/, images],
  [/^\/configz$/, (k, _url, _req, res) => json(res, 200, { kubeletconfig: toKubeletConfigurationDocument(k.config) })],
  [/^\/logs(\/.*)?$/, nodeLogs],
  [/^\/debug(\/.*)?$/, debug],
];

export async function route(
  kubelet: HostInterface,
  req: IncomingMessage,
  res: ServerResponse,
  streams: Set<ServerResponse>,
  access: RouteAccess,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://knode');
  if (req.method !== 'GET') return json(res, 405, { message: `${req.method} is not allowed: the API is read-only` });
  for (const [pattern, handler] of ROUTES) if (pattern.test(url.pathname)) return handler(kubelet, url, req, res, streams, access);
  json(res, 404, { message: `no such endpoint: ${url.pathname}` });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(`${JSON.stringify(body, null, 2)}\n`);
}

function text(res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}

/** knode's own: what the image garbage collector knows of each image (times RFC 3339; lastUsed null: never seen in use). */
async function images(k: HostInterface, _url: URL, _req: IncomingMessage, res: ServerResponse): Promise<void> {
  const out = [...(await k.imageManager.recordsNow())].map(([id, r]) => ({
    id,
    firstDetected: rfc3339(r.firstDetected),
    lastUsed: r.lastUsed ? rfc3339(r.lastUsed) : null,
    pinned: r.pinned,
  }));
  json(res, 200, { images: out });
}

/** The Summary API (stats.k8s.io/v1alpha1); `only_cpu_and_memory=true` leaves out filesystems, as the kubelet does. */
async function summary(k: HostInterface, url: URL, _req: IncomingMessage, res: ServerResponse): Promise<void> {
  json(res, 200, await k.stats.get(url.searchParams.get('only_cpu_and_memory') === 'true'));
}

function nodeLogs(k: HostInterface, url: URL, _req: IncomingMessage, res: ServerResponse): void {
  if (!k.config.enableSystemLogHandler) return text(res, 404, 'the node log handler is off (enableSystemLogHandler: false)\n');
  if (url.pathname === '/logs') {
    res.writeHead(301, { location: '/logs/' });
    res.end();
    return;
  }
  serveNodeLog(k.config.nodeLogDir, url.pathname, res);
}

async function debug(
  k: HostInterface,
  url: URL,
  _req: IncomingMessage,
  res: ServerResponse,
  _streams: Set<ServerResponse>,
  access: RouteAccess,
): Promise<void> {
  if (!k.config.enableProfilingHandler)
    return text(res, 404, 'profiling is off: start knode run with --enable-profiling-handler (enableProfilingHandler: true)\n');
  if (!access.profiling)
    return text(res, 403, 'profiling is served on the unix socket, a loopback read-only port and the authenticated kubelet API only\n');
  await serveDebug(url.pathname, url, k.config.nodeName, res);
}

function healthz(k: HostInterface, _url: URL, _req: IncomingMessage, res: ServerResponse): void {
  const health = k.healthz();
  res.writeHead(health.ok ? 200 : 500, { 'content-type': 'text/plain' });
  res.end(health.ok ? 'ok' : `${health.reasons.join('\n')}\n`);
}

function podList(items: Pod[]): PodList {
  return { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '' }, items };
}

function pods(k: HostInterface, _url: URL, _req: IncomingMessage, res: ServerResponse): void {
  json(res, 200, podList(k.podsWithStatus()));
}

/** The pods the runtime runs for this node, as the kubelet's /runningpods shows them: identity and containers only. */
async function runningPods(k: HostInterface, _url: URL, _req: IncomingMessage, res: ServerResponse): Promise<void> {
  const running = (await k.getRunningPods()).filter((p) => p.containers.some((c) => c.state === 'running'));
  json(
    res,
    200,
    podList(
      running.map((p) => ({
        metadata: { name: p.name, namespace: p.namespace, uid: p.uid },
        spec: { containers: p.containers.filter((c) => c.state === 'running').map((c) => ({ name: c.name })) },
      })),
    ),
  );
}

async function metrics(k: HostInterface, _url: URL, _req: IncomingMessage, res: ServerResponse): Promise<void> {
  const text = await k.metrics.registry.metrics();
  res.writeHead(200, { 'content-type': k.metrics.registry.contentType });
  res.end(text);
}

function node(k: HostInterface, _url: URL, _req: IncomingMessage, res: ServerResponse): void {
  const state = k.nodeState();
  json(res, 200, {
    nodeName: k.config.nodeName,
    runtime: { ...state.runtime, endpoint: k.config.containerRuntimeEndpoint },
    pleg: state.pleg,
    sources: state.sources,
    sourcesReady: state.sourcesReady,
    health: k.healthz(),
    workers: state.workers,
    housekeeping: state.housekeeping,
  });
}

/** Lifecycle events as they happen, NDJSON (or SSE when asked for), optionally for one pod. */
function stream(
  k: HostInterface,
  url: URL,
  req: IncomingMessage,
  res: ServerResponse,
  streams: Set<ServerResponse>,
  keep: (e: LifecycleEvent) => boolean,
): void {
  const sse = url.searchParams.get('format') === 'sse' || (req.headers.accept ?? '').includes('text/event-stream');
  const pod = url.searchParams.get('pod');
  res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/x-ndjson', 'cache-control': 'no-cache' });
  res.flushHeaders();
  const unsubscribe = k.events.subscribe((e) => {
    if (!keep(e) || (pod && e.pod !== pod)) return;
    const line = JSON.stringify({ ...e, time: new Date(e.at).toISOString() });
    res.write(sse ? `event: ${e.type}\ndata: ${line}\n\n` : `${line}\n`);
  });
  streams.add(res);
  res.on('close', () => {
    unsubscribe();
    streams.delete(res);
  });
}

/** The pod a path names (`namespace/name`), or a 404 naming the pods it might have meant. */
function findPod(k: HostInterface, namespace: string, name: string, res: ServerResponse): Pod | undefined {
  const pods = k.getPods();
  const found = pods.find((p) => p.metadata.namespace === namespace && p.metadata.name === name);
  if (found) return found;
  const near = pods.filter((p) => p.metadata.name && isNear(name, p.metadata.name)).map(podRef);
  json(res, 404, { message: `pod ${namespace}/${name} not found on node ${k.config.nodeName}`, suggestions: near });
  return undefined;
}

function traces(k: HostInterface, url: URL, _req: IncomingMessage, res: ServerResponse): void {
  const [, , namespace, name] = url.pathname.split('/').map(decodeURIComponent);
  const found = k.traces.forPod(`${namespace}/${name}`);
  if (found.length > 0) return json(res, 200, { traces: found });
  if (findPod(k, namespace, name, res))
    json(res, 404, {
      message: `no start-up of ${namespace}/${name} was traced by this node (it may have started before knode did)`,
      suggestions: [],
    });
}

async function containerLogs(k: HostInterface, url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const [, , namespace, name, container] = url.pathname.split('/').map(decodeURIComponent);
  const pod = findPod(k, namespace, name, res);
  if (!pod) return;
  const uid = pod.metadata.uid!;
  const names = [...(pod.spec.initContainers ?? []), ...pod.spec.containers].map((c) => c.name);
  if (!names.includes(container))
    return json(res, 404, { message: `container ${container} is not in pod ${namespace}/${name}`, suggestions: names });
  const previous = url.searchParams.get('previous') === 'true';
  // The kubelet picks from the pod's status (its containers' states and last terminations).
  const picked = logInstance(k.podWithStatus(pod), container, previous);
  if ('error' in picked) return json(res, 400, { message: picked.error });
  // `containerd://ID`: the runtime's own id after the scheme.
  const id = picked.containerID.replace(/^[^:]*:\/\//, '');
  const instance = k.getRuntimePodStatus(uid).containers.find((c) => c.id === id);
  // Removed since (the dead instances beyond the newest are): the kubelet's words when the runtime no longer has it.
  if (!instance) return json(res, 400, { message: `unable to retrieve container logs for ${picked.containerID}` });
  if (!instance.logPath) return json(res, 404, { message: `container ${container} has no log file` });
  const abort = new AbortController();
  req.on('close', () => abort.abort());
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
  const tail = url.searchParams.get('tailLines');
  const limit = url.searchParams.get('limitBytes');
  const lines = readContainerLog(instance.logPath, {
    tailLines: tail === null ? undefined : Number(tail),
    sinceTime: logsSince(sinceParams(url.searchParams), Date.now()),
    timestamps: url.searchParams.get('timestamps') === 'true',
    follow: url.searchParams.get('follow') === 'true' && !previous,
    signal: abort.signal,
    stillRunning: () => k.getRuntimePodStatus(uid).containers.find((c) => c.id === instance.id)?.state === 'running',
  });
  try {
    for await (const chunk of limitedOutput(lines, limit === null ? undefined : Number(limit))) res.write(chunk);
  } catch (err) {
    res.write(`\nknode: reading the log failed: ${(err as Error).message}\n`);
  }
  res.end();
}

/** PodLogOptions' sinceSeconds and sinceTime as the query gives them. */
function sinceParams(params: URLSearchParams): { sinceSeconds?: number; sinceTime?: string } {
  const seconds = params.get('sinceSeconds');
  return { sinceSeconds: seconds === null ? undefined : Number(seconds), sinceTime: params.get('sinceTime') ?? undefined };
}
