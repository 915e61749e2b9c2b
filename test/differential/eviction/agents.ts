// The two agents of the eviction differential, each joined to the test control
// plane as the same node on a containerd 2 of its own, started by
// ../agent-start.ts (the real kubelet: kubelet.sh up --kubeconfig
// --config-extra; knode: `knode run --kubeconfig --config`) without the
// differential's cluster DNS. Both get a hard memory.available threshold a
// margin above the working set as that agent measures it (MARGIN_MIB).
import { readFileSync } from 'node:fs';
import { startAgent, type AgentName, type StartedAgent } from '../agent-start.js';
import { MARGIN_MIB } from './scenarios.js';

export interface Agent extends StartedAgent {
  /** The threshold it was given, in KiB. */
  thresholdKi: number;
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

/** AGENT under DIR on the runtime at ENDPOINT, joined with KUBECONFIG as NODENAME, with its threshold measured now. */
export async function startEvictionAgent(
  agent: AgentName,
  dir: string,
  endpoint: string,
  nodeName: string,
  kubeconfig: string,
): Promise<Agent> {
  const threshold = thresholdKi(agent);
  const fields = `evictionHard:\n  memory.available: ${threshold}Ki\n`;
  const settings = { kubeconfig, clusterDns: false, kubeletConfig: fields, knodeConfig: fields };
  return { ...(await startAgent(agent, dir, endpoint, nodeName, settings)), thresholdKi: threshold };
}
