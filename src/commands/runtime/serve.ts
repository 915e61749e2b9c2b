import { writeSync } from 'node:fs';
import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { DEFAULT_CNI_BIN_DIRS } from '../../runtime/runtime.js';
import { startEmbeddedRuntime } from '../../runtime/serve.js';
import { UserError } from '../../util/user-error.js';

export default class RuntimeServe extends BaseCommand {
  static override summary = 'Run the embedded CRI runtime in the foreground.';
  static override description = `Serves CRI runtime.v1 over gRPC on <root-dir>/run/runtime.sock; commands start it in the background when nothing answers there. SIGINT or SIGTERM stops it and every container it runs. See docs/runtime/README.md.`;

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
