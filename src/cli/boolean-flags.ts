/**
 * Rewrites kubectl's `--flag=true|false` spelling of the given boolean flags
 * into what the parser takes (`--flag`, `--no-flag`); other arguments pass as
 * they are, and nothing after `--`.
 */
export function booleanFlagValues(argv: string[], names: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') return [...out, ...argv.slice(i)];
    const match = /^--([^=]+)=(true|false)$/.exec(arg);
    if (match && names.includes(match[1])) out.push(match[2] === 'true' ? `--${match[1]}` : `--no-${match[1]}`);
    else out.push(arg);
  }
  return out;
}

/** Whether ARGV (up to `--`) gives the flag NAME itself, in any spelling: `--name`, `--no-name`, `--name=…`. */
export function flagGiven(argv: string[], name: string): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === `--${name}` || a === `--no-${name}` || a.startsWith(`--${name}=`));
}
