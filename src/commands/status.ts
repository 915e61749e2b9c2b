import { Args, Flags } from '@oclif/core';
import { documentOf, getRequest, getTables, podNamed, shows, throwNotFound, wanted as asked, workloadsAsked } from '../cli/get-request.js';
import { stringify } from 'yaml';
import { BaseCommand } from '../cli/base-command.js';
import { NodeClient } from '../cli/node-client.js';
import { podRow } from '../engine/api/printers.js';
import type { LifecycleEvent } from '../engine/events.js';
import type { Pod, PodList } from '../engine/api/v1.js';
import type { KubeObject, LabelSelector } from '../engine/api/workloads.js';
import { parseSelectorFlag, selected, selectorFlag } from '../cli/selector-flag.js';
import { offlinePods, savedObjects } from '../cli/offline-pods.js';
import { compareStrings } from '../util/compare.js';
import { podCells } from '../ui/pod-table.js';
import { UserError } from '../util/user-error.js';
import { readSummary } from '../cli/usage.js';
import { podUsage, type PodUsage } from '../ui/top-table.js';

export default class Status extends BaseCommand {
  static override summary = 'Show the pods on this node as kubectl get pods does, and its workloads as kubectl get all does.';
  static override description = `Asks the running node under --root-dir; when none runs, reads the runtime alone and says so. -o json|yaml prints a v1 PodList (or a Pod), as the Kubernetes API would. See docs/cli.md.`;

  static override examples = [
    '<%= config.bin %> status',
    '<%= config.bin %> status -o wide',
    '<%= config.bin %> status hello-myhost -o json | jq .status.phase',
    '<%= config.bin %> status --watch',
    '<%= config.bin %> status -l app=greeter',
    '<%= config.bin %> get deploy,job',
    '<%= config.bin %> get deploy/greeter -o yaml',
    '<%= config.bin %> get cm,secret,pvc -n shop',
  ];

  static override aliases = ['get'];
  // kubectl get's TYPE[,TYPE...] [NAME...] or TYPE/NAME..., or a pod's name.
  static override strict = false;
  static override args = {
    object: Args.string({
      description: 'A pod name (namespace/name or name), or TYPE[,TYPE] [NAME...], TYPE/NAME or all; every pod and workload when left out',
    }),
  };

