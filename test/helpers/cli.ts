import { spawn, type ChildProcess } from 'node:child_process';
import { cliEntry } from './runtimes.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `bin/run.js` as a user would, and collects what it prints. */
export function knode(
  args: string[],
  options: { env?: Record<string, string>; input?: string; timeoutMs?: number; onStdout?: (text: string) => void } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliEntry, ...args], {
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      options.onStdout?.(String(d));
    });
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`knode ${args.join(' ')} did not finish in time; stdout: ${stdout} stderr: ${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

export interface RunningNode {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr together. */
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `knode run --static-dir DIR` (node name e2e, plain output when not a TTY) as a child process. */
export function startKnodeRun(staticDir: string, root: string, args: string[] = []): RunningNode {
  const child = spawn(process.execPath, [cliEntry, 'run', '--static-dir', staticDir, '--root-dir', root, '--node-name', 'e2e', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/** Stops a node started by startKnodeRun (SIGTERM, when it still runs) and the embedded runtime under its root dir. */
export async function stopKnodeRun(node: RunningNode, rootArgs: string[]): Promise<void> {
  if (node.child.exitCode === null) {
    node.child.kill('SIGTERM');
    await node.exited;
  }
  await knode(['runtime', 'stop', ...rootArgs]);
}
