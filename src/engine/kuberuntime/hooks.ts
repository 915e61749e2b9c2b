import type { RuntimeService } from '../../cri/runtime-service.js';
import type { Clock } from '../../util/clock.js';
import type { Container, HTTPGetAction, LifecycleHandler } from '../api/v1.js';

/** How long an HTTP hook may take (the kubelet's handler timeout). */
const HTTP_HOOK_TIMEOUT_MS = 10_000;

/**
 * Runs lifecycle hook handlers (postStart, preStop): exec in the container
 * through CRI ExecSync, an HTTP GET against the pod, or a sleep. Resolves to
 * an error message, or undefined on success.
 */
export class HookRunner {
  constructor(
    private readonly runtime: RuntimeService,
    private readonly clock: Clock,
  ) {}

  async run(containerId: string, container: Container, handler: LifecycleHandler, podIP: string, signal?: AbortSignal): Promise<string | undefined> {
    if (handler.exec) {
      const command = handler.exec.command ?? [];
      try {
        const res = await this.runtime.execSync(containerId, command, 0);
        if (res.exitCode === 0) return undefined;
        const output = Buffer.concat([res.stdout, res.stderr]).toString('utf8').trim();
        return `command '${command.join(' ')}' exited with ${res.exitCode}: ${output}`;
      } catch (err) {
        return `command '${command.join(' ')}' failed: ${(err as Error).message}`;
      }
    }
    if (handler.httpGet) return this.httpGet(container, handler.httpGet, podIP, signal);
    if (handler.sleep) {
      try {
        await this.clock.sleep(handler.sleep.seconds * 1000, signal);
      } catch {
        // cut short by the grace period: not a failure of the hook
      }
      return undefined;
    }
    return 'unsupported lifecycle handler: only exec, httpGet and sleep are run';
  }

  private async httpGet(container: Container, action: HTTPGetAction, podIP: string, signal?: AbortSignal): Promise<string | undefined> {
    const port = resolvePort(action.port, container);
    if (port === undefined) return `could not find port "${action.port}" in container ${container.name}`;
    const host = action.host || podIP || '127.0.0.1';
    const scheme = (action.scheme ?? 'HTTP').toLowerCase();
    const path = action.path?.startsWith('/') ? action.path : `/${action.path ?? ''}`;
    const url = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}${path}`;
    const headers = new Headers({ 'User-Agent': 'kube-lifecycle/knode' });
    for (const h of action.httpHeaders ?? []) headers.set(h.name, h.value);
    try {
      const signals = [AbortSignal.timeout(HTTP_HOOK_TIMEOUT_MS), ...(signal ? [signal] : [])];
      const res = await fetch(url, { headers, signal: AbortSignal.any(signals), redirect: 'manual' });
      await res.arrayBuffer();
      if (res.status < 200 || res.status >= 400) return `HTTP lifecycle hook (${path}) for container "${container.name}" failed: ${res.status} ${res.statusText}`;
      return undefined;
    } catch (err) {
      return `HTTP lifecycle hook (${path}) for container "${container.name}" failed: ${(err as Error).message}`;
    }
  }
}

/** A port given by number or by the name of one of the container's ports. */
export function resolvePort(port: number | string, container: Container): number | undefined {
  if (typeof port === 'number') return port;
  if (/^\d+$/.test(port)) return Number(port);
  return container.ports?.find((p) => p.name === port)?.containerPort;
}
