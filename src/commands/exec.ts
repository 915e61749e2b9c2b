import { Args, Flags } from '@oclif/core';
import { runRemoteCommand } from '../cri/streaming/remote-command.js';
import { pickContainer } from '../cli/pod-target.js';
import { KubectlError } from '../util/user-error.js';
import { namespaceFlag, StreamingCommand } from '../cli/streaming-command.js';

export default class Exec extends StreamingCommand {
  static override summary = 'Run a command in a container of a pod, as kubectl exec does.';
  static override description = `Works with or without a running node, against the embedded runtime or the one --runtime-endpoint names. The command's exit code is knode's. See docs/cli.md.`;
  static override examples = [
    '<%= config.bin %> exec web -- ls /',
    '<%= config.bin %> exec -it web -c app -- sh',
    'echo hi | <%= config.bin %> exec -i web -- cat',
  ];
  static override strict = false;
  static override args = {
    pod: Args.string({
      description: 'The pod: NAME, NAMESPACE/NAME, or TYPE/NAME as kubectl takes it (pod/web, deploy/web…)',
      required: true,
      ignoreStdin: true,
    }),
    command: Args.string({ description: 'The command and its arguments, after --', ignoreStdin: true }),
  };
  static override flags = {
    container: Flags.string({ char: 'c', description: 'Container name (default: the default-container annotation, else the first)' }),
    stdin: Flags.boolean({ char: 'i', description: "Pass stdin to the container's command", default: false }),
    tty: Flags.boolean({ char: 't', description: 'Stdin is a TTY', default: false }),
    quiet: Flags.boolean({ char: 'q', description: 'Only print output from the remote session', default: false }),
    namespace: namespaceFlag,
  };

  async run(): Promise<void> {
    // What follows -- is the command, never flags: it is split off before oclif parses the rest.
    const given = [...this.argv];
    const dash = given.indexOf('--');
    const { args, argv, flags } = await this.parse(Exec, dash < 0 ? given : given.slice(0, dash));
    const command = dash < 0 ? (argv as string[]).slice(1) : given.slice(dash + 1);
    if (command.length === 0) throw new KubectlError('error: you must specify at least one command for the container');
    const tty = this.useTty(flags.tty, flags.stdin);
    await this.withPod(flags, args.pod, async (client, found) => {
      const container = pickContainer(found, flags.container, (m) => flags.quiet || this.logToStderr(m));
      const url = await client
        .exec({ containerId: container.id, cmd: command, stdin: flags.stdin, stdout: true, stderr: !tty, tty })
        .catch((err: Error) => {
          throw new KubectlError(`error: unable to upgrade connection: ${err.message}`);
        });
      await this.runJoined((io) => runRemoteCommand(url, io), flags.stdin, tty);
    });
  }
}
