// What `knode logs` prints, from one container or several, as kubectl logs
// prints it: the options it checks and defaults, each container's log
// through the running node (the kubelet's containerLogs) or straight from
// the runtime, and several logs one after the other, or side by side when
// followed, each line prefixed with its source when asked.
import type { CriClient } from '../cri/client.js';
import { KubeletLabels, type Container } from '../cri/types.js';
import type { Pod } from '../engine/api/v1.js';
import { parseGoDuration } from '../engine/config/duration.js';
import { limitedOutput, logsSince, readContainerLog } from '../engine/logs.js';
import { KubectlError, UserError } from '../util/user-error.js';
import type { NodeClient } from './node-client.js';
import { containerOfPod, containerOfRuntime, podNotFound, runtimeContainerNames } from './pod-target.js';

/** kubectl's PodLogOptions, as the command's flags give them. */
export interface LogRequest {
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tailLines?: number;
  sinceSeconds?: number;
  /** RFC 3339. */
  sinceTime?: string;
  limitBytes?: number;
}

export interface LogFlags {
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  tail?: number;
  since?: string;
  'since-time'?: string;
  'limit-bytes'?: number;
}

/** The options kubectl sends for FLAGS, with its checks; a selector's default tail is 10 lines, as kubectl's. */
export function logRequest(flags: LogFlags, selector: boolean): LogRequest {
  const request: LogRequest = { follow: flags.follow, previous: flags.previous, timestamps: flags.timestamps };
  if (flags.since !== undefined && flags['since-time'] !== undefined)
    throw new KubectlError('error: at most one of `sinceTime` or `sinceSeconds` may be specified');
  if (flags['limit-bytes'] !== undefined) {
    if (flags['limit-bytes'] <= 0) throw new KubectlError('error: --limit-bytes must be greater than 0');
    request.limitBytes = flags['limit-bytes'];
  }
  if (flags.since !== undefined) {
    let ms: number;
    try {
      ms = parseGoDuration(flags.since);
    } catch (err) {
      throw new UserError('usage', `invalid argument "${flags.since}" for "--since" flag: ${(err as Error).message}`);
    }
    // kubectl rounds to the nearest second.
    const seconds = Math.round(ms / 1000);
    if (seconds <= 0) throw new KubectlError('error: --since must be greater than 0');
    request.sinceSeconds = seconds;
  }
  if (flags['since-time'] !== undefined) {
    if (Number.isNaN(Date.parse(flags['since-time'])) || !/^\d{4}-\d\d-\d\dT/.test(flags['since-time']))
      throw new KubectlError(`error: parsing time "${flags['since-time']}": want RFC 3339, as 2026-12-07T10:00:00Z`);
    request.sinceTime = flags['since-time'];
  }
  if (flags.tail !== undefined && flags.tail < -1) throw new KubectlError('error: --tail must be greater than or equal to -1');
  if (flags.tail !== undefined && flags.tail >= 0) request.tailLines = flags.tail;
  else if (flags.tail === undefined && selector) request.tailLines = 10;
  return request;
}

/** One container's log to print: kubectl's prefix for it, and its output. */
export interface LogSource {
  prefix: string;
  open(signal: AbortSignal): AsyncIterable<Buffer>;
}

const prefixOf = (pod: string, container: string) => `[pod/${pod}/${container}] `;

/** The container names of POD's log: all of them (init containers first), or the one kubectl picks. */
function podContainers(pod: Pod, all: boolean, wanted: string | undefined, warn: (m: string) => void): string[] {
  if (all) return [...(pod.spec.initContainers ?? []), ...pod.spec.containers].map((c) => c.name);
  return [containerOfPod(pod, wanted, warn)];
}

/** The logs of PODS' containers through the running node. */
export function nodeLogSources(
  node: NodeClient,
  pods: Pod[],
  choice: { all: boolean; container?: string },
  request: LogRequest,
  warn: (m: string) => void,
): LogSource[] {
  const query = new URLSearchParams({
    follow: String(request.follow),
    previous: String(request.previous),
    timestamps: String(request.timestamps),
  });
  for (const key of ['tailLines', 'sinceSeconds', 'sinceTime', 'limitBytes'] as const)
    if (request[key] !== undefined) query.set(key, String(request[key]));
  return pods.flatMap((pod) =>
    podContainers(pod, choice.all, choice.container, warn).map((container) => ({
      prefix: prefixOf(pod.metadata.name!, container),
      async *open(signal: AbortSignal) {
        const res = await node.open(`/containerLogs/${pod.metadata.namespace}/${pod.metadata.name}/${container}?${query}`, signal);
        if (res.statusCode !== 200) {
          let text = '';
          for await (const chunk of res) text += chunk;
          throw new UserError('workloadFailed', (JSON.parse(text) as { message: string }).message);
        }
        yield* res as AsyncIterable<Buffer>;
      },
    })),
  );
}

