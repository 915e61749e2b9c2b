import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { restartInStaticDir } from '../../cli/rollout-restart.js';
import { namedObjects, runningStaticDir } from '../../cli/static-edit.js';
import { ExitCode, KubectlError } from '../../util/user-error.js';

export default class RolloutRestart extends BaseCommand {
  static override summary = "Restart a workload's pods as kubectl rollout restart does: a rolling replacement of each.";
  static override description = `Writes kubectl's kubectl.kubernetes.io/restartedAt annotation into the pod template of each Deployment, StatefulSet or DaemonSet in the running node's --static-dir (the rest of its manifest kept as it is); the node then rolls its pods anew by the workload's strategy. TYPE alone restarts every object of the type in the namespace. Needs a node running with --static-dir. See docs/workloads.md.`;
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
    const staticDir = await runningStaticDir(rootDir, 'rollout restart');
    const { refs, known } = namedObjects(rootDir, argv as string[], namespace);
    if (refs.length === 0) return this.logToStderr(`No resources found in ${namespace} namespace.`);
    const outcomes = await restartInStaticDir(staticDir, refs, Date.now(), known);
    for (const { out, error } of outcomes) {
      if (out) this.log(out);
      if (error) this.logToStderr(error);
    }
    if (outcomes.some((o) => o.error)) this.exit(ExitCode.workloadFailed);
  }
}
