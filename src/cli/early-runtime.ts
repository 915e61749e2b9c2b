// Which command lines will start the embedded runtime, read from the words
// alone before any command code loads (src/cli/boot.ts starts it then, so
// that the runtime's start overlaps the command's own).
import { existsSync } from 'node:fs';
import { defaultRootDir, rootPaths } from '../util/paths.js';
import { flagGiven } from './boolean-flags.js';

/** The commands that connect to the runtime as soon as their flags are read. */
const CONNECTING = new Set(['apply', 'run']);

/**
 * Flags (in any spelling flagGiven reads) that say the command will not need
 * the embedded runtime (another endpoint, maybe from a config file), or will
 * not reach it (help, the printed configuration); `-h` too.
 */
const NOT_EMBEDDED = ['runtime-endpoint', 'config', 'print-config', 'help'];

/**
 * The root dir whose embedded runtime the command line ARGS (after `knode`)
 * will connect to first thing; undefined when it may not. Errs towards
 * undefined: a command left out starts its runtime itself, as before.
 */
export function earlyRuntimeRoot(args: readonly string[]): string | undefined {
  const [command, ...rest] = args;
  if (!command || !CONNECTING.has(command)) return undefined;
  if (rest.includes('-h') || NOT_EMBEDDED.some((name) => flagGiven(rest, name))) return undefined;
  // An apply of a file that is not there ends before it connects.
  if (command === 'apply') {
    const file = flagValue(rest, ['-f', '--filename']);
    if (file === undefined || (file !== '-' && !existsSync(file))) return undefined;
  }
  return flagValue(rest, ['--root-dir']) ?? defaultRootDir();
}

/**
 * For `runtime serve`: the runtime directory whose host probes can start
 * before the command's code loads (src/runtime/host-probes.ts), and whether
 * they ask about sandboxes (real images, as a registries.yaml turns on, and
 * sandboxes not turned off); undefined for any other command line.
 */
export function earlyProbesFor(args: readonly string[]): { runtimeDir: string; sandboxes: boolean } | undefined {
  const [command, sub, ...rest] = args;
  if (command !== 'runtime' || sub !== 'serve' || rest.includes('-h') || flagGiven(rest, 'help')) return undefined;
  const paths = rootPaths(flagValue(rest, ['--root-dir']) ?? defaultRootDir());
  return { runtimeDir: paths.runtimeDir, sandboxes: flagValue(rest, ['--sandbox']) !== 'off' && existsSync(paths.registryConfig) };
}

/** The value of the last of NAMES in WORDS (`--name value` or `--name=value`). */
function flagValue(words: readonly string[], names: readonly string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    for (const name of names) {
      if (word === name && i + 1 < words.length) value = words[i + 1];
      else if (word.startsWith(`${name}=`)) value = word.slice(name.length + 1);
    }
  }
  return value;
}
