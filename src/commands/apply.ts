import { Flags } from '@oclif/core';
import { stringify } from 'yaml';
import { appliedLine, manifestPath, summarize } from '../cli/apply-report.js';
import { waitThenRemove } from '../cli/apply-wait.js';
import { BaseCommand } from '../cli/base-command.js';
import { besideNode } from '../cli/beside-node.js';
import { replaceInStaticDir } from '../cli/replace-static.js';
import { booleanFlagValues } from '../cli/boolean-flags.js';
import { kubeletConfigFromFlags, kubeletFlags, parseDuration } from '../cli/kubelet-flags.js';
import { earlierPods } from '../cli/replace-pods.js';
import { localWorkloads, startWorkloads } from '../cli/workloads.js';
import { waitForRollouts, type RolloutState } from '../controllers/index.js';
import { isStaticPod, podRef } from '../engine/api/pod-util.js';
import { readManifests } from '../engine/config/read-manifests.js';
import { Kubelet } from '../engine/kubelet.js';
import { RuntimeManager } from '../engine/kuberuntime/runtime-manager.js';
import { runOnce, type PodOutcome } from '../engine/run-once.js';
import { renderApplyTasks } from '../ui/apply-tasks.js';
import { workloadFeed, type ApplyWorkloadFeed } from '../cli/apply-progress.js';
import { changedMounts } from '../cli/apply-synced.js';
import { ExitCode, UserError } from '../util/user-error.js';

export default class Apply extends BaseCommand {
  static override summary = 'Apply manifests once (runOnce): run every pod until Running or Succeeded, then report.';
  static override description = `Runs every pod of a file, a directory or - (stdin) as the kubelet's runOnce mode does, until Running (Succeeded for OnFailure and Never pods), a failure or --timeout; exits 0 only if every pod made it. The pods keep running afterwards. Refused (exit 2) on the root dir of a running knode run node, which would stop them as orphans; there --replace rewrites the manifests of its --static-dir. See docs/cli.md.`;

  static override examples = [
    '<%= config.bin %> apply -f examples/hello.yaml',
    '<%= config.bin %> apply -f examples/ --timeout 1m',
    'cat pod.yaml | <%= config.bin %> apply -f - -o json | jq .items[].status.phase',
    '<%= config.bin %> apply -f pods/ --runtime-endpoint unix:///run/containerd/containerd.sock',
  ];

