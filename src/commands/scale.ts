import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { scaleInStaticDir } from '../cli/scale-static.js';
import { namedObjects, runningStaticDir } from '../cli/static-edit.js';
import { ExitCode, KubectlError } from '../util/user-error.js';

export default class Scale extends BaseCommand {
  static override summary = 'Set the replicas of a Deployment, ReplicaSet or StatefulSet, as kubectl scale does.';
  static override description = `Writes spec.replicas into the workload's manifest in the running node's --static-dir (the rest of the manifest kept as it is); the local controllers then scale it as a cluster's would. --current-replicas is kubectl's precondition. Needs a node running with --static-dir. See docs/workloads.md.`;
  static override examples = [
    '<%= config.bin %> scale deploy/greeter --replicas 3',
    '<%= config.bin %> scale --current-replicas 2 --replicas 3 deployment greeter',
    '<%= config.bin %> scale sts db --replicas 0 -n shop',
  ];

  // TYPE NAME... or TYPE/NAME...: any number of words.
  static override strict = false;
  static override args = {
    object: Args.string({ description: 'TYPE/NAME, or TYPE NAME...' }),
  };

  static override flags = {
    replicas: Flags.integer({ description: 'The new desired number of replicas. Required.', default: -1 }),
    'current-replicas': Flags.integer({
      description: 'Precondition for current size. Requires that the current size of the resource match this value in order to scale.',
      default: -1,
    }),
    namespace: Flags.string({ char: 'n', description: 'The namespace (default: default)' }),
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Scale);
    // kubectl's checks, in its order.
    if (flags.replicas < 0)
      throw new KubectlError('error: The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0');
    if (flags['current-replicas'] < -1) throw new KubectlError('error: The --current-replicas must specify an integer of -1 or greater');
    const words = argv as string[];
    if (words.length === 0) throw new KubectlError('error: You must provide one or more resources by argument or filename.');
    if (words.length === 1 && !words[0].includes('/'))
      throw new KubectlError('error: resource(s) were provided, but no name was specified');
    const namespace = flags.namespace ?? 'default';
    const rootDir = this.rootDir(flags);
    const staticDir = await runningStaticDir(rootDir, 'scale');
    const { refs, known } = namedObjects(rootDir, words, namespace);
    const outcomes = await scaleInStaticDir(staticDir, refs, flags.replicas, flags['current-replicas'], known);
    for (const { out, error } of outcomes) {
      if (out) this.log(out);
      if (error) this.logToStderr(error);
    }
    if (outcomes.some((o) => o.error)) this.exit(ExitCode.workloadFailed);
  }
}
