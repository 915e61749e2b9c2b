// What the embedded runtime asks of its host as it starts: whether PID
// namespaces can be made, whether bubblewrap can sandbox, whether overlays
// mount. Each question runs a program, and a fork of a Node process costs
// 5–10 ms of its main thread on its own, so the questions go to one shell
// that asks them all side by side. `runtime serve` starts that shell as it
// boots (src/cli/boot.ts), before its own code loads, so that the answers
// are there when the runtime wants them; the classes that use them
// (PidNamespaces, Bubblewrap, ContainerRootfs) take them made. This module
// is loaded by the boot file: it imports nothing heavy.
import type { spawn as Spawn } from 'node:child_process';
import { join } from 'node:path';
import { hostMounts, mountOf } from '../util/mountinfo.js';
import { whichSystem as which } from './executables.js';

/** Whether PID namespaces can be made (unshare) and joined (nsenter), or why not. */
export interface PidNamespaceProbe {
  available: boolean;
  reason: string;
}

/** bwrap and nsenter, and whether a sandbox tried once worked (the reason is bwrap's version when it did). */
export interface BubblewrapProbe {
  available: boolean;
  reason: string;
  bwrap: string;
  nsenter: string;
}

/**
 * Whether an overlay mounts under the runtime's `rootfs` directory (root
 * only), and whether its `containers` directory is a shared mount, so that
 * a container's mount namespace made before its root file system was
 * mounted gets that mount.
 */
export interface RootfsProbe {
  overlay: { ok: boolean; reason: string };
  /** Whether `containers` was bound onto itself here (unbound at the runtime's close); why it is not shared, when not. */
  shared: { bound: boolean; reason?: string };
}

/** The answers, as they come; the sandboxes' only where they were asked. */
export interface HostProbes {
  pidNamespaces: Promise<PidNamespaceProbe>;
  bubblewrap?: Promise<BubblewrapProbe>;
  rootfs?: Promise<RootfsProbe>;
}

/** unshare's options for a new PID namespace whose first process is PID 1, with /proc showing it. */
export const UNSHARE_PID = ['--pid', '--fork', '--kill-child', '--mount-proc'] as const;

/** How long the shell gets for every answer. */
const PROBES_TIMEOUT_MS = 10_000;

/** One question: a name for its answer, and its command; `stdout` keeps the command's output instead of its errors. */
export interface ProbeCommand {
  name: string;
  argv: readonly string[];
  stdout?: boolean;
  /** Directories made before the command. */
  dirs?: readonly string[];
  /** Commands run one after another once it has answered, not waited for. */
  then?: readonly (readonly string[])[];
}

/** A command's answer: its exit status and its output or errors on one line (or why it has none). */
export interface ProbeAnswer {
  status: number;
  text: string;
}

const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
const words = (argv: readonly string[]) => argv.map(quote).join(' ');

/**
 * A shell script that runs COMMANDS side by side and writes one line for
 * each, `NAME STATUS TEXT`, in one write (shorter than a pipe's atomic
 * size). What a command has to do after its answer (the overlay probe's
 * unmount: unmounting an overlay syncs the file system under it, seconds on
 * a busy disk) runs in the background, its output nowhere, so that the
 * shell's end does not wait for it.
 */
export function probeScript(commands: readonly ProbeCommand[]): string {
  // a: a command's errors; o: its output; either on one line (set -f: its words are not globs).
  const lines = [
    'set -f',
    'a() { n=$1; shift; t=$("$@" 2>&1 >/dev/null); s=$?; printf \'%s %s %.900s\\n\' "$n" "$s" "$(printf \'%s \' $t)"; }',
    'o() { n=$1; shift; t=$("$@" 2>/dev/null); s=$?; printf \'%s %s %.900s\\n\' "$n" "$s" "$(printf \'%s \' $t)"; }',
  ];
  for (const { name, argv, stdout, dirs = [], then = [] } of commands) {
    const ask = `${stdout ? 'o' : 'a'} ${quote(name)} ${words(argv)}`;
    const before = dirs.length > 0 ? `mkdir -p ${words(dirs)}; ` : '';
    const after = then.length > 0 ? ` { ${then.map((argv) => `${words(argv)};`).join(' ')} } </dev/null >/dev/null 2>&1 &` : '';
    lines.push(before || after ? `{ ${before}${ask};${after} } &` : `${ask} &`);
  }
  lines.push('wait');
  return lines.join('\n');
}

