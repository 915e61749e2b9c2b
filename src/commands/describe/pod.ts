import { booleanFlagValues } from '../../cli/boolean-flags.js';
import { Args, Flags } from '@oclif/core';
import { DescribeCommand, type Described } from '../../cli/describe-command.js';
import { NodeClient, objectEvents } from '../../cli/node-client.js';
import type { Pod, PodList } from '../../engine/api/v1.js';
import { offlinePods, savedObjects } from '../../cli/offline-pods.js';
import { describePod } from '../../ui/describe-pod.js';
import { podNotFound } from '../../cli/pod-target.js';
import { describedMatches, exactFlag, joinDescriptions, noneFound, showsEvents, type Matches } from '../../cli/describe-matching.js';

export default class DescribePod extends DescribeCommand {
  static override summary = 'Show a pod in detail, as kubectl describe pod does.';
  static override description = `The pod's spec and status from the running node under --root-dir, with its containers' states, conditions, volumes and the events the node recorded for it in the last hour. A name no pod has describes the pods whose names begin with it, as kubectl's does (describe pod web finds the static pod web-<node>). When no node runs, what the runtime holds (containers, images, states, IPs), with the spec of a pod the local controllers saved (knode apply's workloads), and says what is not known there. See docs/cli.md.`;

  static override examples = [
    '<%= config.bin %> describe pod web-myhost',
    '<%= config.bin %> describe pod kube-system/etcd-myhost',
    '<%= config.bin %> describe pod crasher -n shop --show-events=false',
  ];

  static override args = {
    pod: Args.string({ description: 'The pod, namespace/name or name; every pod when left out' }),
  };

  static override flags = {
    namespace: Flags.string({ char: 'n', description: 'The namespace (default: default)' }),
    'show-events': Flags.boolean({ description: "Show the pod's events", default: true, allowNo: true }),
    ...exactFlag,
  };

  /** What `describe pod` shows; kubectl's error when no pod is found. */
  async describe(): Promise<Described> {
    const { args, flags } = await this.parse(DescribePod, booleanFlagValues(this.argv, ['show-events']));
    const rootDir = this.rootDir(flags);
    const given = args.pod ?? '';
    const [namespace, name] = given.includes('/') ? given.split('/', 2) : [flags.namespace ?? 'default', given];
    const node = await NodeClient.find(rootDir);
    if (node) {
      const matches = find((await node.json<PodList>('/pods')).body.items, namespace, name, flags.exact);
      if (matches.objects.length === 0) return noneFound(namespace);
      const withEvents = showsEvents(matches, flags['show-events'], this.argv);
      const texts: string[] = [];
      // A static pod's events are under its own UID, not its mirror's: the node's copy has it.
      for (const pod of matches.objects)
        texts.push(describePod(pod, withEvents ? await objectEvents(node, pod.metadata) : undefined, Date.now()));
      return { text: joinDescriptions(matches, texts) };
    }
    const client = await this.connectRuntime(flags);
    try {
      const { pods, specified } = await offlinePods(client, (await client.version()).runtimeName, savedObjects(rootDir));
      const matches = find(pods, namespace, name, flags.exact);
      if (matches.objects.length === 0) return noneFound(namespace);
      const known = matches.objects.every((pod) => specified.has(pod.metadata.uid!));
      this.logToStderr(
        known
          ? `No node runs under ${rootDir}; describing what the runtime holds, with the spec the node saved: no probe runs, and events are kept by a running node only.`
          : `No node runs under ${rootDir}; describing what the runtime holds: the pod's volumes, probes, resources, QoS class and conditions are not known there, and events are kept by a running node only.`,
      );
      const texts = matches.objects.map((pod) => describePod(pod, undefined, Date.now(), specified.has(pod.metadata.uid!)));
      return { text: joinDescriptions(matches, texts) };
    } finally {
      client.close();
    }
  }
}

/** The pods `describe pod NAME` shows (NAME, or else those it begins, as kubectl's); none: kubectl's error, with a hint. */
function find(pods: Pod[], namespace: string, name: string, exact: boolean): Matches<Pod> {
  const inNamespace = pods.filter((p) => (p.metadata.namespace ?? 'default') === namespace);
  const matches = describedMatches(inNamespace, name, (p) => p.metadata.name!, exact);
  // `describe pods` that finds none says so, without an error.
  if (matches.objects.length > 0 || matches.all) return matches;
  throw podNotFound(
    name,
    pods.map((p) => p.metadata.name!),
  );
}
