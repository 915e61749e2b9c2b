import { BaseCommand } from '../cli/base-command.js';
import { notBuilt } from '../cli/not-built.js';

export default class Status extends BaseCommand {
  static override summary = "Show the pods on this node as kubectl get pods does.";
  static override description = 'Not built yet: says so and exits with code 2.';
  static override strict = false;

  async run(): Promise<void> {
    notBuilt('status', "issue #5 (the node's faces)");
  }
}