  static override flags = {
    output: Flags.string({ char: 'o', description: 'Output format', options: ['wide', 'json', 'yaml'] }),
    watch: Flags.boolean({
      char: 'w',
      description: 'After the table, print a row each time a pod changes (needs a running node)',
      default: false,
    }),
    'all-namespaces': Flags.boolean({ char: 'A', description: 'Every namespace, with a NAMESPACE column', default: false }),
    namespace: Flags.string({
      char: 'n',
      description: "Only this namespace (default: every namespace's pods, the default namespace's other objects)",
    }),
    selector: selectorFlag,
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Status);
    const request = getRequest(argv as string[]);
    // -n: that namespace's pods and objects only; -A wins over it, as with kubectl.
    const only = flags['all-namespaces'] ? undefined : flags.namespace;
    if (only && request.pod && !request.pod.includes('/')) request.pod = `${only}/${request.pod}`;
    const rootDir = this.rootDir(flags);
    const node = await NodeClient.find(rootDir);
    // Read once, by whichever part needs it first: the pods without a node, the workload tables.
    let saved: KubeObject[] | undefined;
    const saves = () => (saved ??= savedObjects(rootDir));
    let pods: Pod[] = [];
    if (!shows(request, 'Pod')) {
      // kubectl get of workloads alone: no pods to read.
    } else if (node) {
      pods = (await node.json<PodList>('/pods')).body.items;
    } else {
      if (flags.watch)
        throw new UserError('usage', `no node runs under ${rootDir}: --watch needs one`, 'start it with `knode run --static-dir DIR`');
      this.logToStderr(
        `No node runs under ${rootDir}; showing what the runtime holds (a container reads ready while it runs: only a node runs probes).`,
      );
      const client = await this.connectRuntime(flags);
      const version = await client.version();
      // The table has no IP column: a sandbox's status is asked for only where the output shows it.
      pods = (await offlinePods(client, version.runtimeName, saves(), { addresses: flags.output !== undefined })).pods;
      client.close();
    }
    // In the apiserver's order, as kubectl lists them: by namespace, then name.
    const key = (p: Pod) => `${p.metadata.namespace}/${p.metadata.name}`;
    const selector = flags.selector === undefined ? undefined : parseSelectorFlag(flags.selector);
    const inNamespace = (only ? pods.filter((p) => p.metadata.namespace === only) : pods).sort((a, b) => compareStrings(key(a), key(b)));
    // Pods named are in the order asked, as kubectl gets each in turn.
    const wanted = selected(request.pod ? podNamed(inNamespace, request.pod) : asked(request, 'Pod', inNamespace), selector);
    // -o wide adds what kubectl top would say of each pod: the node's Summary API, or the runtime's stats without a node.
    const usage = flags.output === 'wide' && wanted.length > 0 ? await this.usage(node, rootDir, flags) : undefined;
    // Beside the pods, the workloads the local controllers run, as `kubectl get all` lists them (-l: by their own labels).
    const namespace = flags['all-namespaces'] ? undefined : (only ?? 'default');
    const workloads = request.pod ? [] : selected(workloadsAsked(request, saves(), namespace), selector);
    const structured = flags.output === 'json' || flags.output === 'yaml';
    if (structured && request.kinds?.some((k) => k !== 'Pod')) {
      const value = documentOf([...wanted, ...workloads], request);
      this.log(flags.output === 'json' ? JSON.stringify(value, null, 2) : stringify(value).trimEnd());
    } else if (structured) this.print(wanted, flags.output!, !!request.pod);
    else {
      const tables = getTables(request, wanted, workloads, { now: Date.now(), namespace, wide: flags.output === 'wide', usage });
      // kubectl get says "No resources found" only when it has nothing at all to show.
      if (tables.length > 0) this.log(tables.join('\n\n'));
      else if (request.notFound.length === 0) this.logToStderr(only ? `No resources found in ${only} namespace.` : 'No resources found');
    }
    throwNotFound(request);
    if (flags.watch && node && shows(request, 'Pod'))
      await this.watch(node, request.pod, selector, flags.output === 'wide', flags['all-namespaces']);
  }

  private async usage(
    node: NodeClient | undefined,
    rootDir: string,
    flags: { 'root-dir'?: string; 'runtime-endpoint'?: string },
  ): Promise<Map<string, PodUsage>> {
    // A CPU rate needs two readings: a pod just seen has none in the first, and is read again a second later.
    const summary = await readSummary(node, rootDir, () => this.connectRuntime(flags), true);
    return new Map(summary.pods.map((p) => [`${p.podRef.namespace}/${p.podRef.name}`, podUsage(p)]));
  }

  /** -o json|yaml of pods alone: a v1 PodList, or the one pod asked for by name. */
  private print(pods: Pod[], output: string, single: boolean): void {
    const value =
      single && pods.length === 1 ? pods[0] : { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '' }, items: pods };
    this.log(output === 'json' ? JSON.stringify(value, null, 2) : stringify(value).trimEnd());
  }

  /** kubectl get -w: a row for each change of a pod's status. */
  private async watch(
    node: NodeClient,
    name: string | undefined,
    selector: LabelSelector | undefined,
    wide: boolean,
    allNamespaces: boolean,
  ): Promise<void> {
    const interrupted = this.interruptSignal();
    for await (const event of node.ndjson<LifecycleEvent>('/events', interrupted)) {
      if (event.type !== 'StatusChanged' && event.type !== 'PodRemoved') continue;
      const pods = (await node.json<PodList>('/pods')).body.items;
      const pod = pods.find((p) => `${p.metadata.namespace}/${p.metadata.name}` === event.pod);
      if (!pod || (name && pod.metadata.name !== name && event.pod !== name) || selected([pod], selector).length === 0) continue;
      this.log(podCells(podRow(pod), Date.now(), wide, allNamespaces).join('   '));
    }
  }
}
