// Starts one agent of the differentials, the real kubelet (test/peers/kubelet.sh)
// or knode (bin/run.js run), on a runtime the caller started, with the
// differential's settings (README.md beside this file) and any a suite adds;
// and stops it. harness.ts runs the corpus through them; node-lifetime/ and
// eviction/ (joined to a control plane) too.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cliEntry, repoRoot } from '../helpers/runtimes.js';
import { CLUSTER_DNS, CLUSTER_DOMAIN } from './dns-scenarios.js';
import { freePort } from '../helpers/controlplane.js';

const run = promisify(execFile);
const peers = join(repoRoot, 'test/peers');

export type AgentName = 'kubelet' | 'knode';

/** A running agent: where its manifests go, its API, its pod logs and its own log. */
export interface StartedAgent {
  pid: number;
  podsDir: string;
  podsUrl: string;
  /** The base URL serving /containerLogs: the kubelet's HTTPS port (anonymous, a self-signed certificate), knode's read-only port. */
  apiUrl: string;
  /** Where the agent keeps its pods' log directories (`<namespace>_<name>_<uid>`). */
  podLogsDir: string;
  log: string;
  stop(): Promise<void>;
}

/** Settings beyond the differential's own. */
export interface AgentSettings {
  /** A node's credentials (controlplane.ts nodeKubeconfig): the agent joins that cluster as the node. */
  kubeconfig?: string;
  /** false: no cluster DNS nor domain (ClusterFirst pods then get the host's resolver and a MissingClusterDNS event). */
  clusterDns?: boolean;
  /** The kubelet's, as KubeletConfiguration YAML fields (kubelet.sh --config-extra). */
  kubeletConfig?: string;
  /** knode's, as KubeletConfiguration YAML fields (a `knode run --config` file). */
  knodeConfig?: string;
  /** knode's, as flags of `knode run`. */
  knodeArgs?: string[];
}

/** The flags both agents take for SETTINGS' cluster DNS and kubeconfig. */
function sharedArgs(settings: AgentSettings): string[] {
  const args = settings.clusterDns === false ? [] : ['--cluster-dns', CLUSTER_DNS, '--cluster-domain', CLUSTER_DOMAIN];
  return settings.kubeconfig ? [...args, '--kubeconfig', settings.kubeconfig] : args;
}

/** AGENT under DIR on the runtime at ENDPOINT, with the differential's settings and SETTINGS. */
export function startAgent(
  agent: AgentName,
  dir: string,
  endpoint: string,
  nodeName: string,
  settings: AgentSettings = {},
): Promise<StartedAgent> {
  return agent === 'kubelet' ? startKubelet(dir, endpoint, nodeName, settings) : startKnode(dir, endpoint, nodeName, settings);
}

async function startKubelet(dir: string, endpoint: string, nodeName: string, settings: AgentSettings): Promise<StartedAgent> {
  const extra: string[] = [];
  if (settings.kubeletConfig) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config-extra.yaml'), settings.kubeletConfig);
    extra.push('--config-extra', join(dir, 'config-extra.yaml'));
  }
  const { stdout } = await run(
    'bash',
    [join(peers, 'kubelet.sh'), 'up', dir, '--runtime-endpoint', endpoint, '--node-name', nodeName, ...sharedArgs(settings), ...extra],
    { maxBuffer: 1 << 24 },
  );
  const info = JSON.parse(stdout.trim().split('\n').pop()!) as {
    pid: number;
    podsDir: string;
    podsUrl: string;
    port: number;
    dir: string;
    log: string;
  };
  return {
    pid: info.pid,
    podsDir: info.podsDir,
    podsUrl: info.podsUrl,
    apiUrl: `https://127.0.0.1:${info.port}`,
    podLogsDir: join(info.dir, 'logs'),
    log: info.log,
    stop: async () => {
      // Nothing to stop gracefully (the pods go with the runtime); a busy kubelet takes up to
      // kubelet.sh's 10 s to exit on SIGTERM. kubelet.sh down then unmounts and restores.
      try {
        process.kill(info.pid, 'SIGKILL');
      } catch {
        // gone
      }
      await run('bash', [join(peers, 'kubelet.sh'), 'down', dir]).catch(() => {});
    },
  };
}

/** Unmounts whatever is mounted under DIR, deepest first, one after the other. */
export async function unmountUnder(dir: string): Promise<void> {
  const mounts = readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[1])
    .filter((m) => m && m.startsWith(`${dir}/`))
    .sort()
    .reverse();
  for (const m of mounts) await run('umount', [m]).catch(() => run('umount', ['-l', m]).catch(() => {}));
}

/** `knode run` with the kubelet.sh kubelet's settings: static dir, 1 s file check, 10 s sync, the same cluster DNS and domain (unless SETTINGS turn them off). */
async function startKnode(dir: string, endpoint: string, nodeName: string, settings: AgentSettings): Promise<StartedAgent> {
  const podsDir = join(dir, 'pods');
  const rootDir = join(dir, 'root');
  mkdirSync(podsDir, { recursive: true });
  mkdirSync(rootDir, { recursive: true });
  const extra = [...(settings.knodeArgs ?? [])];
  if (settings.knodeConfig) {
    const config = join(dir, 'config.yaml');
    writeFileSync(config, `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n${settings.knodeConfig}`);
    extra.push('--config', config);
  }
  const port = await freePort();
  const log = join(dir, 'knode.log');
  const fd = openSync(log, 'a');
  const child: ChildProcess = spawn(
    process.execPath,
    [
      cliEntry,
      'run',
      '--static-dir',
      podsDir,
      '--runtime-endpoint',
      endpoint,
      '--root-dir',
      rootDir,
      '--node-name',
      nodeName,
      '--read-only-port',
      String(port),
      '--port',
      '0',
      '--file-check-frequency',
      '1s',
      '--sync-frequency',
      '10s',
      ...sharedArgs(settings),
      '--output',
      'plain',
      ...extra,
    ],
    { stdio: ['ignore', fd, fd] },
  );
  closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const podsUrl = `http://127.0.0.1:${port}/pods`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    await unmountUnder(dir);
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(podsUrl, { signal: AbortSignal.timeout(2000) })).ok) break;
    } catch {
      // not yet
    }
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`knode did not answer ${podsUrl}; last lines of ${log}:\n${tail(log)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  // knode's podLogsDir is <root-dir>/pods (no flag sets it).
  return { pid: child.pid!, podsDir, podsUrl, apiUrl: `http://127.0.0.1:${port}`, podLogsDir: join(rootDir, 'pods'), log, stop };
}

export function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}