/**
 * Runs COMMANDS in one shell (probeScript) with SPAWN, and gives their
 * answers by name. The shell leads a process group of its own: one that has
 * not ended after TIMEOUTMS is killed with every program it started (a probe
 * that hangs), and the commands that had not answered have no answer.
 */
export function runProbes(spawn: typeof Spawn, commands: readonly ProbeCommand[], timeoutMs: number): Promise<Map<string, ProbeAnswer>> {
  return new Promise((resolve) => {
    let stdout = '';
    const child = spawn('/bin/sh', ['-c', probeScript(commands)], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    const timer = setTimeout(() => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // it ended as the timer fired
      }
    }, timeoutMs);
    timer.unref();
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.once('error', () => {}); // no shell: no answers
    child.once('close', () => {
      clearTimeout(timer);
      resolve(parseProbeAnswers(stdout));
    });
  });
}

/** The answers in the shell's output, by name. */
export function parseProbeAnswers(output: string): Map<string, ProbeAnswer> {
  const answers = new Map<string, ProbeAnswer>();
  for (const line of output.split('\n')) {
    const match = /^(\S+) (\d+) ?(.*)$/.exec(line);
    if (match) answers.set(match[1], { status: Number(match[2]), text: match[3].trim() });
  }
  return answers;
}

/** How many probes this process started: each overlay probe's directory is numbered by it. */
let probesStarted = 0;

/**
 * Asks the host what the runtime of RUNTIMEDIR needs to know, all at once
 * in one shell run with SPAWN (node:child_process's, handed in so that
 * the boot file need not load that module); the sandboxes' questions only
 * where SANDBOXES (real images, sandboxes not turned off).
 */
export function startHostProbes(spawn: typeof Spawn, runtimeDir: string, sandboxes: boolean): HostProbes {
  const commands: ProbeCommand[] = [
    { name: 'unshare', argv: ['unshare', ...UNSHARE_PID, '--', 'true'] },
    { name: 'nsenter', argv: ['nsenter', '--version'] },
  ];
  const bwrap = sandboxes ? which('bwrap') : undefined;
  const nsenter = sandboxes ? which('nsenter') : undefined;
  if (bwrap && nsenter) {
    const tried = ['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--hostname', 'knode-probe', '--ro-bind', '/', '/'];
    commands.push({ name: 'bwrap-version', argv: [bwrap, '--version'], stdout: true });
    commands.push({ name: 'bwrap', argv: [bwrap, ...tried, '--proc', '/proc', '--dev', '/dev', '--as-pid-1', '--', 'true'] });
  }
  const root = process.getuid?.() === 0;
  const rootfsDir = join(runtimeDir, 'rootfs');
  // Its own directory each time: a second probe of the same runtime dir in this process (a runtime started
  // again) must not mount where the first one's clean-up is removing.
  const overlayDir = join(rootfsDir, `probe-${process.pid}-${++probesStarted}`);
  const share = sandboxes && root ? shareCommand(join(rootfsDir, 'containers')) : undefined;
  if (sandboxes && root) {
    const [lower, upper, work, merged] = ['lower', 'upper', 'work', 'merged'].map((sub) => join(overlayDir, sub));
    commands.push({
      name: 'overlay',
      argv: ['mount', '-t', 'overlay', 'overlay', '-o', `lowerdir=${lower},upperdir=${upper},workdir=${work}`, merged],
      dirs: [lower, upper, work, merged],
      then: [
        ['umount', merged],
        ['rm', '-rf', overlayDir],
      ],
    });
    if (share?.argv) commands.push({ name: 'share', argv: share.argv, dirs: [join(rootfsDir, 'containers')] });
  }
  const ran = runProbes(spawn, commands, PROBES_TIMEOUT_MS);
  const answer = async (name: string): Promise<ProbeAnswer> =>
    (await ran).get(name) ?? { status: -1, text: `no answer within ${PROBES_TIMEOUT_MS / 1000} s` };
  return {
    pidNamespaces: pidNamespaces(answer),
    bubblewrap: !sandboxes
      ? undefined
      : !bwrap
        ? Promise.resolve({ available: false, reason: 'bubblewrap (bwrap) is not installed', bwrap: '', nsenter: '' })
        : !nsenter
          ? Promise.resolve({ available: false, reason: 'nsenter (util-linux) is not installed', bwrap, nsenter: '' })
          : bubblewrapAnswer(answer, bwrap, nsenter),
    rootfs: !sandboxes
      ? undefined
      : !root
        ? Promise.resolve({ overlay: { ok: false, reason: 'overlay mounts need root' }, shared: { bound: false } })
        : rootfsAnswer(answer, share!, join(rootfsDir, 'containers')),
  };
}

