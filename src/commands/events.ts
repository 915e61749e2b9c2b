import { Flags } from '@oclif/core';
import { stringify } from 'yaml';
import { BaseCommand } from '../cli/base-command.js';
import { NodeClient } from '../cli/node-client.js';
import { describedKind } from '../cli/target-kinds.js';
import type { Event } from '../engine/api/cluster.js';
import type { EventLogChange } from '../engine/event-log.js';
import { EventTable, sortEvents } from '../ui/event-table.js';
import { UserError } from '../util/user-error.js';

/** The kinds `--for` takes, by the names kubectl accepts for them. */
const NODE_KINDS = new Set(['node', 'nodes', 'no']);

export default class Events extends BaseCommand {
  static override summary = "List the node's events, as kubectl events does.";
  static override description = `The Kubernetes Events the node's kubelet recorded (Pulling, Pulled, Created, Started, Killing, Unhealthy, BackOff, Failed...), and its workload controllers (ScalingReplicaSet, SuccessfulCreate, Completed...), over the last hour, as the apiserver keeps them: repeats counted on one event. They are the running node's memory: without a node under --root-dir there are none to show. See docs/cli.md.`;

  static override examples = [
    '<%= config.bin %> events',
    '<%= config.bin %> events --for pod/web-myhost --watch',
    '<%= config.bin %> events -A --types Warning',
    '<%= config.bin %> events -o json | jq .items[].reason',
  ];

  static override flags = {
    for: Flags.string({ description: 'Only the events of this object: pod/NAME (or node/NAME)' }),
    namespace: Flags.string({ char: 'n', description: 'The namespace (default: default)' }),
    'all-namespaces': Flags.boolean({ char: 'A', description: 'Events of every namespace, with a NAMESPACE column', default: false }),
    watch: Flags.boolean({ char: 'w', description: 'After the list, print events as they come', default: false }),
    output: Flags.string({
      char: 'o',
      description: 'Output format: a v1 EventList (with --watch, one v1 Event per change)',
      options: ['json', 'yaml'],
    }),
    types: Flags.string({ description: 'Only events of these types (comma-separated: Normal, Warning)' }),
    'no-headers': Flags.boolean({ description: "Don't print the table's header", default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Events);
    const rootDir = this.rootDir(flags);
    const types = (flags.types ?? '').split(',').filter(Boolean);
    if (types.some((t) => !/^(normal|warning)$/i.test(t))) throw new UserError('usage', 'valid --types are Normal or Warning');
    const namespace = flags['all-namespaces'] ? undefined : (flags.namespace ?? 'default');
    const selector = this.selector(flags.for);
    const node = await NodeClient.find(rootDir);
    if (!node)
      throw new UserError(
        'usage',
        `no node runs under ${rootDir}: events are kept by a running node`,
        'start one with `knode run --static-dir DIR`; the runtime keeps no events',
      );
    const path = `/api/v1/${namespace ? `namespaces/${encodeURIComponent(namespace)}/` : ''}events`;
    const query = selector ? `?fieldSelector=${encodeURIComponent(selector)}` : '';
    const wanted = (e: Event) => types.length === 0 || types.some((t) => t.toLowerCase() === e.type.toLowerCase());
    const table = new EventTable(flags['all-namespaces']);
    // A list prints as an EventList; a watch prints each event as it comes, as kubectl's printers do.
    const print = (events: Event[] | Event, header: boolean) => {
      const value = Array.isArray(events) ? list(events) : events;
      if (flags.output === 'json') this.log(JSON.stringify(value, null, 2));
      else if (flags.output === 'yaml') this.log(`${flags.watch ? '---\n' : ''}${stringify(value).trimEnd()}`);
      else process.stdout.write(table.format(Array.isArray(events) ? events : [events], Date.now(), header && !flags['no-headers']));
    };
    if (flags.watch) return this.watch(node, `${path}${query}${query ? '&' : '?'}watch=true`, wanted, print);
    const res = await node.json<{ items: Event[]; message?: string }>(`${path}${query}`);
    if (res.status !== 200) throw new UserError('usage', res.body.message ?? `the node answered ${res.status}`);
    const events = sortEvents(res.body.items.filter(wanted));
    if (events.length === 0 && !flags.output) {
      this.logToStderr(namespace ? `No events found in ${namespace} namespace.` : 'No events found.');
      return;
    }
    print(events, true);
  }

  /** kubectl events --watch: the events kept, then every new or repeated one as it comes, a row each (deleted ones are not printed). */
  private async watch(node: NodeClient, path: string, wanted: (e: Event) => boolean, print: (event: Event, header: boolean) => void) {
    const interrupted = this.interruptSignal();
    let header = true;
    for await (const change of node.ndjson<EventLogChange>(path, interrupted)) {
      if (change.type === 'DELETED' || !wanted(change.object)) continue;
      print(change.object, header);
      header = false;
    }
  }

  /** `--for TYPE/NAME` as the field selector kubectl sends. */
  private selector(forObject: string | undefined): string | undefined {
    if (!forObject) return undefined;
    const parts = forObject.split('/');
    if (parts.length !== 2 || !parts[1]) throw new UserError('usage', '--for must be in resource/name form');
    const kind = NODE_KINDS.has(parts[0].toLowerCase()) ? 'Node' : describedKind(parts[0]);
    if (!kind)
      throw new UserError(
        'usage',
        `--for ${forObject}: the node records events of its node, its pods and the workloads it runs only`,
        'give node/NAME, pod/NAME or a workload (deploy/NAME, rs/, sts/, ds/, job/, cronjob/)',
      );
    return `involvedObject.kind=${kind},involvedObject.name=${parts[1]}`;
  }
}

function list(items: Event[]) {
  return { apiVersion: 'v1', kind: 'EventList', metadata: { resourceVersion: '' }, items };
}
