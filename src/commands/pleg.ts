import { BaseCommand } from '../cli/base-command.js';
import { notBuilt } from '../cli/not-built.js';

export default class Pleg extends BaseCommand {
  static override summary = "Stream pod lifecycle events (PLEG) live.";
  static override description = 'Not built yet: says so and exits with code 2.';
  static override strict = false;

  async run(): Promise<void> {
    notBuilt('pleg', "issue #5 (the node's faces)");
  }
}