type Answer = (name: string) => Promise<ProbeAnswer>;

async function pidNamespaces(answer: Answer): Promise<PidNamespaceProbe> {
  const [unshare, nsenter] = await Promise.all([answer('unshare'), answer('nsenter')]);
  if (unshare.status === 127) return { available: false, reason: 'unshare cannot run (ENOENT)' };
  if (unshare.status !== 0) return { available: false, reason: `unshare --pid fails: ${unshare.text || `exit ${unshare.status}`}` };
  if (nsenter.status !== 0) return { available: false, reason: 'nsenter cannot run' };
  return { available: true, reason: 'unshare and nsenter' };
}

async function bubblewrapAnswer(answer: Answer, bwrap: string, nsenter: string): Promise<BubblewrapProbe> {
  const [version, tried] = await Promise.all([answer('bwrap-version'), answer('bwrap')]);
  if (tried.status !== 0)
    return { available: false, reason: `bwrap cannot make namespaces here: ${tried.text || `exit ${tried.status}`}`, bwrap, nsenter };
  return { available: true, reason: version.text, bwrap, nsenter };
}

/**
 * How DIR is made a shared mount in one mount(8) call: bound onto itself and
 * shared, or only shared where it is a mount point already (a runtime that
 * died left it); no call where the mount it is on is shared already.
 */
function shareCommand(dir: string): { argv?: string[]; own: boolean } {
  const holding = mountOf(hostMounts(), dir);
  const own = holding?.mountPoint === dir;
  if (holding?.shared !== undefined) return { own };
  return { argv: ['mount', ...(own ? ['--make-shared', dir] : ['--bind', '--make-shared', dir, dir])], own };
}

async function rootfsAnswer(answer: Answer, share: { argv?: string[]; own: boolean }, containers: string): Promise<RootfsProbe> {
  const overlay = await answer('overlay');
  const ok = { ok: overlay.status === 0, reason: overlay.status === 0 ? '' : overlay.text || `mount exited ${overlay.status}` };
  if (!share.argv) return { overlay: ok, shared: { bound: share.own } };
  const shared = await answer('share');
  if (shared.status === 0) return { overlay: ok, shared: { bound: true } };
  // The bind may have worked and the sharing not: then it is bound, to be unbound at close.
  const bound = share.own || mountOf(hostMounts(), containers)?.mountPoint === containers;
  return { overlay: ok, shared: { bound, reason: `${share.argv.slice(1).join(' ')}: ${shared.text || `exited ${shared.status}`}` } };
}

/** The probes started for a runtime directory before its runtime's code loaded (startHostProbesEarly), shared by the process's bundles. */
const EARLY = Symbol.for('knode.earlyHostProbes');

function earlyProbes(): Map<string, HostProbes> {
  const global = globalThis as Record<symbol, Map<string, HostProbes> | undefined>;
  return (global[EARLY] ??= new Map());
}

/** Starts the probes of RUNTIMEDIR now, for the runtime that will start in this process to take (takeHostProbes). */
export function startHostProbesEarly(spawn: typeof Spawn, runtimeDir: string, sandboxes: boolean): void {
  earlyProbes().set(runtimeDir, startHostProbes(spawn, runtimeDir, sandboxes));
}

/** The probes started early for RUNTIMEDIR, taken once; undefined when none were. */
export function takeHostProbes(runtimeDir: string): HostProbes | undefined {
  const early = earlyProbes().get(runtimeDir);
  earlyProbes().delete(runtimeDir);
  return early;
}
