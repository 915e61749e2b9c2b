import { BaseCommand } from '../cli/base-command.js';
import { notBuilt } from '../cli/not-built.js';

export default class Apply extends BaseCommand {
  static override summary = "Apply manifests once (runOnce): run every pod until Running or Succeeded, then report.";
  static override description = 'Not built yet: says so and exits with code 2.';
  static override strict = false;

  async run(): Promise<void> {
    notBuilt('apply', "issue #3 (the engine)");
  }
}
