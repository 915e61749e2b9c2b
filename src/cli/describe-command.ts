import { BaseCommand } from './base-command.js';

/** What a describe command shows: the descriptions, and a line for stderr (kubectl's "No resources found"). */
export interface Described {
  text: string;
  notice?: string;
}

/**
 * A `describe KIND` command: `describe()` gives what it shows, which `run()`
 * writes, so that `knode describe` can join the texts of several kinds.
 */
export abstract class DescribeCommand extends BaseCommand {
  // oclif's manifest gathers a command's static properties up its classes only while a class has some of its own.
  static override baseFlags = BaseCommand.baseFlags;

  /** What the command shows; kubectl's error when the named object is not found. */
  abstract describe(): Promise<Described>;

  async run(): Promise<void> {
    const { text, notice } = await this.describe();
    process.stdout.write(text);
    if (notice) this.logToStderr(notice);
  }
}
