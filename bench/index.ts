// `npm run bench`: every benchmark, printed as tables with the goals beside
// them. Needs root for containerd (as CI has); KNODE_BENCH_CONTAINERD=off
// measures the embedded runtime alone, KNODE_BENCH_CONTAINERD2=off leaves out
// containerd 2 (built from the Go module proxy on first use), and
// KNODE_BENCH_CLUSTER=off the pods through a real control plane, and
// KNODE_BENCH_KUBELET=off the side-by-side with the real kubelet
// (`npm run bench -- kubelet` alone),
// KNODE_BENCH_IMAGES=off the image pulls from a local registry and the
// sandboxes' cost per container (`npm run bench -- sandboxes` alone), and
// KNODE_BENCH_DENSITY=off load and density (1,000 pods and churn on the
// embedded runtime; KNODE_BENCH_DENSITY_PODS=100 for a quick try, see
// bench/density-report.ts). `npm run bench -- density` runs that section alone;
// its churn reads knode's malloc through gdb where Debian's gdb and libc6-dbg
// are installed (bench/malloc.ts), and prints "-" for it where they are not.
// `npm run bench -- podman` (only alone) sets `knode apply` beside
// `podman kube play` (bench/podman.ts), then a Deployment and a Job
// (bench/podman-workloads.ts; `npm run bench -- podman-workloads` alone).
// `npm run bench -- coders` (only alone) times one pod's CRI messages through
// protobufjs's coders and the one-pass ones (bench/coders.ts).
// `npm run bench -- soak` (only alone) leaves a node writing logs and
// pulling images for 10 minutes (bench/soak.ts).
import { benchCoders } from './coders.js';
import { benchCri, reportCri, type CriFigures } from './cri.js';
import { benchCluster, withCluster, type ClusterFigures } from './cluster.js';
import { densitySection } from './density-report.js';
import { benchPulls } from './images.js';
import { benchPodman, reportPodman } from './podman.js';
import { benchPodmanWorkloads, reportPodmanWorkloads } from './podman-workloads.js';
import { benchSandboxes, reportSandboxes } from './sandboxes.js';
import { benchSli, reportSli, type SliRound } from './sli.js';
import { benchSoak } from './soak.js';
import { reportSoak } from './soak-report.js';
import { benchAgent, type Agent, type BurstFigures, type IdleFigures } from './kubelet.js';
import { benchRelist, type RelistFigures } from './relist.js';
import { startContainerd, startEmbedded, type BenchRuntime } from './runtimes.js';
import { benchStartup, pageFaultCost, reportPageFaultCost, spawnFloor, type StartupFigures } from './startup.js';
import { median, ms, percentile, table } from './stats.js';

const PODS = Number(process.env.KNODE_BENCH_PODS ?? 100);
const withContainerd = process.env.KNODE_BENCH_CONTAINERD !== 'off';
const withContainerd2 = withContainerd && process.env.KNODE_BENCH_CONTAINERD2 !== 'off';
const withClusterBench = process.env.KNODE_BENCH_CLUSTER !== 'off';
const withKubelet = withContainerd2 && process.env.KNODE_BENCH_KUBELET !== 'off';
const withImages = process.env.KNODE_BENCH_IMAGES !== 'off';
const withDensity = process.env.KNODE_BENCH_DENSITY !== 'off';

if (process.argv[2] === 'density') {
  await densitySection(true);
  process.exit(0);
}
if (process.argv[2] === 'kubelet') {
  await kubeletSection();
  process.exit(0);
}
if (process.argv[2] === 'sli') {
  console.log(reportSli(await benchSli()));
  process.exit(0);
}
if (process.argv[2] === 'podman') {
  console.log(reportPageFaultCost(pageFaultCost()));
  console.log(reportPodman(await benchPodman()));
  console.log(reportPodmanWorkloads(await benchPodmanWorkloads()));
  process.exit(0);
}
if (process.argv[2] === 'podman-workloads') {
  console.log(reportPageFaultCost(pageFaultCost()));
  console.log(reportPodmanWorkloads(await benchPodmanWorkloads()));
  process.exit(0);
}
if (process.argv[2] === 'coders') {
  console.log(benchCoders());
  process.exit(0);
}
if (process.argv[2] === 'soak') {
  console.log(reportSoak(await benchSoak()));
  process.exit(0);
}
if (process.argv[2] === 'sandboxes') {
  console.log(reportSandboxes(await benchSandboxes()));
  process.exit(0);
}

async function withRuntime<T>(start: () => Promise<BenchRuntime>, fn: (rt: BenchRuntime) => Promise<T>): Promise<T> {
  const rt = await start();
  try {
    return await fn(rt);
  } finally {
    await rt.stop();
  }
}

