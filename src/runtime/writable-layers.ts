import { diskUsage } from '../util/disk-usage.js';

/** How long a container's measured writable layer stands: containerd's CRI refreshes its snapshots' usage every 10 s. */
const USAGE_TTL_MS = 10_000;

/**
 * What each container has written to its own root file system (CRI
 * ContainerStats.writableLayer): the bytes and inodes under its writable
 * directory, measured as `du` does and kept for USAGE_TTL_MS, so that the
 * kubelet's eviction manager, which reads the stats every 10 s, walks each
 * directory about once a pass. A container without a layer of its own (a
 * host process) has written nothing there.
 */
export class WritableLayers {
  private readonly measured = new Map<string, { at: number; usedBytes: number; inodesUsed: number }>();

  constructor(
    private readonly dirOf: (id: string) => string | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  usage(id: string): { usedBytes: number; inodesUsed: number } {
    const dir = this.dirOf(id);
    if (dir === undefined) return { usedBytes: 0, inodesUsed: 0 };
    const now = this.now();
    let seen = this.measured.get(id);
    if (!seen || now - seen.at >= USAGE_TTL_MS) {
      seen = { at: now, ...diskUsage(dir) };
      this.measured.set(id, seen);
    }
    return { usedBytes: seen.usedBytes, inodesUsed: seen.inodesUsed };
  }

  /** Forgets the containers not in `ids` (removed since). */
  retain(ids: ReadonlySet<string>): void {
    for (const id of this.measured.keys()) if (!ids.has(id)) this.measured.delete(id);
  }
}
