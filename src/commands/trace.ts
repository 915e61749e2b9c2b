import { Args, Flags } from '@oclif/core';
import { writeFileSync } from 'node:fs';
import { BaseCommand } from '../cli/base-command.js';
import { NodeClient } from '../cli/node-client.js';
import type { PodTrace } from '../engine/trace.js';
import { formatWaterfall, toChromeTrace } from '../ui/trace-view.js';
import { nearHint } from '../util/near-names.js';
import { UserError } from '../util/user-error.js';

export default class Trace extends BaseCommand {
  static override summary = "Show a pod's start-up as a waterfall of stages.";
  static override description = `From the running node: each stage from seen by a source to Ready, when it happened and how long it took; the slowest is marked. --all shows every start of the pod the node kept. See docs/cli.md.`;

  static override examples = [
    '<%= config.bin %> trace hello-myhost',
    '<%= config.bin %> trace default/web-myhost --json',
    '<%= config.bin %> trace web-myhost --out web.trace.json   # open in https://ui.perfetto.dev',
  ];

  static override args = { pod: Args.string({ description: 'The pod, namespace/name or name (namespace default)', required: true }) };

  static override flags = {
    json: Flags.boolean({ description: 'Print the trace as JSON', default: false }),
    out: Flags.string({ description: 'Also write a Chrome trace-event file (opens in Perfetto)' }),
    all: Flags.boolean({ description: 'Every trace of the pod, not just the newest', default: false }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Trace);
    const rootDir = this.rootDir(flags);
    const node = await NodeClient.find(rootDir);
    if (!node)
      throw new UserError('usage', `no node runs under ${rootDir}`, 'traces are recorded by a running node: start it with `knode run`');
    const [namespace, name] = args.pod.includes('/') ? args.pod.split('/', 2) : ['default', args.pod];
    const res = await node.json<{ traces?: PodTrace[]; message?: string; suggestions?: string[] }>(
      `/traces/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`,
    );
    if (res.status !== 200 || !res.body.traces) {
      throw new UserError('workloadFailed', res.body.message ?? `no trace for ${args.pod}`, nearHint(res.body.suggestions));
    }
    const traces = flags.all ? res.body.traces : res.body.traces.slice(0, 1);
    if (flags.out) {
      writeFileSync(flags.out, JSON.stringify(toChromeTrace(traces)));
      this.logToStderr(`wrote ${flags.out} (Chrome trace-event JSON; open it in https://ui.perfetto.dev)`);
    }
    if (flags.json) this.log(JSON.stringify(flags.all ? traces : traces[0], null, 2));
    else this.log(traces.map(formatWaterfall).join('\n\n'));
  }
}
