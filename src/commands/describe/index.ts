import { Args, Flags, type Config } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import type { DescribeCommand } from '../../cli/describe-command.js';
import { booleanFlagValues, flagGiven } from '../../cli/boolean-flags.js';
import { describedObjects } from '../../cli/target-kinds.js';
import DescribeConfigMap from './configmap.js';
import DescribeCronJob from './cronjob.js';
import DescribeDaemonSet from './daemonset.js';
import DescribeDeployment from './deployment.js';
import DescribeJob from './job.js';
import DescribePersistentVolumeClaim from './persistentvolumeclaim.js';
import DescribePod from './pod.js';
import DescribeReplicaSet from './replicaset.js';
import DescribeSecret from './secret.js';
import DescribeStatefulSet from './statefulset.js';

/** The describe command of each kind: made with its arguments, it gives the text. */
const COMMANDS: Record<string, new (argv: string[], config: Config) => DescribeCommand> = {
  Pod: DescribePod,
  Deployment: DescribeDeployment,
  ReplicaSet: DescribeReplicaSet,
  StatefulSet: DescribeStatefulSet,
  DaemonSet: DescribeDaemonSet,
  Job: DescribeJob,
  CronJob: DescribeCronJob,
  ConfigMap: DescribeConfigMap,
  Secret: DescribeSecret,
  PersistentVolumeClaim: DescribePersistentVolumeClaim,
};

export default class Describe extends BaseCommand {
  static override summary = 'Show an object in detail, as kubectl describe does: TYPE/NAME, or TYPE NAME.';
  static override description = `kubectl's forms: \`describe deploy/web\` and \`describe pods web\` run \`describe deployment web\` and \`describe pod web\`, with any type name kubectl takes for a pod, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob, ConfigMap, Secret or PersistentVolumeClaim (singular, plural, short). Several objects (\`describe pods a b\`, \`describe deploy/a rs/b\`, \`describe deploy,sts web\`) are described one after the other, a blank line between, without their events unless --show-events is given; one that cannot be described is told and the others still are (exit 1). See docs/cli.md.`;
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
    const words = argv as string[];
    const objects = describedObjects(words);
    // As kubectl: several objects go without their events unless --show-events is given,
    // and only `describe TYPE NAME` of one name reads the name by its beginning.
    const events = flagGiven(this.argv, 'show-events') ? flags['show-events'] : objects.length === 1 ? undefined : false;
    // The flags as parsed, given again to each kind's command.
    const again = Object.entries(flags).flatMap(([flag, value]) =>
      flag === 'show-events' || value === undefined || value === false ? [] : value === true ? [`--${flag}`] : [`--${flag}=${value}`],
    );
    if (events !== undefined) again.push(events ? '--show-events' : '--no-show-events');
    if (words.length > 2 || words[0].includes('/') || words[0].includes(',')) again.push('--exact');
    let described = 0;
    let failed: number | undefined;
    let none: string | undefined;
    for (const { kind, name } of objects) {
      // kubectl parts the objects it describes with a blank line, and goes on past one it cannot describe.
      try {
        const { text, notice } = await new COMMANDS[kind]([name, ...again], this.config).describe();
        none ??= notice;
        if (text === '') continue;
        process.stdout.write(described > 0 ? `\n\n${text}` : text);
        described++;
      } catch (err) {
        const code = this.tell(err);
        if (code === undefined) throw err;
        failed = Math.max(failed ?? 0, code);
      }
    }
    // kubectl's "No resources found" only when the types together had none.
    if (described === 0 && failed === undefined && none) this.logToStderr(none);
    if (failed !== undefined) this.exit(failed);
  }
}
