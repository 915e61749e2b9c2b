import { writeSync } from 'node:fs';
import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { DEFAULT_CNI_BIN_DIRS } from '../../runtime/runtime.js';
import { startEmbeddedRuntime } from '../../runtime/serve.js';
import { UserError } from '../../util/user-error.js';

export default class RuntimeServe extends BaseCommand {
  static override summary = 'Run the embedded CRI runtime in the foreground.';
  static override description = `Serves CRI runtime.v1 (RuntimeService and ImageService) over gRPC on a unix socket, <root-dir>/run/runtime.sock by default. Commands that need a runtime start it on their own (detached) when nothing answers there, so you rarely run this yourself.

Images are real when <root-dir>/registries.yaml exists (mirrors and insecure registries; it may be empty): pulls speak the OCI distribution API, verify every digest and unpack layers under <root-dir>/runtime/images. A container of a real image runs in a bubblewrap sandbox: its own root file system from the image's layers (a kernel overlay as root, a copy otherwise), the image's Entrypoint, Cmd, Env, WorkingDir and User merged with the container's, its mounts bound in, its own PID namespace (or the pod's, or the host's, as CRI asks), and the pod's IPC and UTS namespaces with the pod's hostname. The network is the host's, unless the CNI directory (<root-dir>/cni/net.d, or --cni-conf-dir) holds a network configuration: then a pod off the host's network gets a network namespace of its own, attached to that network by its CNI plugins (as containerd does; root only), and its IP from them.

Without registries.yaml, images are records: a pull succeeds for any well-formed reference except from hosts under the reserved .invalid domain, which fail as an unreachable registry does, and containers run as host processes, each in its own process group, in the PID namespace CRI asks for where the host allows (root, unshare and nsenter). So do all containers with --sandbox off, or where bubblewrap is missing or cannot make namespaces (the runtime says so when it starts, and in knode runtime status).

SIGINT or SIGTERM stops the server and every container it runs.`;

  static override examples = [
    '<%= config.bin %> runtime serve',
    '<%= config.bin %> runtime serve --root-dir /tmp/knode',
    'crictl --runtime-endpoint unix://$HOME/.knode/run/runtime.sock ps -a',
  ];

  static override flags = {
    socket: Flags.string({ description: 'Serve on this unix socket path instead of <root-dir>/run/runtime.sock' }),
    'shutdown-grace-period': Flags.integer({ description: 'Seconds each container gets to stop when the runtime shuts down', default: 10 }),
    'cni-conf-dir': Flags.string({
      description:
        'Where the CNI network configuration for pods is (the first .conflist, .conf or .json by name) [default: <root-dir>/cni/net.d]',
    }),
    'cni-bin-dir': Flags.string({
      description: 'Where CNI plugins are, comma-separated, searched in order',
      default: DEFAULT_CNI_BIN_DIRS.join(','),
    }),
    sandbox: Flags.string({
      description: 'Run containers of real images in bubblewrap sandboxes (auto), or as host processes (off)',
      options: ['auto', 'off'],
      default: 'auto',
    }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(RuntimeServe);
    // Detached, stderr is <root-dir>/logs/runtime.log, on the disk that may be full:
    // a line it refuses is dropped, never fatal to the runtime and its containers.
    process.stderr.on('error', () => {});
    const log = (message: string) => {
      try {
        writeSync(2, `${new Date().toISOString()} ${message}\n`);
      } catch {
        // dropped: the disk (or the pipe) does not take it now
      }
    };
    let serving;
    try {
      serving = await startEmbeddedRuntime({
        rootDir: this.rootDir(flags),
        socketPath: flags.socket,
        shutdownGraceSeconds: flags['shutdown-grace-period'],
        sandbox: flags.sandbox as 'auto' | 'off',
        cniConfDir: flags['cni-conf-dir'],
        cniBinDirs: flags['cni-bin-dir'].split(',').filter(Boolean),
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
