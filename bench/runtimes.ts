import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CriClient } from '../src/cri/client.js';
import { nodeEnv, nodeFlags } from './agent.js';

const repo = join(import.meta.dirname, '..');

export interface BenchRuntime {
  name: string;
  endpoint: string;
  /** The runtime's own process, where the bench started it (the embedded runtime). */
  pid?: number;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Written to `<root>/registries.yaml` (real images) when given. */
  registries?: string;
  sandbox?: 'auto' | 'off';
  /** Written to `<root>/cni/net.d/10-bench.conflist` (a pod network) when given. */
  cni?: string;
  name?: string;
}

/** The embedded runtime as users get it: `bin/run.js runtime serve`, its own process. */
export async function startEmbedded(options: EmbeddedOptions = {}): Promise<BenchRuntime> {
  const root = mkdtempSync(join(tmpdir(), 'knode-bench-'));
  if (options.registries !== undefined) writeFileSync(join(root, 'registries.yaml'), options.registries);
  if (options.cni !== undefined) {
    mkdirSync(join(root, 'cni', 'net.d'), { recursive: true });
    writeFileSync(join(root, 'cni', 'net.d', '10-bench.conflist'), options.cni);
  }
  const args = [
    'runtime',
    'serve',
    '--root-dir',
    root,
    '--shutdown-grace-period',
    '0',
    ...(options.sandbox ? ['--sandbox', options.sandbox] : []),
  ];
  const child = spawn(process.execPath, [...nodeFlags('runtime'), join(repo, 'bin/run.js'), ...args], {
    stdio: 'ignore',
    env: nodeEnv(),
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const endpoint = `unix://${join(root, 'run/runtime.sock')}`;
  await waitForVersion(endpoint);
  return {
    name: options.name ?? 'embedded',
    endpoint,
    pid: child.pid,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * A real containerd (needs root): Debian's 1.6 from test/containerd/containerd.sh,
 * or 2.x built from the Go module proxy by test/peers/containerd2.sh.
 */
export async function startContainerd(which: '1.6' | '2' = '1.6'): Promise<BenchRuntime> {
  const script = join(repo, which === '2' ? 'test/peers/containerd2.sh' : 'test/containerd/containerd.sh');
  const dir = mkdtempSync(join(tmpdir(), 'kctr-bench-'));
  const endpoint = execFileSync('bash', [script, 'up', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  const version = await waitForVersion(endpoint);
  return {
    name: `containerd ${version}`,
    endpoint,
    stop: async () => {
      execFileSync('bash', [script, 'down', dir], { stdio: 'inherit' });
    },
  };
}

async function waitForVersion(endpoint: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const client = new CriClient(endpoint, { requestTimeoutMs: 500 });
    try {
      return (await client.version()).runtimeVersion;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      client.close();
    }
  }
}
