import { goErrorString } from '../../cri/errors.js';
import type { RuntimeService } from '../../cri/runtime-service.js';
import type { Clock } from '../../util/clock.js';
import { goQuote, goStringList } from '../../util/go-format.js';
import { podDesc } from '../api/pod-util.js';
import type { Container, HTTPGetAction, LifecycleHandler, Pod } from '../api/v1.js';

/** How long an HTTP hook may take (the kubelet sets none; knode does not wait forever). */
const HTTP_HOOK_TIMEOUT_MS = 10_000;

/**
 * Runs lifecycle hook handlers (postStart, preStop): exec in the container
 * through CRI ExecSync, an HTTP GET against the pod, or a sleep. Resolves to
 * an error message worded as the kubelet's handler runner words it (the
 * PostStartHookError message), or undefined on success.
 */
export class HookRunner {
  constructor(
    private readonly runtime: RuntimeService,
    private readonly clock: Clock,
  ) {}

  async run(
    containerId: string,
    container: Container,
    pod: Pod | undefined,
    handler: LifecycleHandler,
    podIP: string,
    signal?: AbortSignal,
  ): Promise<string | undefined> {
    const where = `for Container ${goQuote(container.name)} in Pod ${goQuote(podDesc(pod))} failed - error:`;
    if (handler.exec) {
      const command = handler.exec.command ?? [];
      const failure = await this.exec(containerId, command);
      if (failure === undefined) return undefined;
      return `Exec lifecycle hook (${goStringList(command)}) ${where} ${failure.error}, message: ${goQuote(failure.output)}`;
    }
    if (handler.httpGet) {
      const error = await this.httpGet(container, handler.httpGet, podIP, signal);
      return error === undefined ? undefined : `HTTP lifecycle hook (${handler.httpGet.path ?? ''}) ${where} ${error}`;
    }
    if (handler.sleep) {
      try {
        await this.clock.sleep(handler.sleep.seconds * 1000, signal);
      } catch {
        // cut short by the grace period: not a failure of the hook
      }
      return undefined;
    }
    return 'Cannot run handler: invalid handler: only exec, httpGet and sleep are run';
  }

  /** The command's failure as the kubelet's CRI client reports it (stderr in the error), and its stdout and stderr. */
  private async exec(containerId: string, command: string[]): Promise<{ error: string; output: Buffer } | undefined> {
    try {
      const res = await this.runtime.execSync(containerId, command, 0);
      if (res.exitCode === 0) return undefined;
      return {
        error: `command '${command.join(' ')}' exited with ${res.exitCode}: ${res.stderr.toString('utf8')}`,
        output: Buffer.concat([res.stdout, res.stderr]),
      };
    } catch (err) {
      return { error: goErrorString(err), output: Buffer.alloc(0) };
    }
  }

  /**
   * Undefined once the server answered, whatever the status: the kubelet's lifecycle HTTP client
   * fails a hook only when the request fails (words as Go's url.Error), never on a 4xx or 5xx.
   */
  private async httpGet(container: Container, action: HTTPGetAction, podIP: string, signal?: AbortSignal): Promise<string | undefined> {
    const port = resolvePort(action.port, container);
    if (port === undefined) return `port ${goQuote(String(action.port))} not found`;
    const host = action.host || podIP || '127.0.0.1';
    const scheme = (action.scheme ?? 'HTTP').toLowerCase();
    const path = action.path?.startsWith('/') ? action.path : `/${action.path ?? ''}`;
    const hostPort = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    const url = `${scheme}://${hostPort}${path}`;
    const headers = new Headers({ 'User-Agent': 'kube-lifecycle/knode' });
    for (const h of action.httpHeaders ?? []) headers.set(h.name, h.value);
    try {
      const signals = [AbortSignal.timeout(HTTP_HOOK_TIMEOUT_MS), ...(signal ? [signal] : [])];
      const res = await fetch(url, { headers, signal: AbortSignal.any(signals), redirect: 'manual' });
      await res.arrayBuffer();
      return undefined;
    } catch (err) {
      return `Get ${goQuote(url)}: ${dialError(err, host, hostPort)}`;
    }
  }
}

/** What Go's HTTP client says for the failures fetch reports by code. */
function dialError(err: unknown, host: string, hostPort: string): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  switch (cause?.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${hostPort}: connect: connection refused`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${host}: no such host`;
    case 'ECONNRESET':
      return `read tcp ${hostPort}: connection reset by peer`;
  }
  if ((err as Error).name === 'TimeoutError' || (err as Error).name === 'AbortError') return 'context deadline exceeded';
  return cause?.message ?? (err as Error).message;
}

/** A port given by number or by the name of one of the container's ports. */
export function resolvePort(port: number | string, container: Container): number | undefined {
  if (typeof port === 'number') return port;
  if (/^\d+$/.test(port)) return Number(port);
  return container.ports?.find((p) => p.name === port)?.containerPort;
}
