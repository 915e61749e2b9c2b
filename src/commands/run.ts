import { isStaticPod } from '../engine/api/pod-util.js';
import { Flags } from '@oclif/core';
import { localWorkloads, startWorkloads } from '../cli/workloads.js';
import { BaseCommand, type BaseFlags } from '../cli/base-command.js';
import { kubeletConfigFromFlags, kubeletFlags } from '../cli/kubelet-flags.js';
import { joinCluster, startNodeServers } from '../cli/node-servers.js';
import { bootstrapCredentials, startClientRotation } from '../cli/node-credentials.js';
import type { KubeletConfiguration } from '../engine/config/kubelet-config.js';
import { RealClock } from '../util/clock.js';
import { checkRunConfig } from '../cli/run-config.js';
import { printConfig } from '../cli/print-config.js';
import { superviseEmbeddedRuntime } from '../cli/runtime-supervisor.js';
import { nextStopSignal } from '../cli/signals.js';
import { Kubelet } from '../engine/kubelet.js';
import { showNode, type LogFormat, type NodeOutput } from '../cli/node-faces.js';
import { rootPaths } from '../util/paths.js';

export type RunFlags = BaseFlags<typeof Run>;

export default class Run extends BaseCommand {
  static override summary = 'Run the node: drive pods from static manifests or a URL to their desired state.';
  static override description = `The long-running kubelet: keeps the pods of --static-dir, --manifest-url and --kubeconfig at their spec, and adopts the pods the runtime already runs for this node. SIGINT/SIGTERM leave the containers running; --drain-on-exit stops every pod first. See docs/cli.md and docs/configuration.md.`;

  static override examples = [
    '<%= config.bin %> run --static-dir examples',
    '<%= config.bin %> run --static-dir /etc/knode/pods --node-name edge-1 --output json',
    '<%= config.bin %> run --static-dir pods --output plain -v 2 --log-format json 2>>/var/log/knode.log',
    "<%= config.bin %> run --manifest-url http://config.local/pods.yaml --manifest-url-header 'Authorization: Bearer x'",
    '<%= config.bin %> run --static-dir pods --runtime-endpoint unix:///run/containerd/containerd.sock',
    '<%= config.bin %> run --static-dir pods --drain-on-exit',
    '<%= config.bin %> run --kubeconfig /etc/knode/node.kubeconfig --node-name edge-1 --node-labels tier=edge',
  ];

  static override flags = {
    output: Flags.string({
      description:
        'tui: the live view (default on a terminal); plain: log lines on stderr (default otherwise); json: NDJSON events on stdout',
      options: ['tui', 'plain', 'json'],
    }),
    'print-config': Flags.boolean({
      description: 'Print the effective configuration (defaults, --config, flags) as a KubeletConfiguration and exit',
      default: false,
    }),
    'allow-remote': Flags.boolean({ description: 'Let the read-only API listen on a non-loopback address', default: false }),
    'drain-on-exit': Flags.boolean({
      description:
        'On SIGINT/SIGTERM, stop every pod before exiting (a second signal stops knode without waiting for them), instead of leaving the containers running',
      default: false,
    }),
    v: Flags.integer({
      char: 'v',
      aliases: ['verbosity'],
      min: 0,
      max: 5,
      description:
        "Log verbosity, as klog's: 0 problems and the pod lifecycle, 2 adds pod UIDs, 3 the pod workers' steps, 4 relists and status changes",
      default: 0,
    }),
    'log-format': Flags.string({
      description: 'Format of the log lines on stderr (with --output plain): text, or json as Kubernetes components write it',
      options: ['text', 'json'],
      default: 'text',
    }),
    ...kubeletFlags('run'),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Run);
    await this.runNode(flags);
  }

  /**
   * The node, from its flags; `prepare` may fill the configuration first
   * (knode join: the kubeconfigs its discovery wrote).
   */
  protected async runNode(flags: RunFlags, prepare?: (config: KubeletConfiguration) => Promise<void>): Promise<void> {
    const rootDir = this.rootDir(flags);
    const warn = (message: string) => process.stderr.write(`knode: warning: ${message}\n`);
    const config = kubeletConfigFromFlags(rootDir, flags, {}, warn);
    await prepare?.(config);
    if (flags['print-config']) {
      this.log(printConfig(config));
      return;
    }
    checkRunConfig(config, flags['allow-remote']);
    const client = await this.connectRuntime({ ...flags, 'runtime-endpoint': config.containerRuntimeEndpoint || undefined });
    config.containerRuntimeEndpoint = client.endpoint;
    const clock = new RealClock();
    await bootstrapCredentials(config, clock, (message) => process.stderr.write(`knode: ${message}\n`));
    const joined = config.kubeconfig ? await joinCluster(config, clock) : undefined;
    const cluster = joined?.cluster;
    const workloads = cluster ? undefined : localWorkloads(config, rootDir);
    const kubelet = new Kubelet(config, { runtime: client, cluster, local: workloads?.api, version: this.config.version });
    const rows = workloads
      ? startWorkloads(workloads, kubelet.events, {
          pressure: () => kubelet.pressure(),
          staticPods: () => kubelet.podsWithStatus().filter(isStaticPod),
          pressureKnown: kubelet.pressureKnown(),
        })
      : undefined;
    const embedded = client.endpoint === `unix://${rootPaths(rootDir).runtimeSocket}`;
    const unsupervise = embedded ? superviseEmbeddedRuntime(kubelet, rootDir, warn) : () => {};
    const output = (flags.output ?? (process.stdout.isTTY ? 'tui' : 'plain')) as NodeOutput;
    const plain = output === 'plain';
    const face = await showNode(kubelet, output, flags.v, flags['log-format'] as LogFormat);
    rows?.announce();
    const stopped = Promise.race([nextStopSignal(), face.quit.then(() => 'quit')]);
    const servers = await startNodeServers(kubelet, config, rootDir, cluster, warn);
    await kubelet.start();
    const rotation = joined?.rotates ? startClientRotation(kubelet, config, () => joined.cluster.closeConnections()) : undefined;
    if (plain) {
      const onExit = flags['drain-on-exit'] ? 'stops every pod, then knode' : 'stops knode and leaves containers running';
      process.stderr.write(
        `knode: node ${config.nodeName} on ${kubelet.runtimeName} ${kubelet.runtimeVersion} (${client.endpoint}); API ${servers.api}; Ctrl-C ${onExit}\n`,
      );
    }
    const signal = await stopped;
    // The controllers stop first: a pod the drain stops is not replaced on a node going away, and
    // nothing new comes in while the node stops. The objects are saved again after the last statuses.
    workloads?.stop();
    const drained = flags['drain-on-exit'] && (await this.drain(kubelet, signal, plain));
    face.close();
    unsupervise();
    if (output !== 'json')
      process.stderr.write(`knode: ${signal}: stopping; ${drained ? 'its pods are stopped' : 'containers keep running'}\n`);
    rotation?.stop();
    await servers.stop();
    await kubelet.stop();
    workloads?.stop();
    client.close();
  }

  /** Stops every pod (Kubelet.drain) unless a second signal comes first; says whether the drain ended. */
  private async drain(kubelet: Kubelet, signal: string, plain: boolean): Promise<boolean> {
    if (plain)
      process.stderr.write(
        `knode: ${signal}: draining the node, stopping its pods (a second SIGINT/SIGTERM stops knode without waiting for them)\n`,
      );
    return Promise.race([kubelet.drain().then(() => true), nextStopSignal().then(() => false)]);
  }
}
