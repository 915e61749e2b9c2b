import { Args, Flags } from '@oclif/core';
import { runRemoteCommand } from '../cri/streaming/remote-command.js';
import { KubeletLabels } from '../cri/types.js';
import { pickContainer } from '../cli/pod-target.js';
import { KubectlError } from '../util/user-error.js';
import { namespaceFlag, StreamingCommand } from '../cli/streaming-command.js';

export default class Attach extends StreamingCommand {
  static override summary = "Attach to a running container's output (and stdin with -i), as kubectl attach does.";
  static override description = `Works with or without a running node, against the embedded runtime or the one --runtime-endpoint names. See docs/cli.md.`;
  static override examples = ['<%= config.bin %> attach web', '<%= config.bin %> attach -it shell -c main'];
  static override args = {
    pod: Args.string({
      description: 'The pod: NAME, NAMESPACE/NAME, or TYPE/NAME as kubectl takes it (pod/web, deploy/web…)',
      required: true,
      ignoreStdin: true,
    }),
  };
  static override flags = {
    container: Flags.string({ char: 'c', description: 'Container name (default: the default-container annotation, else the first)' }),
    stdin: Flags.boolean({
      char: 'i',
      description: 'Pass stdin to the container (it must have been created with stdin: true)',
      default: false,
    }),
    tty: Flags.boolean({ char: 't', description: 'Stdin is a TTY', default: false }),
    quiet: Flags.boolean({ char: 'q', description: 'Only print output from the remote session', default: false }),
    namespace: namespaceFlag,
  };

  protected override completedPod(phase: string): string {
    return `error: cannot attach a container in a completed pod; current phase is ${phase}`;
  }

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Attach);
    let tty = this.useTty(flags.tty, flags.stdin);
    await this.withPod(flags, args.pod, async (client, found) => {
      const container = pickContainer(found, flags.container, (m) => flags.quiet || this.logToStderr(m));
      const name = container.labels[KubeletLabels.containerName];
      const spec = found.pod?.spec.containers.find((c) => c.name === name);
      if (tty && spec && !spec.tty) {
        this.logToStderr(`Unable to use a TTY - container ${name} did not allocate one`);
        tty = false;
      }
      if (flags.stdin && spec && !spec.stdin)
        throw new KubectlError(`error: cannot attach to the container ${name}: it was not created with stdin: true`);
      if (tty && flags.stdin && !flags.quiet) this.logToStderr("If you don't see a command prompt, try pressing enter.");
      const url = await client
        .attach({ containerId: container.id, stdin: flags.stdin, stdout: true, stderr: !tty, tty })
        .catch((err: Error) => {
          throw new KubectlError(`error: unable to upgrade connection: ${err.message}`);
        });
      await this.runJoined((io) => runRemoteCommand(url, io), flags.stdin, tty);
    });
  }
}
