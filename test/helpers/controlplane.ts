import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// No import of the vitest helpers: the benchmarks start control planes too.
const script = join(import.meta.dirname, '../peers/controlplane.sh');

/** What `controlplane.sh up` prints. */
export interface ControlPlaneInfo {
  apiserver: string;
  kubeconfig: string;
  ca: string;
  /** The kubectl binary. */
  kubectl: string;
  version: string;
  dir: string;
  etcd: { url: string; port: number; pid: number };
  kubeApiserver: { port: number; pid: number };
}

export interface ControlPlane extends Omit<ControlPlaneInfo, 'kubectl'> {
  kubectlPath: string;
  /** A kubeconfig for a node (client certificate CN=system:node:NAME, O=system:nodes). */
  nodeKubeconfig(name: string): string;
  /** A new bootstrap token (kubeadm token create; ttl a Go duration, 24h), with the CA pin and the apiserver's host:port for knode join. */
  joinToken(ttl?: string): { token: string; caCertHash: string; apiserver: string };
  /** The real kubectl, as the admin; never throws: the exit code is in the answer. */
  kubectl(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** The same, with `input` on kubectl's stdin. */
  kubectlInput(input: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** kubectl that keeps running (port-forward), its output gathered as it comes; stop() ends it. */
  kubectlLive(...args: string[]): { out(): string; err(): string; stop(): void };
  /** kubectl ... -o json, parsed; throws with kubectl's stderr when it fails. */
  kubectlJson<T = Record<string, unknown>>(...args: string[]): Promise<T>;
  /** Stops the apiserver and starts it again: every watch is cut, old resourceVersions are gone (410). */
  restartApiserver(): void;
  stop(): void;
}

/**
 * A real etcd and kube-apiserver on 127.0.0.1 (and the scheduler and
 * controller manager with `controllers`), from test/peers/controlplane.sh.
 */
export function startControlPlane(options: { controllers?: boolean; signingDuration?: string } = {}): ControlPlane {
  const dir = mkdtempSync(join(tmpdir(), 'knode-cp-'));
  const args = ['up', dir, ...(options.controllers ? ['--with-controllers'] : [])];
  const env = { ...process.env, ...(options.signingDuration ? { CONTROLPLANE_SIGNING_DURATION: options.signingDuration } : {}) };
  const out = execFileSync('bash', [script, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], env });
  const info = JSON.parse(out.trim().split('\n').at(-1)!) as ControlPlaneInfo;
  const kubectlInput = (input: string | undefined, ...kargs: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(info.kubectl, ['--kubeconfig', info.kubeconfig, ...kargs], { encoding: 'utf8' }, (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
      });
      if (input !== undefined) child.stdin?.end(input);
    });
  const kubectl = (...kargs: string[]) => kubectlInput(undefined, ...kargs);
  return {
    ...info,
    kubectlPath: info.kubectl,
    nodeKubeconfig: (name) =>
      execFileSync('bash', [script, 'node-kubeconfig', dir, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim(),
    joinToken(ttl = '24h') {
      const line = execFileSync('bash', [script, 'join-token', dir, ttl], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
      const answer = JSON.parse(line.trim()) as { token: string; caCertHash: string; apiserver: string };
      return { ...answer, apiserver: new URL(answer.apiserver).host };
    },
    kubectl,
    kubectlInput,
    kubectlLive(...kargs: string[]) {
      const child = spawn(info.kubectl, ['--kubeconfig', info.kubeconfig, ...kargs], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      return { out: () => out, err: () => err, stop: () => void child.kill('SIGKILL') };
    },
    async kubectlJson<T>(...kargs: string[]): Promise<T> {
      const answer = await kubectl(...kargs, '-o', 'json');
      if (answer.code !== 0) throw new Error(`kubectl ${kargs.join(' ')}: ${answer.stderr.trim()}`);
      return JSON.parse(answer.stdout) as T;
    },
    restartApiserver: () => execFileSync('bash', [script, 'restart-apiserver', dir], { stdio: ['ignore', 'ignore', 'inherit'] }),
    stop: () => execFileSync('bash', [script, 'down', dir], { stdio: 'inherit' }),
  };
}

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * `knode join` as `kubeadm token create --print-join-command` prints it, with a
 * node's own flags (loopback address, its own kubelet API port, no read-only
 * port, NDJSON output): the arguments after bin/run.js.
 */
export function knodeJoinArgs(
  joining: { token: string; caCertHash: string; apiserver: string },
  node: { name: string; root: string; port: number },
): string[] {
  return [
    'join',
    joining.apiserver,
    '--token',
    joining.token,
    '--discovery-token-ca-cert-hash',
    joining.caCertHash,
    '--node-name',
    node.name,
    '--root-dir',
    node.root,
    '--node-ip',
    '127.0.0.1',
    '--port',
    String(node.port),
    '--read-only-port',
    '0',
    '--output',
    'json',
  ];
}
