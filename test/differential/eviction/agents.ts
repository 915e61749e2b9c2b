// The two agents of the eviction differential, each joined to the test control
// plane as the same node on a containerd 2 of its own: the real kubelet
// (test/peers/kubelet.sh up --kubeconfig --config-extra) and `knode run
// --kubeconfig --config`. Both get a hard memory.available threshold a margin
// above the working set as that agent measures it (MARGIN_MIB), and a static
// pod directory.
import { execFile, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cliEntry, repoRoot } from '../../helpers/runtimes.js';
import { MARGIN_MIB } from './scenarios.js';

const run = promisify(execFile);
const peers = join(repoRoot, 'test/peers');

export type AgentName = 'kubelet' | 'knode';

export interface Agent {
  podsDir: string;
  log: string;
  /** The threshold it was given, in KiB. */
  thresholdKi: number;
  stop(): Promise<void>;
}

function meminfo(): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of readFileSync('/proc/meminfo', 'utf8').split('\n')) {
    const m = /^([^:]+):\s+(\d+) kB/.exec(line);
    if (m) out.set(m[1], Number(m[2]) * 1024);
  }
  return out;
}

/**
 * The node's memory working set as the agent computes memory.available:
 * the kubelet from the root memory cgroup (usage less total_inactive_file,
 * cgroup v1), knode from /proc/meminfo (MemTotal - MemFree - Inactive(file)).
 */
function workingSet(agent: AgentName): number {
  const mem = meminfo();
  if (agent === 'kubelet') {
    try {
      const usage = Number(readFileSync('/sys/fs/cgroup/memory/memory.usage_in_bytes', 'utf8'));
      const inactive = Number(/^total_inactive_file (\d+)$/m.exec(readFileSync('/sys/fs/cgroup/memory/memory.stat', 'utf8'))![1]);
      return usage - inactive;
    } catch {
      // cgroup v2: meminfo is close enough for a margin of a gigabyte and more
    }
  }
  return mem.get('MemTotal')! - mem.get('MemFree')! - (mem.get('Inactive(file)') ?? 0);
}

/** The hard threshold: capacity less the working set now, less the margin the pods' memory crosses. */
export function thresholdKi(agent: AgentName): number {
  const capacity = meminfo().get('MemTotal')!;
  return Math.floor((capacity - workingSet(agent) - MARGIN_MIB * 1024 * 1024) / 1024);
}

const tail = (file: string, lines = 60) => {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
};

export async function startKubelet(dir: string, endpoint: string, nodeName: string, kubeconfig: string): Promise<Agent> {
  mkdirSync(dir, { recursive: true });
  const threshold = thresholdKi('kubelet');
  const extra = join(dir, '..', 'kubelet-extra.yaml');
  writeFileSync(extra, `evictionHard:\n  memory.available: ${threshold}Ki\n`);
  const args = ['up', dir, '--runtime-endpoint', endpoint, '--node-name', nodeName, '--kubeconfig', kubeconfig, '--config-extra', extra];
  const { stdout } = await run('bash', [join(peers, 'kubelet.sh'), ...args], { maxBuffer: 1 << 24 });
  const info = JSON.parse(stdout.trim().split('\n').pop()!) as { pid: number; podsDir: string; log: string };
  return {
    podsDir: info.podsDir,
    log: info.log,
    thresholdKi: threshold,
    stop: async () => {
      try {
        process.kill(info.pid, 'SIGKILL');
      } catch {
        // gone
      }
      await run('bash', [join(peers, 'kubelet.sh'), 'down', dir]).catch(() => {});
    },
  };
}

/** Unmounts whatever is mounted under DIR, deepest first. */
export async function unmountUnder(dir: string): Promise<void> {
  const mounts = readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[1])
    .filter((m) => m && m.startsWith(`${dir}/`))
    .sort()
    .reverse();
  for (const m of mounts) await run('umount', [m]).catch(() => run('umount', ['-l', m]).catch(() => {}));
}

export async function startKnode(dir: string, endpoint: string, nodeName: string, kubeconfig: string): Promise<Agent> {
  const podsDir = join(dir, 'pods');
  const rootDir = join(dir, 'root');
  mkdirSync(podsDir, { recursive: true });
  mkdirSync(rootDir, { recursive: true });
  const threshold = thresholdKi('knode');
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    `apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nevictionHard:\n  memory.available: ${threshold}Ki\n`,
  );
  const log = join(dir, 'knode.log');
  const fd = openSync(log, 'a');
  const child = spawn(
    process.execPath,
    [
      cliEntry,
      'run',
      ...['--kubeconfig', kubeconfig, '--node-name', nodeName, '--config', config],
      ...['--runtime-endpoint', endpoint, '--root-dir', rootDir, '--static-dir', podsDir],
      ...['--port', '0', '--read-only-port', '0', '--file-check-frequency', '1s', '--sync-frequency', '10s', '--output', 'plain'],
    ],
    { stdio: ['ignore', fd, fd] },
  );
  closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    podsDir,
    log,
    thresholdKi: threshold,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      await unmountUnder(dir);
    },
  };
}

export { tail };
