import { Args, Flags } from '@oclif/core';
import { cpus, totalmem } from 'node:os';
import { BaseCommand } from '../cli/base-command.js';
import { NodeClient } from '../cli/node-client.js';
import { readSummary } from '../cli/usage.js';
import { topNodeTable, topPodsTable, type TopSort } from '../ui/top-table.js';

export default class Top extends BaseCommand {
  static override summary = 'Show CPU and memory of the pods (or the node) as kubectl top does.';
  static override description = `Reads the running node's Summary API (CPU in millicores, memory as the working set); when no node runs, the runtime's stats. See docs/node-api.md.`;

  static override examples = ['<%= config.bin %> top', '<%= config.bin %> top --containers --sort-by memory', '<%= config.bin %> top node'];

  static override args = {
    resource: Args.string({
      description: 'pods (the default) or node',
      options: ['pods', 'pod', 'po', 'node', 'nodes', 'no'],
      default: 'pods',
    }),
  };

  static override flags = {
    containers: Flags.boolean({ description: 'A row per container', default: false }),
    'all-namespaces': Flags.boolean({ char: 'A', description: 'Show the NAMESPACE column', default: false }),
    'sort-by': Flags.string({ description: 'Sort by usage, highest first', options: ['cpu', 'memory'] }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Top);
    const rootDir = this.rootDir(flags);
    const node = await NodeClient.find(rootDir);
    if (!node) this.logToStderr(`No node runs under ${rootDir}; reading the runtime's stats.`);
    const summary = await readSummary(node, rootDir, () => this.connectRuntime(flags), true);
    if (['node', 'nodes', 'no'].includes(args.resource)) {
      this.log(topNodeTable(summary, { cpuCores: cpus().length, memoryBytes: totalmem() }));
      return;
    }
    if (!summary.pods.some((p) => p.containers.length > 0)) {
      this.logToStderr('No resources found');
      return;
    }
    this.log(
      topPodsTable(summary, { containers: flags.containers, allNamespaces: flags['all-namespaces'], sortBy: flags['sort-by'] as TopSort }),
    );
  }
}
