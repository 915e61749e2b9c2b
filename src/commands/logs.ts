import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { NodeClient } from '../cli/node-client.js';
import type { Pod, PodList } from '../engine/api/v1.js';
import { KubeletLabels } from '../cri/types.js';
import { readContainerLog } from '../engine/logs.js';
import { UserError } from '../util/user-error.js';
import { namespaceFlag } from '../cli/streaming-command.js';
import { resolvePod } from '../cli/workload-target.js';
import { containerOfPod, containerOfRuntime, podNotFound } from '../cli/pod-target.js';

export default class Logs extends BaseCommand {
  static override summary = "Print a container's logs, as kubectl logs does.";
  static override description = `Reads through the running node, or straight from the runtime when no node runs. See docs/cli.md.`;
  static override examples = [
    '<%= config.bin %> logs hello-myhost',
    '<%= config.bin %> logs deploy/greeter',
    '<%= config.bin %> logs web-myhost -c app -f',
    '<%= config.bin %> logs crasher-myhost --previous --tail 20',
  ];

  static override args = {
    pod: Args.string({
      description: 'The pod: its name, namespace/name, or TYPE/NAME as kubectl takes it (pod/web, deploy/web, job/pi…)',
      required: true,
    }),
  };

  static override flags = {
    container: Flags.string({ char: 'c', description: 'Container name (default: the default-container annotation, else the first)' }),
    follow: Flags.boolean({ char: 'f', description: 'Keep printing as the container writes', default: false }),
    previous: Flags.boolean({ char: 'p', description: "The previous (terminated) instance's logs", default: false }),
    tail: Flags.integer({ description: 'Only the last N lines (-1, as kubectl: all of them)' }),
    timestamps: Flags.boolean({ description: 'Prefix each line with its time', default: false }),
    namespace: namespaceFlag,
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Logs);
    const rootDir = this.rootDir(flags);
    const node = await NodeClient.find(rootDir);
    const { namespace, name, note, pod: picked } = await resolvePod(args.pod, flags.namespace, rootDir, node, 'logs');
    if (note) this.logToStderr(note);
    const interrupted = this.interruptSignal();
    if (node) {
      const pod = picked ?? (await this.nodePod(node, args.pod, namespace, name));
      const container = containerOfPod(pod, flags.container, (m) => this.logToStderr(m));
      const query = new URLSearchParams({
        follow: String(flags.follow),
        previous: String(flags.previous),
        timestamps: String(flags.timestamps),
      });
      if (flags.tail !== undefined && flags.tail >= 0) query.set('tailLines', String(flags.tail));
      const res = await node.open(`/containerLogs/${namespace}/${name}/${container}?${query}`, interrupted);
      if (res.statusCode !== 200) {
        let text = '';
        for await (const chunk of res) text += chunk;
        throw new UserError('workloadFailed', (JSON.parse(text) as { message: string }).message);
      }
      try {
        for await (const chunk of res) process.stdout.write(chunk);
      } catch (err) {
        if (!interrupted.aborted) throw err;
      }
      return;
    }
    await this.fromRuntime(flags, namespace, name, interrupted);
  }

  /** The running node's pod NAMESPACE/NAME; kubectl's not-found error, with the names it has, when there is none. */
  private async nodePod(node: NodeClient, arg: string, namespace: string, name: string): Promise<Pod> {
    const pods = (await node.json<PodList>('/pods')).body.items;
    const pod = pods.find((p) => p.metadata.namespace === namespace && p.metadata.name === name);
    if (!pod)
      throw podNotFound(
        name,
        pods.map((p) => p.metadata.name!),
      );
    return pod;
  }

  /** Without a node: the runtime's record of the container says where its log is. */
  private async fromRuntime(
    flags: {
      container?: string;
      follow: boolean;
      previous: boolean;
      tail?: number;
      timestamps: boolean;
      'root-dir'?: string;
      'runtime-endpoint'?: string;
    },
    namespace: string,
    name: string,
    signal: AbortSignal,
  ): Promise<void> {
    const client = await this.connectRuntime(flags);
    try {
      const labelSelector = { [KubeletLabels.podName]: name, [KubeletLabels.podNamespace]: namespace };
      const [containers, sandboxes] = await Promise.all([
        client.listContainers({ labelSelector }),
        client.listPodSandbox({ labelSelector }),
      ]);
      containers.sort((a, b) => b.createdAt - a.createdAt);
      if (containers.length === 0) throw podNotFound(name, []);
      // The newest sandbox's annotations are the pod's as the runtime keeps them (the default-container one among them).
      const annotations = sandboxes.sort((a, b) => b.createdAt - a.createdAt)[0]?.annotations ?? {};
      const wanted = containerOfRuntime(containers, annotations, flags.container, name, (m) => this.logToStderr(m));
      const instance = containers.filter((c) => c.labels[KubeletLabels.containerName] === wanted)[flags.previous ? 1 : 0];
      if (!instance)
        throw new UserError(
          'workloadFailed',
          `${flags.previous ? 'previous terminated ' : ''}container "${wanted}" in pod "${name}" not found`,
        );
      const status = (await client.containerStatus(instance.id)).status!;
      const lines = readContainerLog(status.logPath, {
        tailLines: flags.tail,
        timestamps: flags.timestamps,
        follow: flags.follow && !flags.previous,
        signal,
        stillRunning: async () => (await client.containerStatus(instance.id).catch(() => undefined))?.status?.state === 'CONTAINER_RUNNING',
      });
      for await (const line of lines) process.stdout.write(`${line}\n`);
    } finally {
      client.close();
    }
  }
}
