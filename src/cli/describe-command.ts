import { BaseCommand } from './base-command.js';

/**
 * A `describe KIND` command: `describe()` gives its text, which `run()`
 * writes, so that `knode describe` can join the texts of several kinds.
 */
export abstract class DescribeCommand extends BaseCommand {
  // oclif's manifest gathers a command's static properties up its classes only while a class has some of its own.
  static override baseFlags = BaseCommand.baseFlags;

  /** The text the command shows; kubectl's error when nothing is found. */
  abstract describe(): Promise<string>;

  async run(): Promise<void> {
    process.stdout.write(await this.describe());
  }
}
