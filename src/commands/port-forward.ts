import { Args, Flags } from '@oclif/core';
import type { Server } from 'node:net';
import { PortForwardSession } from '../cri/streaming/port-forward.js';
import { KubectlError } from '../util/user-error.js';
import { listenAll, listenHosts, parsePortPair, type PortPair } from '../cli/port-listeners.js';
import { namespaceFlag, StreamingCommand } from '../cli/streaming-command.js';

export default class PortForward extends StreamingCommand {
  static override summary = 'Forward local ports to a pod, as kubectl port-forward does.';
  static override description = `Each local connection is forwarded on its own; a closed port in the pod fails that connection only. Runs until interrupted. See docs/cli.md.`;
  static override examples = [
    '<%= config.bin %> port-forward web 8080:80',
    '<%= config.bin %> port-forward web 8080:80 8443:443 --address 0.0.0.0',
    '<%= config.bin %> port-forward pod/web :80',
  ];
  static override strict = false;
  static override args = {
    pod: Args.string({
      description: 'The pod: NAME, NAMESPACE/NAME, or TYPE/NAME as kubectl takes it (pod/web, deploy/web…)',
      required: true,
      ignoreStdin: true,
    }),
    ports: Args.string({ description: '[LOCAL:]REMOTE, one or more (LOCAL empty: any free port)', ignoreStdin: true }),
  };
  static override flags = {
    address: Flags.string({
      description: 'Addresses to listen on (comma-separated); only IP addresses or localhost',
      default: 'localhost',
    }),
    namespace: namespaceFlag,
  };

  protected override completedPod(phase: string): string {
    return `error: unable to forward port because pod is not running. Current status=${phase}`;
  }

  async run(): Promise<void> {
    const { args, argv, flags } = await this.parse(PortForward);
    const portArgs = (argv as string[]).slice(1);
    if (portArgs.length === 0) throw new KubectlError('error: at least 1 PORT is required for port-forward');
    const hosts = listenHosts(
      flags.address
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean),
    );
    await this.withPod(flags, args.pod, async (client, found) => {
      const named = (name: string) =>
        found.pod?.spec.containers.flatMap((c) => c.ports ?? []).find((p) => p.name === name)?.containerPort ?? undefined;
      let pairs: PortPair[];
      try {
        pairs = portArgs.map((p) => parsePortPair(p, named));
      } catch (err) {
        throw new KubectlError(`error: ${(err as Error).message}`);
      }
      const url = await client.portForward(found.sandbox.id, [...new Set(pairs.map((p) => p.remote))]).catch((err: Error) => {
        throw new KubectlError(`error: unable to upgrade connection: ${err.message}`);
      });
      const session = await PortForwardSession.open(url);
      const servers: Server[] = [];
      for (const pair of pairs) {
        let local = pair.local;
        const bound = await listenAll(hosts, pair.local, (socket) => {
          this.log(`Handling connection for ${local}`);
          session.forward(socket, pair.remote, (message) =>
            this.logToStderr(unhandled(`an error occurred forwarding ${local} -> ${pair.remote}: ${message}`)),
          );
        });
        local = bound.port;
        for (const address of bound.addresses) this.log(`Forwarding from ${address} -> ${pair.remote}`);
        if (bound.servers.length === 0)
          this.logToStderr(
            `Unable to listen on port ${pair.local}: Listeners failed to create with the following errors: [${bound.failures.join(' ')}]`,
          );
        servers.push(...bound.servers);
      }
      if (servers.length === 0) {
        session.close();
        throw new KubectlError(
          `error: unable to listen on any of the requested ports: [${pairs.map((p) => `{${p.local} ${p.remote}}`).join(' ')}]`,
        );
      }
      const lost = await new Promise<boolean>((resolve) => {
        const stop = () => resolve(false);
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        session.onClose(() => resolve(true));
      });
      for (const server of servers) server.close();
      session.close();
      if (lost) throw new KubectlError('error: lost connection to pod');
    });
  }
}

/** An error kubectl reports and carries on after (klog's runtime.HandleError line). */
function unhandled(message: string): string {
  const now = new Date();
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const stamp = `${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())} ${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())}:${pad(now.getUTCSeconds())}.${pad(now.getUTCMilliseconds() * 1000, 6)}`;
  return `E${stamp} ${String(process.pid).padStart(7)} portforward.go:424] "Unhandled Error" err=${JSON.stringify(message)}`;
}
