import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { startEmbeddedRuntime } from '../../runtime/serve.js';
import { UserError } from '../../util/user-error.js';

export default class RuntimeServe extends BaseCommand {
  static override summary = 'Run the embedded CRI runtime in the foreground.';
  static override description = `Serves CRI runtime.v1 (RuntimeService and ImageService) over gRPC on a unix socket, <root-dir>/run/runtime.sock by default. Commands that need a runtime start it on their own (detached) when nothing answers there, so you rarely run this yourself.

Containers run as host processes, each in its own process group, with CRI-format logs: there is no image filesystem, and the only isolation is the PID namespace CRI asks for (the container's own, the pod's or the host's), where the host allows it (root, unshare and nsenter). Images are real when <root-dir>/registries.yaml exists (mirrors and insecure registries; it may be empty): pulls speak the OCI distribution API, verify every digest and unpack layers under <root-dir>/runtime/images. Without it, images are records: a pull succeeds for any well-formed reference except from hosts under the reserved .invalid domain, which fail as an unreachable registry does.

SIGINT or SIGTERM stops the server and every container it runs.`;

  static override examples = [
    '<%= config.bin %> runtime serve',
    '<%= config.bin %> runtime serve --root-dir /tmp/knode',
    'crictl --runtime-endpoint unix://$HOME/.knode/run/runtime.sock ps -a',
  ];

  static override flags = {
    socket: Flags.string({ description: 'Serve on this unix socket path instead of <root-dir>/run/runtime.sock' }),
    'shutdown-grace-period': Flags.integer({ description: 'Seconds each container gets to stop when the runtime shuts down', default: 10 }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(RuntimeServe);
    const log = (message: string) => process.stderr.write(`${new Date().toISOString()} ${message}\n`);
    let serving;
    try {
      serving = await startEmbeddedRuntime({
        rootDir: this.rootDir(flags),
        socketPath: flags.socket,
        shutdownGraceSeconds: flags['shutdown-grace-period'],
        log,
      });
    } catch (err) {
      throw new UserError('runtimeUnavailable', `cannot start the embedded runtime: ${(err as Error).message}`);
    }
    await new Promise<void>((resolve) => {
      const onSignal = (signal: string) => {
        log(`${signal}: stopping the embedded runtime and its containers`);
        void serving.stop().then(resolve);
      };
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
    });
  }
}
