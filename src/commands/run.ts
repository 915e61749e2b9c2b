import { BaseCommand } from '../cli/base-command.js';
import { notBuilt } from '../cli/not-built.js';

export default class Run extends BaseCommand {
  static override summary = "Run the node: drive pods from static manifests, a URL or an apiserver to their desired state.";
  static override description = 'Not built yet: says so and exits with code 2.';
  static override strict = false;

  async run(): Promise<void> {
    notBuilt('run', "issue #3 (the engine)");
  }
}
