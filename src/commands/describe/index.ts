import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { booleanFlagValues } from '../../cli/boolean-flags.js';
import { describedObjects } from '../../cli/target-kinds.js';

/** The describe command of each kind. */
const COMMANDS: Record<string, string> = {
  Pod: 'describe:pod',
  Deployment: 'describe:deployment',
  ReplicaSet: 'describe:replicaset',
  StatefulSet: 'describe:statefulset',
  DaemonSet: 'describe:daemonset',
  Job: 'describe:job',
  CronJob: 'describe:cronjob',
};

export default class Describe extends BaseCommand {
  static override summary = 'Show an object in detail, as kubectl describe does: TYPE/NAME, or TYPE NAME.';
  static override description = `kubectl's forms: \`describe deploy/web\` and \`describe pods web\` run \`describe deployment web\` and \`describe pod web\`, with any type name kubectl takes for a pod, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job or CronJob (singular, plural, short). Several objects (\`describe pods a b\`, \`describe deploy/a rs/b\`) are described one after the other, a blank line between. See docs/cli.md.`;
  static override examples = ['<%= config.bin %> describe deploy/greeter', '<%= config.bin %> describe pods web-myhost -n shop'];

  // TYPE NAME... or TYPE/NAME...: any number of words.
  static override strict = false;
  static override args = {
    object: Args.string({ description: 'TYPE/NAME, or TYPE followed by one NAME or more' }),
  };

  static override flags = {
    namespace: Flags.string({ char: 'n', description: 'The namespace (default: default)' }),
    'show-events': Flags.boolean({ description: 'Show its events', default: true, allowNo: true }),
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Describe, booleanFlagValues(this.argv, ['show-events']));
    const objects = describedObjects(argv as string[]);
    // The flags as parsed, given again to each kind's command.
    const again = Object.entries(flags).flatMap(([flag, value]) =>
      value === true ? [`--${flag}`] : value === false ? (flag === 'show-events' ? ['--no-show-events'] : []) : [`--${flag}=${value}`],
    );
    for (const [i, { kind, name }] of objects.entries()) {
      // kubectl parts the objects it describes with a blank line.
      if (i > 0) process.stdout.write('\n\n');
      await this.config.runCommand(COMMANDS[kind], [name, ...again]);
    }
  }
}
