import { connect } from 'node:net';
import { CriError, GrpcCode } from '../../cri/errors.js';
import { GrpcCallError, GrpcChannel, type GrpcMethod } from '../../cri/grpc-channel.js';
import type { RuntimeService } from '../../cri/runtime-service.js';
import { serviceDefinition } from '../../cri/proto.js';
import type { Container, HTTPGetAction, Probe } from '../api/v1.js';
import { resolvePort } from '../kuberuntime/hooks.js';

export type ProbeResult = 'success' | 'failure' | 'unknown';

export interface ProbeOutcome {
  result: ProbeResult;
  /** What the probe said, for the Unhealthy event (capped as the kubelet caps it). */
  output: string;
}

export interface ProbeTarget {
  container: Container;
  containerId: string;
  podIP: string;
}

/** The kubelet keeps at most this much of a probe's output. */
const MAX_OUTPUT = 10 * 1024;

/**
 * Runs one probe once, with its handler and timeout (the kubelet's prober):
 * exec through CRI ExecSync (argv as given, never through a shell), an HTTP
 * GET that succeeds on 2xx/3xx, a TCP connect, or the gRPC health check.
 */
export async function runProbe(probe: Probe, target: ProbeTarget, runtime: RuntimeService): Promise<ProbeOutcome> {
  const timeoutSeconds = probe.timeoutSeconds ?? 1;
  if (probe.exec) return execProbe(probe.exec.command ?? [], target, timeoutSeconds, runtime);
  if (probe.httpGet) return httpProbe(probe.httpGet, target, timeoutSeconds);
  if (probe.tcpSocket) {
    const port = resolvePort(probe.tcpSocket.port, target.container);
    if (port === undefined) return { result: 'unknown', output: `unknown port ${probe.tcpSocket.port}` };
    return tcpProbe(probe.tcpSocket.host || target.podIP, port, timeoutSeconds);
  }
  if (probe.grpc) return grpcProbe(target.podIP, probe.grpc.port, probe.grpc.service ?? '', timeoutSeconds);
  return { result: 'unknown', output: 'the probe has no handler' };
}

async function execProbe(command: string[], target: ProbeTarget, timeoutSeconds: number, runtime: RuntimeService): Promise<ProbeOutcome> {
  try {
    const res = await runtime.execSync(target.containerId, command, timeoutSeconds);
    const output = cap(Buffer.concat([res.stdout, res.stderr]).toString('utf8'));
    return res.exitCode === 0
      ? { result: 'success', output }
      : { result: 'failure', output: output || `command ${JSON.stringify(command)} exited with ${res.exitCode}` };
  } catch (err) {
    if (err instanceof CriError && err.code === GrpcCode.DEADLINE_EXCEEDED)
      return { result: 'failure', output: `command ${JSON.stringify(command)} timed out` };
    return { result: 'unknown', output: (err as Error).message };
  }
}

async function httpProbe(action: HTTPGetAction, target: ProbeTarget, timeoutSeconds: number): Promise<ProbeOutcome> {
  const port = resolvePort(action.port, target.container);
  if (port === undefined) return { result: 'unknown', output: `unknown port ${action.port}` };
  const host = action.host || target.podIP;
  const path = action.path?.startsWith('/') ? action.path : `/${action.path ?? ''}`;
  const url = `${(action.scheme ?? 'HTTP').toLowerCase()}://${host.includes(':') ? `[${host}]` : host}:${port}${path}`;
  const headers = new Headers({ 'User-Agent': 'kube-probe/knode', Accept: '*/*' });
  for (const h of action.httpHeaders ?? []) headers.set(h.name, h.value);
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutSeconds * 1000) });
    const body = cap(await res.text());
    if (res.status >= 200 && res.status < 400) return { result: 'success', output: body };
    return { result: 'failure', output: `HTTP probe failed with statuscode: ${res.status}` };
  } catch (err) {
    const e = err as Error & { cause?: Error };
    const why =
      e.name === 'TimeoutError'
        ? `context deadline exceeded (Client.Timeout exceeded while awaiting headers)`
        : (e.cause?.message ?? e.message);
    return { result: 'failure', output: `Get "${url}": ${why}` };
  }
}

function tcpProbe(host: string, port: number, timeoutSeconds: number): Promise<ProbeOutcome> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: timeoutSeconds * 1000 });
    const done = (outcome: ProbeOutcome) => {
      socket.destroy();
      resolve(outcome);
    };
    socket.once('connect', () => done({ result: 'success', output: '' }));
    socket.once('timeout', () => done({ result: 'failure', output: `dial tcp ${host}:${port}: i/o timeout` }));
    socket.once('error', (err) => done({ result: 'failure', output: `dial tcp ${host}:${port}: ${err.message}` }));
  });
}

/** grpc.health.v1.Health/Check's request and answer, as health.proto declares them. */
type HealthCheck = GrpcMethod<{ service: string }, { status?: string }>;

/** grpc.health.v1.Health/Check's path and coders, made on the first gRPC probe. */
let healthCheck: HealthCheck | undefined;

/** A gRPC health check (grpc.health.v1.Health/Check) of SERVICE at the container's port, within the probe's timeout. */
async function grpcProbe(host: string, port: number, service: string, timeoutSeconds: number): Promise<ProbeOutcome> {
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  healthCheck ??= serviceDefinition('grpc/health/v1/health.proto', 'grpc.health.v1.Health').Check as HealthCheck;
  const channel = new GrpcChannel({ connect: () => connect({ host, port }), maxMessageBytes: 4 * 1024 * 1024, authority: address });
  try {
    const answer = await channel.call(healthCheck, { service }, timeoutSeconds * 1000);
    const status = answer.status ?? 'UNKNOWN';
    if (status === 'SERVING') return { result: 'success', output: '' };
    return { result: 'failure', output: `service unhealthy (responded with "${status}")` };
  } catch (err) {
    const why = err instanceof GrpcCallError ? err.details : (err as Error).message;
    return { result: 'failure', output: `failed to connect service "${address}" within ${timeoutSeconds}s: ${why}` };
  } finally {
    channel.close();
  }
}

function cap(text: string): string {
  return text.length > MAX_OUTPUT ? text.slice(0, MAX_OUTPUT) : text.trim();
}
