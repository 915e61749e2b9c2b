import { Args, Flags } from '@oclif/core';
import { copyFromPod, copySides, copyToPod } from '../cli/copy-pod.js';
import { pickContainer } from '../cli/pod-target.js';
import { namespaceFlag, StreamingCommand } from '../cli/streaming-command.js';

export default class Cp extends StreamingCommand {
  static override summary = 'Copy files and directories to and from containers, as kubectl cp does.';
  static override description = `Runs tar in the container through exec, so the image needs a tar binary. Entries of the pod's archive that would land outside the local destination, and symlinks, are skipped with a warning. See docs/cli.md.`;
  static override examples = [
    '<%= config.bin %> cp /tmp/foo_dir web:/tmp/bar_dir',
    '<%= config.bin %> cp /tmp/foo web:/tmp/bar -c app',
    '<%= config.bin %> cp /tmp/foo other/web:/tmp/bar',
    '<%= config.bin %> cp other/web:/tmp/foo /tmp/bar',
  ];
  static override strict = false;
  static override args = {
    source: Args.string({ description: 'LOCAL_PATH or [NAMESPACE/]POD:PATH', ignoreStdin: true }),
    destination: Args.string({ description: 'LOCAL_PATH or [NAMESPACE/]POD:PATH', ignoreStdin: true }),
  };
  static override flags = {
    container: Flags.string({
      char: 'c',
      description: 'Container name (default: the kubectl.kubernetes.io/default-container annotation, else the first)',
    }),
    'no-preserve': Flags.boolean({
      description: "The copied file/directory's ownership and permissions will not be preserved",
      default: false,
    }),
    retries: Flags.integer({
      description:
        'Set number of retries to complete a copy operation from a container. Specify 0 to disable or any negative value for infinite retrying. The default is 0 (no retry).',
      default: 0,
    }),
    namespace: namespaceFlag,
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Cp);
    const { source, destination, remote } = copySides(argv as string[]);
    // kubectl cp takes NAMESPACE/POD:PATH, never a workload.
    await this.withPod({ ...flags, namespace: remote.namespace ?? flags.namespace }, remote.pod, async (client, found) => {
      const warn = (line: string) => this.logToStderr(line);
      const container = pickContainer(found, flags.container, warn);
      const target = { client, container, warn, log: (line: string) => this.log(line), exit: (code: number) => this.exit(code) };
      if (remote === source) {
        const symlinkHint = `${this.config.bin} exec -n ${JSON.stringify(found.namespace)} ${JSON.stringify(found.name)} -- tar cf - ${JSON.stringify(source.file)} | tar xf -`;
        await copyFromPod(
          target,
          { source: source.file, destination: destination.file, symlinkHint },
          { preserve: !flags['no-preserve'], retries: flags.retries },
        );
      } else await copyToPod(target, source.file, destination.file, flags['no-preserve']);
    });
  }
}
