import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { savedObjects } from '../../cli/offline-pods.js';
import { rolloutHistory } from '../../cli/rollout-history.js';
import { namesOfKind } from '../../cli/rollout-status.js';
import { describedObjects } from '../../cli/target-kinds.js';

export default class RolloutHistory extends BaseCommand {
  static override summary = "Show a workload's rollout history as kubectl rollout history does.";
  static override description = `Lists the revisions of a Deployment (its ReplicaSets), a StatefulSet or a DaemonSet (their ControllerRevisions) with their change causes, from the objects the local controllers saved; --revision N prints the pod template of revision N. TYPE alone takes every object of the type in the namespace. See docs/workloads.md.`;
  static override examples = [
    '<%= config.bin %> rollout history deploy/greeter',
    '<%= config.bin %> rollout history deploy/greeter --revision 2',
  ];

  // TYPE NAME..., TYPE/NAME... or TYPE: any number of words.
  static override strict = false;
  static override args = {
    object: Args.string({ description: 'TYPE/NAME, TYPE NAME..., or TYPE for every object of the type' }),
  };

  static override flags = {
    namespace: Flags.string({ char: 'n', description: 'The namespace (default: default)' }),
    revision: Flags.integer({ description: 'See the details, including podTemplate of the revision specified', default: 0 }),
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(RolloutHistory);
    const namespace = flags.namespace ?? 'default';
    const saved = savedObjects(this.rootDir(flags));
    // TYPE alone: every object of the type in the namespace.
    const objects = describedObjects(argv as string[]).flatMap(({ kind, name }) =>
      namesOfKind(saved, kind, namespace, name).map((n) => ({ kind, name: n })),
    );
    if (objects.length === 0) return this.logToStderr(`No resources found in ${namespace} namespace.`);
    for (const { kind, name } of objects) process.stdout.write(rolloutHistory(saved, kind, namespace, name, flags.revision));
  }
}
