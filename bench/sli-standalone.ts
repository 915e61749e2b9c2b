// The start-up SLI on a standalone node (issue 41): static pod manifests land
// in the agent's directory and the node's own `/pods` (the kubelet's read-only
// port, knode's API socket) is polled every 10 ms; a pod's latency runs from its
// manifest's rename to the first answer that shows it Running with every
// container ready. The same rounds as the cluster SLI (bench/sli.ts).
import { get } from 'node:http';
import type { Pod, PodList } from '../src/engine/api/v1.js';
import { cpuSeconds, sleep, statusKiB, writeManifest, type Running } from './agent.js';
import { SLI_ROUNDS, type SliRound } from './sli.js';

const POLL_MS = 10;

/** One GET of the node's /pods: over its unix socket (knode) or its read-only port (the kubelet). */
function readPods(run: Running): Promise<Pod[]> {
  return new Promise((resolve, reject) => {
    const options = run.socketPath ? { socketPath: run.socketPath, path: '/pods' } : new URL(run.podsUrl!);
    const req = get(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve((JSON.parse(Buffer.concat(chunks).toString('utf8')) as PodList).items ?? []);
        } catch (err) {
          reject(err);
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const isReady = (pod: Pod) =>
  pod.status?.phase === 'Running' && (pod.status.containerStatuses ?? []).length > 0 && pod.status.containerStatuses!.every((c) => c.ready);

/**
 * Every SLI round on a running standalone agent; `clear` removes the round's
 * manifests and waits for their containers to stop. The agent's name in the
 * figures is `agent`; static pods are named `<manifest>-<node>`.
 */
export async function standaloneSli(agent: SliRound['agent'], run: Running, node: string, clear: () => Promise<void>): Promise<SliRound[]> {
  const rounds: SliRound[] = [];
  for (const [r, spec] of SLI_ROUNDS.entries()) {
    const written = new Map<string, number>();
    const latencies: number[] = [];
    const slowest = { name: '', ms: 0 };
    const names = Array.from({ length: spec.pods }, (_, i) => `s${r}-${i}`);
    const land = (name: string) => {
      written.set(`${name}-${node}`, performance.now());
      writeManifest(run.podsDir, name);
    };
    const cpu0 = cpuSeconds(run.pid);
    if (spec.mode === 'burst') names.forEach(land);
    else land(names[0]);
    const deadline = Date.now() + 300_000;
    while (latencies.length < spec.pods) {
      if (Date.now() > deadline) throw new Error(`${agent}: only ${latencies.length} of ${spec.pods} pods Running on /pods within 300 s`);
      const pods = await readPods(run).catch(() => [] as Pod[]);
      const seen = performance.now();
      for (const pod of pods) {
        const at = written.get(pod.metadata.name!);
        if (at === undefined || !isReady(pod)) continue;
        latencies.push(seen - at);
        if (seen - at > slowest.ms) Object.assign(slowest, { name: pod.metadata.name!, ms: seen - at });
        written.delete(pod.metadata.name!);
        if (spec.mode === 'one at a time' && latencies.length < spec.pods) land(names[latencies.length]);
      }
      await sleep(POLL_MS);
    }
    rounds.push({
      agent,
      ...spec,
      latencies,
      slowest,
      cpuSeconds: cpuSeconds(run.pid) - cpu0,
      peakRssMiB: statusKiB(run.pid, 'VmHWM') / 1024,
    });
    await clear();
  }
  return rounds;
}
