import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CriClient } from '../cri/client.js';
import { SummaryProvider } from '../engine/stats/summary.js';
import type { Summary } from '../engine/stats/types.js';
import { RealClock } from '../util/clock.js';
import { rootPaths } from '../util/paths.js';
import type { NodeClient } from './node-client.js';

/** A CPU rate needs two readings: how long to wait for the second when the first is all there is. */
const SECOND_READING_MS = 1_000;

/** The running node's CPU and memory (its /stats/summary without filesystems). */
export async function nodeSummary(node: NodeClient): Promise<Summary> {
  return (await node.json<Summary>('/stats/summary?only_cpu_and_memory=true')).body;
}

/**
 * CPU and memory as a Summary: the running node's (/stats/summary), or, when
 * none runs, one made from the runtime's stats directly. With `rates`, a
 * reading that has no CPU rate yet (the first one) is taken again a second
 * later.
 */
export async function readSummary(
  node: NodeClient | undefined,
  rootDir: string,
  connect: () => Promise<CriClient>,
  rates: boolean,
): Promise<Summary> {
  let read: () => Promise<Summary>;
  let close = () => {};
  if (node) {
    read = () => nodeSummary(node);
  } else {
    const client = await connect();
    close = () => client.close();
    const provider = new SummaryProvider({
      runtime: client,
      clock: new RealClock(),
      nodeName: hostname().toLowerCase(),
      rootDir,
      podLogsDir: rootPaths(rootDir).podLogs,
      volumesDir: () => '',
      startedAt: Date.now(),
      allNodes: true,
    });
    read = () => provider.get(true);
  }
  try {
    const first = await read();
    if (!rates || !unknownCpu(first)) return first;
    await sleep(SECOND_READING_MS);
    return await read();
  } finally {
    close();
  }
}

function unknownCpu(s: Summary): boolean {
  return s.node.cpu?.usageNanoCores === undefined || s.pods.some((p) => p.containers.some((c) => c.cpu?.usageNanoCores === undefined));
}
