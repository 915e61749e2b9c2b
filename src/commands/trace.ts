import { BaseCommand } from '../cli/base-command.js';
import { notBuilt } from '../cli/not-built.js';

export default class Trace extends BaseCommand {
  static override summary = "Show a pod's start-up as a waterfall of stages.";
  static override description = 'Not built yet: says so and exits with code 2.';
  static override strict = false;

  async run(): Promise<void> {
    notBuilt('trace', "issue #5 (the node's faces)");
  }
}