/** Without a node: the logs of pod NAME's containers as the runtime keeps them (its record says where each log is). */
export async function runtimeLogSources(
  client: CriClient,
  namespace: string,
  name: string,
  choice: { all: boolean; container?: string },
  request: LogRequest,
  warn: (m: string) => void,
): Promise<LogSource[]> {
  const labelSelector = { [KubeletLabels.podName]: name, [KubeletLabels.podNamespace]: namespace };
  const [containers, sandboxes] = await Promise.all([client.listContainers({ labelSelector }), client.listPodSandbox({ labelSelector })]);
  containers.sort((a, b) => b.createdAt - a.createdAt);
  if (containers.length === 0) throw podNotFound(name, []);
  // The newest sandbox's annotations are the pod's as the runtime keeps them (the default-container one among them).
  const annotations = sandboxes.sort((a, b) => b.createdAt - a.createdAt)[0]?.annotations ?? {};
  const nameOf = (c: Container) => c.labels[KubeletLabels.containerName];
  const names = runtimeContainerNames(containers);
  const wanted = choice.all
    ? [...names.init, ...names.regular]
    : [containerOfRuntime(containers, annotations, choice.container, name, warn)];
  const sinceTime = logsSince(request, Date.now());
  return wanted.map((container) => {
    const instance = containers.filter((c) => nameOf(c) === container)[request.previous ? 1 : 0];
    if (!instance)
      throw new UserError(
        'workloadFailed',
        `${request.previous ? 'previous terminated ' : ''}container "${container}" in pod "${name}" not found`,
      );
    return {
      prefix: prefixOf(name, container),
      async *open(signal: AbortSignal) {
        const status = (await client.containerStatus(instance.id)).status!;
        const lines = readContainerLog(status.logPath, {
          tailLines: request.tailLines,
          timestamps: request.timestamps,
          sinceTime,
          follow: request.follow && !request.previous,
          signal,
          stillRunning: async () =>
            (await client.containerStatus(instance.id).catch(() => undefined))?.status?.state === 'CONTAINER_RUNNING',
        });
        yield* limitedOutput(lines, request.limitBytes);
      },
    };
  });
}

/**
 * Prints SOURCES as kubectl does: one after the other, or, when followed and
 * several, side by side, line by line (at most MAX_REQUESTS of them, else
 * kubectl's error); each line after its source's prefix when PREFIX.
 */
export async function printLogs(
  sources: LogSource[],
  options: { follow: boolean; prefix: boolean; maxRequests: number },
  signal: AbortSignal,
  write: (chunk: Buffer) => void,
): Promise<void> {
  const parallel = options.follow && sources.length > 1;
  if (parallel && sources.length > options.maxRequests)
    throw new KubectlError(
      `error: you are attempting to follow ${sources.length} log streams, but maximum allowed concurrency is ${options.maxRequests}, use --max-log-requests to increase the limit`,
    );
  const consume = async (source: LogSource) => {
    const chunks = source.open(signal);
    try {
      if (!options.prefix && !parallel) for await (const chunk of chunks) write(chunk);
      else {
        const prefix = Buffer.from(options.prefix ? source.prefix : '');
        for await (const line of lines(chunks)) write(Buffer.concat([prefix, line]));
      }
    } catch (err) {
      if (!signal.aborted) throw err;
    }
  };
  if (parallel) await Promise.all(sources.map(consume));
  else for (const source of sources) await consume(source);
}

/** CHUNKS cut into lines, each with its newline; what follows the last newline comes last. */
async function* lines(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let rest: Buffer = Buffer.alloc(0);
  for await (const chunk of chunks) {
    let data: Buffer = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    for (let end = data.indexOf(10); end >= 0; end = data.indexOf(10)) {
      yield data.subarray(0, end + 1);
      data = data.subarray(end + 1);
    }
    rest = data;
  }
  if (rest.length > 0) yield rest;
}
