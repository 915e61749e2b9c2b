// oclif's hook for a command knode does not have: kubectl's words and a
// hint (src/cli/unknown-command.ts) instead of oclif's `command x not found`.
import type { Hook } from '@oclif/core';
import { unknownCommand } from '../cli/unknown-command.js';
import { ExitCode } from '../util/user-error.js';

const hook: Hook.CommandNotFound = async function ({ id, config }) {
  const { message, hint } = unknownCommand(id, [...config.commandIDs]);
  process.stderr.write(`Error: ${message}\nHint: ${hint}\n`);
  this.exit(ExitCode.usage);
};

export default hook;
