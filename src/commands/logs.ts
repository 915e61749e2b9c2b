import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { NodeClient } from '../cli/node-client.js';
import type { Pod, PodList } from '../engine/api/v1.js';
import type { CriClient } from '../cri/client.js';
import { KubeletLabels } from '../cri/types.js';
import { parseSelectorFlag, selected, selectorFlag } from '../cli/selector-flag.js';
import { selectorMatches, type LabelSelector } from '../engine/api/workloads.js';
import { compareStrings } from '../util/compare.js';
import { UserError } from '../util/user-error.js';
import { namespaceFlag } from '../cli/streaming-command.js';
import { resolvePods } from '../cli/workload-target.js';
import { podNotFound } from '../cli/pod-target.js';
import { logRequest, nodeLogSources, printLogs, runtimeLogSources, type LogSource } from '../cli/log-streams.js';

const USAGE = "expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required argument for the logs command";

export default class Logs extends BaseCommand {
  static override summary = "Print a container's logs, as kubectl logs does.";
  static override description = `Reads through the running node, or straight from the runtime when no node runs. -l prints the logs of every pod its selector matches (their last 10 lines unless --tail is given), --all-containers those of every container of the pod; followed, several logs are printed side by side. See docs/cli.md.`;
  static override examples = [
    '<%= config.bin %> logs hello-myhost',
    '<%= config.bin %> logs deploy/greeter',
    '<%= config.bin %> logs web-myhost -c app -f',
    '<%= config.bin %> logs crasher-myhost --previous --tail 20',
    '<%= config.bin %> logs -l app=greeter --prefix --since 10m',
    '<%= config.bin %> logs deploy/greeter --all-pods --tail 5',
  ];

  static override args = {
    pod: Args.string({ description: 'The pod: its name, namespace/name, or TYPE/NAME as kubectl takes it (pod/web, deploy/web, job/pi…)' }),
    container: Args.string({ description: 'The container (as -c)' }),
  };

  static override flags = {
    container: Flags.string({ char: 'c', description: 'Container name (default: the default-container annotation, else the first)' }),
    follow: Flags.boolean({ char: 'f', description: 'Keep printing as the container writes', default: false }),
    previous: Flags.boolean({ char: 'p', description: "The previous (terminated) instance's logs", default: false }),
    tail: Flags.integer({ description: 'Only the last N lines (-1, as kubectl: all of them; 10 with -l)' }),
    timestamps: Flags.boolean({ description: 'Prefix each line with its time', default: false }),
    since: Flags.string({ description: 'Only lines newer than this duration (5s, 2m, 3h)' }),
    'since-time': Flags.string({ description: 'Only lines written at or after this time (RFC 3339)' }),
    'limit-bytes': Flags.integer({ description: 'At most this many bytes of each log' }),
    'all-containers': Flags.boolean({ description: "Every container's logs, init containers first", default: false }),
    prefix: Flags.boolean({ description: 'Begin each line with its source: [pod/NAME/CONTAINER]', default: false }),
    'all-pods': Flags.boolean({ description: "Every pod's logs of a workload (TYPE/NAME); sets --prefix", default: false }),
    selector: selectorFlag,
    'max-log-requests': Flags.integer({ description: 'At most this many logs followed at once', default: 5 }),
    namespace: namespaceFlag,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Logs);
    if (!args.pod && !flags.selector) throw new UserError('usage', USAGE);
    if (args.pod && flags.selector) throw new UserError('usage', 'only a selector (-l) or a POD name is allowed');
    if (args.container && flags.container) throw new UserError('usage', 'only one of -c or an inline [CONTAINER] arg is allowed');
    const wanted = args.container ?? flags.container;
    if (flags['all-containers'] && wanted)
      throw new UserError('usage', `--all-containers=true should not be specified with container name ${wanted}`);
    const selector = flags.selector === undefined ? undefined : parseSelectorFlag(flags.selector);
    const request = logRequest(flags, selector !== undefined);
    const choice = { all: flags['all-containers'], container: wanted };
    const everyPod = flags['all-pods'];
    // kubectl says which container it defaulted to only for one pod.
    const warn = (m: string) => everyPod || this.logToStderr(m);
    const rootDir = this.rootDir(flags);
    const node = await NodeClient.find(rootDir);
    const namespace = flags.namespace ?? 'default';
    const interrupted = this.interruptSignal();
    const print = async (sources: LogSource[]) => {
      const options = { follow: flags.follow, prefix: flags.prefix || everyPod, maxRequests: flags['max-log-requests'] };
      await printLogs(sources, options, interrupted, (chunk) => process.stdout.write(chunk));
    };
    if (node) {
      const nodePods = async () => (await node.json<PodList>('/pods')).body.items;
      let pods: Pod[];
      if (selector) pods = selected(inNamespace(await nodePods(), namespace), selector);
      else {
        // A workload's pods come picked from the node's pods; a pod's name is looked for in them here.
        const picked = await resolvePods(args.pod!, flags.namespace, rootDir, node, 'logs', everyPod);
        if (picked.note) this.logToStderr(picked.note);
        const all = picked.pods ? [] : await nodePods();
        const found = picked.pods ?? all.filter((p) => p.metadata.namespace === picked.namespace && p.metadata.name === picked.names[0]);
        if (found.length === 0)
          throw podNotFound(
            picked.names[0],
            all.map((p) => p.metadata.name!),
          );
        pods = found;
      }
      if (pods.length === 0) return this.logToStderr(`No resources found in ${namespace} namespace.`);
      return print(nodeLogSources(node, pods, choice, request, warn));
    }
    const client = await this.connectRuntime(flags);
    try {
      let targets: { namespace: string; name: string }[];
      if (selector) targets = await this.runtimePods(client, namespace, selector);
      else {
        const picked = await resolvePods(args.pod!, flags.namespace, rootDir, undefined, 'logs', everyPod);
        if (picked.note) this.logToStderr(picked.note);
        targets = picked.names.map((name) => ({ namespace: picked.namespace, name }));
      }
      if (targets.length === 0) return this.logToStderr(`No resources found in ${namespace} namespace.`);
      const sources: LogSource[] = [];
      for (const t of targets) sources.push(...(await runtimeLogSources(client, t.namespace, t.name, choice, request, warn)));
      await print(sources);
    } finally {
      client.close();
    }
  }

  /**
   * Without a node: the pods of NAMESPACE whose sandboxes carry labels
   * SELECTOR matches (the kubelet copies a pod's labels onto its sandbox).
   */
  private async runtimePods(client: CriClient, namespace: string, selector: LabelSelector): Promise<{ namespace: string; name: string }[]> {
    const labelSelector = { [KubeletLabels.podNamespace]: namespace };
    const [sandboxes, containers] = await Promise.all([client.listPodSandbox({ labelSelector }), client.listContainers({ labelSelector })]);
    // A removed pod's sandbox can outlive its containers: only pods with a container have a log.
    const withLogs = new Set(containers.map((c) => c.labels[KubeletLabels.podName]));
    const names = new Set(sandboxes.filter((s) => selectorMatches(selector, s.labels)).map((s) => s.labels[KubeletLabels.podName]));
    return [...names]
      .filter((name) => withLogs.has(name))
      .sort(compareStrings)
      .map((name) => ({ namespace, name }));
  }
}

const inNamespace = (pods: Pod[], namespace: string) =>
  pods.filter((p) => p.metadata.namespace === namespace).sort((a, b) => compareStrings(a.metadata.name!, b.metadata.name!));