const starts = [
  startEmbedded,
  ...(withContainerd ? [() => startContainerd('1.6')] : []),
  ...(withContainerd2 ? [() => startContainerd('2')] : []),
];
const cri: CriFigures[] = [];
const startup: StartupFigures[] = [];
const relist: RelistFigures[] = [];
for (const [i, start] of starts.entries()) {
  await withRuntime(start, async (rt) => {
    cri.push(await benchCri(rt, PODS, i === 0 ? 1000 : undefined));
    for (const pleg of ['evented', 'relist'] as const) {
      startup.push(await benchStartup(rt, PODS, pleg, 'burst'));
      startup.push(await benchStartup(rt, Math.min(PODS, 30), pleg, 'one at a time'));
    }
    for (const n of i === 0 ? [10, 100, 1000] : [10, 100]) relist.push(await benchRelist(rt, n));
  });
}

console.log(`\nCRI calls (${PODS} one-container pods, host network, then status and list with them present)\n`);
console.log(reportCri(cri));

console.log(`\nPod start-up latency (source saw the pod -> status manager saw every container running)\n`);
console.log(
  table(
    ['runtime', 'PLEG', 'pods', 'arrival', 'p50', 'p99', 'max', 'all done in'],
    startup.map((s) => [
      s.runtime,
      s.pleg,
      String(s.latencies.length),
      s.mode,
      ms(median(s.latencies)),
      ms(percentile(s.latencies, 99)),
      ms(Math.max(...s.latencies)),
      ms(s.totalMs),
    ]),
  ),
);

const floor = spawnFloor(PODS);
console.log(
  `\nThe machine's floor for a burst: a fresh Node process spawning ${floor.count} processes back to back had the ${floor.count / 2}th running after ${ms(floor.halfMs)} and the last after ${ms(floor.allMs)}; a pod's container is at least one process (goals on the embedded runtime, evented PLEG: p50 <= 25 ms, p99 <= 100 ms)`,
);
console.log(reportPageFaultCost(pageFaultCost()));

console.log('\nPLEG relist duration (first relist reads every pod; steady relist: nothing changed)\n');
console.log(
  table(
    ['runtime', 'containers', 'first', 'steady median', 'steady p99'],
    relist.map((r) => [r.runtime, String(r.containers), ms(r.firstMs), ms(median(r.steady)), ms(percentile(r.steady, 99))]),
  ),
);

const cluster: ClusterFigures[] = withClusterBench
  ? await withCluster(async (_cp, api) => [await benchCluster(api, 30, 'burst'), await benchCluster(api, 10, 'one at a time')])
  : [];
if (cluster.length > 0) {
  console.log(
    '\nPods through a real cluster (created in kube-apiserver, placed by kube-scheduler on 3 knode nodes, Running and ready seen through the apiserver)\n',
  );
  console.log(
    table(
      ['pods', 'arrival', 'nodes', 'p50', 'p99', 'max', 'all done in'],
      cluster.map((c) => [
        String(c.latencies.length),
        c.mode,
        String(c.nodes),
        ms(median(c.latencies)),
        ms(percentile(c.latencies, 99)),
        ms(Math.max(...c.latencies)),
        ms(c.totalMs),
      ]),
    ),
  );
}

if (withImages) {
  const sandboxes = await benchSandboxes();
  console.log(
    `\nContainers of a real image on the embedded runtime (busybox:1.36 from a local docker-registry, pods one at a time): bubblewrap sandboxes vs host processes\n`,
  );
  console.log(reportSandboxes(sandboxes));
  const pulls = await benchPulls();
  console.log(`\nImage pulls into the embedded runtime's OCI store (${pulls.image}: 3 layers, from a local docker-registry)\n`);
  console.log(
    table(
      ['pull', 'runs', 'median', 'p99'],
      [
        ['cold (empty store)', String(pulls.cold.length), ms(median(pulls.cold)), ms(percentile(pulls.cold, 99))],
        ['warm (all stored)', String(pulls.warm.length), ms(median(pulls.warm)), ms(percentile(pulls.warm, 99))],
      ],
    ),
  );
}

if (withKubelet) await kubeletSection();

const embedded = cri[0];
const perPod = median(embedded.samples['sandbox+create+start']);
const list1000 = median(embedded.listLarge!.samples);
const evented = startup.find((s) => s.runtime === 'embedded' && s.pleg === 'evented' && s.mode === 'burst')!;
const lone = startup.find((s) => s.runtime === 'embedded' && s.pleg === 'evented' && s.mode === 'one at a time')!;
const relist1000 = relist.find((r) => r.runtime === 'embedded' && r.containers === 1000)!;
const goal = (label: string, value: number, limit: number) =>
  `${label} ${ms(value)} (goal <= ${limit} ms) ${value <= limit ? 'met' : 'NOT met'}`;
