import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { nodeStaticDir } from '../../cli/beside-node.js';
import { NodeClient } from '../../cli/node-client.js';
import { savedObjects } from '../../cli/offline-pods.js';
import { restartInStaticDir } from '../../cli/rollout-restart.js';
import { describedObjects } from '../../cli/target-kinds.js';
import { compareStrings } from '../../util/compare.js';
import { ExitCode, KubectlError, UserError } from '../../util/user-error.js';

export default class RolloutRestart extends BaseCommand {
  static override summary = "Restart a workload's pods as kubectl rollout restart does: a rolling replacement of each.";
  static override description = `Writes kubectl's kubectl.kubernetes.io/restartedAt annotation into the pod template of each Deployment, StatefulSet or DaemonSet in the running node's --static-dir (the rest of its manifest kept as it is); the node then rolls its pods anew by the workload's strategy. TYPE alone restarts every object of the type in the namespace. Needs a node running with --static-dir. See docs/cli.md.`;
  static override examples = [
    '<%= config.bin %> rollout restart deploy/greeter',
    '<%= config.bin %> rollout restart deployment greeter site',
    '<%= config.bin %> rollout restart sts -n shop',
  ];

  // TYPE NAME..., TYPE/NAME... or TYPE: any number of words.
  static override strict = false;
  static override args = {
    object: Args.string({ description: 'TYPE/NAME, TYPE NAME..., or TYPE for every object of the type' }),
  };

  static override flags = {
    namespace: Flags.string({ char: 'n', description: 'The namespace (default: default)' }),
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(RolloutRestart);
    if (argv.length === 0) throw new KubectlError('error: required resource not specified');
    const namespace = flags.namespace ?? 'default';
    const rootDir = this.rootDir(flags);
    const node = await NodeClient.find(rootDir);
    const staticDir = node && (await nodeStaticDir(node));
    if (!staticDir)
      throw new UserError(
        'usage',
        node ? `the node running under ${rootDir} has no --static-dir for restart to write in` : `no node runs under ${rootDir}`,
        "rollout restart writes the workload's manifest in a running node's --static-dir; for one knode apply ran, edit its manifest's pod template and apply it again",
      );
    const saved = savedObjects(rootDir).filter((o) => (o.metadata.namespace ?? 'default') === namespace);
    const refs = describedObjects(argv as string[]).flatMap(({ kind, name }) =>
      (name
        ? [name]
        : saved
            .filter((o) => o.kind === kind)
            .map((o) => o.metadata.name!)
            .sort(compareStrings)
      ).map((n) => ({ kind, namespace, name: n })),
    );
    if (refs.length === 0) return this.logToStderr(`No resources found in ${namespace} namespace.`);
    const known = (ref: { kind: string; name: string }) => saved.some((o) => o.kind === ref.kind && o.metadata.name === ref.name);
    const outcomes = await restartInStaticDir(staticDir, refs, Date.now(), known);
    for (const { out, error } of outcomes) {
      if (out) this.log(out);
      if (error) this.logToStderr(error);
    }
    if (outcomes.some((o) => o.error)) this.exit(ExitCode.workloadFailed);
  }
}