  static override flags = {
    filename: Flags.string({ char: 'f', description: 'Manifest file, directory, or - for stdin', required: true }),
    timeout: Flags.string({ description: 'How long to wait for the pods (Go duration)', default: '4m' }),
    output: Flags.string({ char: 'o', description: 'Print the pods with their status as a v1 PodList', options: ['json', 'yaml'] }),
    wait: Flags.boolean({
      description: 'Then stay until every pod has ended, or SIGINT/SIGTERM, and remove the pods and workloads: nothing is left behind',
      default: false,
      allowNo: true,
    }),
    replace: Flags.boolean({
      description:
        "Stop and remove the pods of the same names that an earlier apply left running, then create them again from the manifests (kubectl replace --force); beside a running node, rewrite the objects of the same names in the node's --static-dir instead (kubectl replace)",
      default: false,
    }),
    ...kubeletFlags('apply'),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Apply, booleanFlagValues(this.argv, ['wait', 'replace']));
    const rootDir = this.rootDir(flags);
    const beside = await besideNode(rootDir, flags.filename, flags.replace);
    if (beside && flags.wait) throw new UserError('usage', `--wait with --replace: the node running under ${rootDir} owns its pods`);
    const path = await manifestPath(flags.filename, rootDir);
    const timeout = parseDuration(flags.timeout, 'timeout');
    const tell = (line: string) => this.logToStderr(line);
    if (beside) {
      const output = { out: (line: string) => this.log(line), err: tell, format: flags.output as 'json' | 'yaml' | undefined };
      const code = await replaceInStaticDir(beside.node, beside.staticDir, path, timeout, output);
      if (code !== ExitCode.ok) this.exit(code);
      return;
    }
    const warn = (message: string) => tell(`Warning: ${message}`);
    const config = kubeletConfigFromFlags(rootDir, flags, { staticPodPath: path, runOnce: true }, warn);
    const client = await this.connectRuntime({ ...flags, 'runtime-endpoint': config.containerRuntimeEndpoint || undefined });
    config.containerRuntimeEndpoint = client.endpoint;
    const { pods } = await readManifests(path, config.nodeName);
    if (!(await earlierPods(RuntimeManager.standalone(client, config), pods, flags.replace, tell))) {
      client.close();
      this.exit(ExitCode.workloadFailed);
    }
    const workloads = localWorkloads(config, rootDir);
    const kubelet = new Kubelet(config, { runtime: client, local: workloads.api });
    startWorkloads(workloads, kubelet.events, {
      pressure: () => kubelet.pressure(),
      staticPods: () => kubelet.podsWithStatus().filter(isStaticPod),
    });
    const interrupted = this.interruptSignal();
    const ready = (uid: string) =>
      kubelet.statusManager.getPodStatus(uid)?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
    const mounts = changedMounts(kubelet.events, workloads, ready);
    let rollouts = new Map<string, RolloutState>();
    let resolveOutcomes!: (o: PodOutcome[]) => void;
    const outcomes = new Promise<PodOutcome[]>((r) => (resolveOutcomes = r));
    let rendering: Promise<void> | undefined;
    let feed: ApplyWorkloadFeed | undefined;
    try {
      const result = await runOnce(
        kubelet,
        timeout,
        interrupted,
        (pods) => {
          feed = workloadFeed(workloads, workloads.api.keysFrom(`file:${path}`));
          rendering = renderApplyTasks(
            pods.map(podRef),
            { subscribe: (l) => kubelet.events.subscribe(l), outcomes, workloads: feed },
            !!process.stderr.isTTY,
          );
        },
        async (stop) => {
          const keys = workloads.api.keysFrom(`file:${path}`);
          rollouts = await waitForRollouts(workloads.store, keys, stop);
          const mounters = mounts.mountersOfChanged(keys);
          if (mounters.length === 0) return;
          await mounts.wait(mounters, stop);
          rollouts = await waitForRollouts(workloads.store, keys, stop);
        },
      );
      resolveOutcomes(result.outcomes);
      feed?.finish(interrupted.aborted ? 'interrupted' : `timed out after ${flags.timeout}`);
      await rendering;
      for (const notice of result.manifestSkipped) warn(notice);
      for (const error of result.manifestErrors) this.logToStderr(`Error: ${error}`);
      for (const [key, state] of rollouts) this.logToStderr(appliedLine(key, state, workloads.api.appliedAs(key)));
      if (flags.output) {
        const items = [...result.pods, ...workloads.withDependents([...rollouts.keys()])];
        const list = {
          apiVersion: 'v1',
          kind: items.length === result.pods.length ? 'PodList' : 'List',
          metadata: { resourceVersion: '' },
          items,
        };
        this.log(flags.output === 'json' ? JSON.stringify(list, null, 2) : stringify(list).trimEnd());
      }
      const manifests = { path, errors: result.manifestErrors.length };
      let code = summarize(result.outcomes, rollouts, manifests, tell);
      if (flags.wait) {
        workloads.stop();
        const made = workloads.api.keysFrom(`file:${path}`);
        const applied = { staticPods: result.pods, workloadKeys: made };
        const ended = await waitThenRemove(client, config, workloads, applied, interrupted, tell);
        if (code === ExitCode.ok) code = ended;
      }
      if (code !== ExitCode.ok) this.exit(code);
    } finally {
      mounts.close();
      workloads.stop();
      client.close();
    }
  }
}
