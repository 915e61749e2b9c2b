import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { booleanFlagValues } from '../../cli/boolean-flags.js';
import { parseDuration } from '../../cli/kubelet-flags.js';
import { NodeClient } from '../../cli/node-client.js';
import { rolloutTargets, watchRollout } from '../../cli/rollout-status.js';
import { describedObjects } from '../../cli/target-kinds.js';

export default class RolloutStatus extends BaseCommand {
  static override summary = "Show a rollout's status as kubectl rollout status does, until it is done.";
  static override description = `Reads the Deployments, StatefulSets and DaemonSets the local controllers run (the running node's, or those the last knode apply saved), and prints kubectl's line each time the rollout's state changes, until it has rolled out. TYPE alone takes every object of the type in the namespace. Exit 1 for a rollout past its progress deadline, an object not there, --timeout, or a rollout that waits with no node running to move it on. See docs/cli.md.`;
  static override examples = [
    '<%= config.bin %> rollout status deploy/greeter',
    '<%= config.bin %> rollout status deployment greeter --timeout 1m',
    '<%= config.bin %> rollout status sts/db --watch=false',
  ];

  // TYPE NAME..., TYPE/NAME... or TYPE: any number of words.
  static override strict = false;
  static override args = {
    object: Args.string({ description: 'TYPE/NAME, TYPE NAME..., or TYPE for every object of the type' }),
  };

  static override flags = {
    namespace: Flags.string({ char: 'n', description: 'The namespace (default: default)' }),
    watch: Flags.boolean({ char: 'w', description: "Watch the status of the rollout until it's done.", default: true, allowNo: true }),
    timeout: Flags.string({
      description: 'The length of time to wait before ending watch, zero means never (a Go duration: 30s, 2m)',
      default: '0s',
    }),
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(RolloutStatus, booleanFlagValues(this.argv, ['watch']));
    const namespace = flags.namespace ?? 'default';
    const rootDir = this.rootDir(flags);
    const timeoutMs = parseDuration(flags.timeout, 'timeout');
    const targets = describedObjects(argv as string[]).flatMap(({ kind, name }) => rolloutTargets(rootDir, kind, namespace, name));
    if (targets.length === 0) return this.logToStderr(`No resources found in ${namespace} namespace.`);
    const options = {
      watch: flags.watch,
      // Per object, as kubectl gives each watch its own deadline.
      timeoutMs,
      signal: this.interruptSignal(),
      nodeRuns: async () => (await NodeClient.find(rootDir)) !== undefined,
      print: (line: string) => this.log(line),
    };
    for (const target of targets) await watchRollout(rootDir, target, options);
  }
}