console.log('\nGoals (embedded runtime):');
console.log(`  ${goal('sandbox+create+start median', perPod, 10)}`);
console.log(
  `  (pods ${embedded.paced.pauseMs} ms apart: sandbox+create+start median ${ms(median(embedded.paced.total))}, StartContainer ${ms(median(embedded.paced.start))})`,
);
console.log(`  ${goal(`ListContainers with ${embedded.listLarge!.containers} containers median`, list1000, 5)}`);
console.log(`  ${goal(`start-up p50, evented PLEG, ${PODS}-pod burst`, median(evented.latencies), 25)}`);
console.log(`  ${goal(`start-up p99, evented PLEG, ${PODS}-pod burst`, percentile(evented.latencies, 99), 100)}`);
console.log(
  `  ${goal(`${PODS}-pod burst all Running, evented PLEG (issue 41: 3x the spawn floor of this run)`, evented.totalMs, Math.round(3 * floor.allMs))}`,
);
console.log(`  (one pod at a time, evented PLEG: p50 ${ms(median(lone.latencies))}, p99 ${ms(percentile(lone.latencies, 99))})`);
console.log(`  ${goal('steady relist of 1,000 containers median', median(relist1000.steady), 20)}`);
for (const f of cri.slice(1)) {
  console.log(
    `sandbox+create+start: ${f.runtime} takes ${(median(f.samples['sandbox+create+start']) / perPod).toFixed(1)}x the embedded runtime's median`,
  );
}

if (withDensity) await densitySection(false);

/** knode beside the real kubelet on containerd 2 (`npm run bench -- kubelet` alone). */
async function kubeletSection(): Promise<void> {
  const agents: Agent[] = ['kubelet', 'knode evented', 'knode relist'];
  const bursts: BurstFigures[] = [];
  const idle: IdleFigures[] = [];
  const standalone: SliRound[] = [];
  for (const agent of agents) {
    const figures = await benchAgent(agent, [1, 10, 100]);
    bursts.push(...figures.bursts);
    idle.push(figures.idle);
    standalone.push(...figures.standalone);
  }
  console.log(
    "\nknode beside the real kubelet (v1.37.2), static pods on containerd 2, one agent at a time (manifests written -> container started, seen on containerd's event stream)\n",
  );
  console.log(
    table(
      ['agent', 'pods', 'p50', 'p99', 'all started in', 'agent CPU', 'agent peak RSS'],
      bursts.map((b) => [
        b.agent,
        String(b.pods),
        ms(median(b.latencies)),
        ms(percentile(b.latencies, 99)),
        ms(b.totalMs),
        `${b.cpuSeconds.toFixed(2)} s`,
        `${b.peakRssMiB.toFixed(1)} MiB`,
      ]),
    ),
  );
  console.log(`\nIdle with ${idle[0].pods} pods running\n`);
  console.log(
    table(
      ['agent', 'CPU', 'RSS'],
      idle.map((i) => [i.agent, `${(i.cpuCores * 1000).toFixed(1)}m`, `${i.rssMiB.toFixed(1)} MiB`]),
    ),
  );
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
  console.log('\nknode / kubelet (goals: start-up p50 <= 0.5x, CPU <= 1x, RSS <= 1x)');
  for (const agent of agents.slice(1)) {
    for (const pods of [1, 10, 100]) {
      const k = bursts.find((b) => b.agent === 'kubelet' && b.pods === pods)!;
      const n = bursts.find((b) => b.agent === agent && b.pods === pods)!;
      console.log(
        `  ${agent}, ${pods} pods: start-up p50 ${ratio(median(n.latencies), median(k.latencies))}, p99 ${ratio(percentile(n.latencies, 99), percentile(k.latencies, 99))}, CPU ${ratio(n.cpuSeconds, k.cpuSeconds)}, peak RSS ${ratio(n.peakRssMiB, k.peakRssMiB)}`,
      );
    }
    const ki = idle.find((i) => i.agent === 'kubelet')!;
    const ni = idle.find((i) => i.agent === agent)!;
    console.log(`  ${agent}, idle with 100 pods: CPU ${ratio(ni.cpuCores, ki.cpuCores)}, RSS ${ratio(ni.rssMiB, ki.rssMiB)}`);
  }
  const polled =
    'Pod start-up SLI on a standalone node, static pods on containerd 2 (manifest renamed in -> /pods, polled every 10 ms, shows Running and every container ready)';
  console.log(reportSli(standalone, polled, 'no goal of its own'));
  if (process.env.KNODE_BENCH_SLI !== 'off') console.log(reportSli(await benchSli()));
}
