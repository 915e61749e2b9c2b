import { Command } from '@oclif/core';
import { podCandidates, podPlace, type FlagSpecs } from '../../cli/complete-pods.js';
import { toComplete } from '../../cli/complete-sources.js';

export default class CompletePods extends Command {
  static override hidden = true;
  static override strict = false;
  static override summary = "The pod and workload names to complete for the shell's completion hooks (see docs/cli.md).";
  static override description = `Given the words after knode up to the cursor, after -- (the last one is being typed), prints the pod names (or workload names, or kubectl's TYPE/ words) that fit there, one a line, and exits 0; exits 1 when no pod goes there, so the shell completes as usual. Never prints an error, never starts the runtime.`;

  async run(): Promise<void> {
    // The hooks give the words after --, so that none is read as this command's flag.
    let words: string[];
    try {
      words = (await this.parse(CompletePods)).argv as string[];
    } catch {
      process.exitCode = 1;
      return;
    }
    const place = podPlace(words, (id) => this.config.findCommand(id)?.flags as FlagSpecs | undefined);
    if (!place) {
      process.exitCode = 1;
      return;
    }
    try {
      for (const name of podCandidates(await toComplete(place), place)) process.stdout.write(`${name}\n`);
    } catch {
      // A node or runtime that does not answer in time offers nothing.
    }
  }
}
