// `npm run bench -- podman` (also alone: `npm run bench -- podman-workloads`;
// issue 42, "a side-by-side benchmark with podman kube play"): the wall time
// of one run of a 10-replica Deployment to available and of a 10-completion
// Job (parallelism 10) to complete, with bench/podman.ts's sides: `knode
// apply` on the embedded runtime and on containerd 2 against `podman kube
// play`. `knode apply` waits for both itself; podman's time runs on after
// `kube play` returns while the bench polls `podman ps -a`, until every
// container runs (Deployment) or has exited 0 (Job). A kind podman refuses
// ("does not contain any supported kube kind", as 4.3.1 does for a Job) is
// reported as not supported, and knode's side is still timed. The sides and
// the interleaved runs are bench/podman-runner.ts's, as for bench/podman.ts.
// Then each knode side's runtime floor: the Deployment's pods made straight
// over CRI, which no agent on that runtime can beat. Beside each knode time:
// the CPU of the command and of the whole machine meanwhile, and the least
// wall time the machine's cores allow for that much CPU.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { cpuBoundMs, IMAGE, interleave, sleepSync, waitForQuiet, withPodmanSides, type CpuSpan, type Side } from './podman-runner.js';
import { median, ms, table } from './stats.js';

const REPLICAS = 10;
const PODMAN = 'podman kube play';
/** The rows of each knode side's runtime floor (Side.floor), set beside the Deployment. */
const FLOOR = `runtime floor: ${REPLICAS} pods over CRI`;
/** How often the bench looks at `podman ps -a` after `kube play` returns. */
const POLL_MS = 50;
/** How long podman's pods may take to get there after `kube play` returns. */
const SETTLE_MS = 120_000;

interface Workload {
  kind: 'Deployment' | 'Job';
  /** The manifest's objects. */
  docs: object[];
  /** Whether the side's pods are there: every container running, or every one exited 0. */
  done(side: Side): boolean;
}

export interface WorkloadFigures {
  side: string;
  kind: string;
  /** Empty when the side does not run the kind. */
  samples: number[];
  /** The CPU of each sample: the command's own (none for a floor, made in the bench's process) and the machine's. */
  cpu: CpuSpan[];
  /** Why the side does not run the kind. */
  unsupported?: string;
}

const container = (command: string[]) => ({ name: 'work', image: IMAGE, imagePullPolicy: 'IfNotPresent', command });

/** The two manifests: host network and one busybox container, as bench/podman.ts's pods. */
const WORKLOADS: Workload[] = [
  {
    kind: 'Deployment',
    docs: [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'depbench' },
        spec: {
          replicas: REPLICAS,
          selector: { matchLabels: { app: 'depbench' } },
          template: {
            metadata: { labels: { app: 'depbench' } },
            spec: { hostNetwork: true, terminationGracePeriodSeconds: 0, containers: [container(['sleep', 'infinity'])] },
          },
        },
      },
    ],
    done: (side) => side.running() === REPLICAS,
  },
  {
    kind: 'Job',
    docs: [
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'jobbench' },
        spec: {
          completions: REPLICAS,
          parallelism: REPLICAS,
          template: {
            spec: { hostNetwork: true, restartPolicy: 'Never', terminationGracePeriodSeconds: 0, containers: [container(['true'])] },
          },
        },
      },
    ],
    done: (side) => side.succeeded() === REPLICAS,
  },
];

/** podman's time: `kube play`, then polling until the workload is there; undefined when podman refuses the kind. */
function timePodman(side: Side, load: Workload, file: string): number | undefined {
  const t0 = performance.now();
  try {
    side.apply(file);
  } catch (err) {
    if (String(err).includes('does not contain any supported kube kind')) return undefined;
    throw err;
  }
  while (!load.done(side)) {
    if (performance.now() - t0 > SETTLE_MS) throw new Error(`${side.name}: ${load.kind} not there after ${SETTLE_MS} ms`);
    sleepSync(POLL_MS);
  }
  return performance.now() - t0;
}

function podmanVersion(): string {
  return spawnSync('podman', ['--version'], { encoding: 'utf8' })
    .stdout.trim()
    .replace(/^podman version /, '');
}

export async function benchPodmanWorkloads(runs = Number(process.env.KNODE_BENCH_PODMAN_RUNS ?? 5)): Promise<WorkloadFigures[]> {
  return withPodmanSides(async (sides, dir) => {
    const figures: WorkloadFigures[] = [];
    for (const load of WORKLOADS) {
      const file = join(dir, `${load.kind.toLowerCase()}.yaml`);
      writeFileSync(file, load.docs.map((d) => stringify(d)).join('---\n'));
      const bySide = interleave(sides, runs, {
        file,
        time: (side) => (side.name === PODMAN ? timePodman(side, load, file) : side.apply(file)),
        check: (side) => {
          if (!load.done(side)) throw new Error(`${side.name}: ${load.kind} not available/complete after the command`);
        },
      });
      figures.push(
        ...bySide.map(({ samples, cpu, refused }, i): WorkloadFigures => ({
          side: sides[i].name,
          kind: load.kind,
          samples,
          cpu,
          ...(refused ? { unsupported: `not supported by podman ${podmanVersion()}` } : {}),
        })),
      );
    }
    for (const side of sides) {
      if (!side.floor) continue;
      const samples: number[] = [];
      const cpu: CpuSpan[] = [];
      for (let i = 0; i < runs; i++) {
        waitForQuiet();
        const floor = await side.floor(REPLICAS);
        samples.push(floor.ms);
        cpu.push(floor.cpu);
      }
      figures.push({ side: side.name, kind: FLOOR, samples, cpu });
    }
    return figures;
  });
}

export function reportPodmanWorkloads(figures: WorkloadFigures[]): string {
  // A runtime's floor is set against podman's Deployment, the same pods.
  const podman = (kind: string) =>
    figures.find((f) => f.side === PODMAN && f.kind === (kind === FLOOR ? 'Deployment' : kind) && f.samples.length > 0);
  const ratio = (f: WorkloadFigures) => {
    const p = podman(f.kind);
    return p && f.samples.length > 0 ? median(f.samples) / median(p.samples) : undefined;
  };
  // podman's own CPU is not its command's (conmon and the containers outlive it), and the bench's polls add to the machine's.
  const knode = (f: WorkloadFigures) => f.side !== PODMAN && f.cpu.length > 0;
  const cpuCells = (f: WorkloadFigures) =>
    knode(f)
      ? [
          f.kind === FLOOR ? '-' : ms(median(f.cpu.map((c) => c.childrenMs))),
          ms(median(f.cpu.map((c) => c.machineMs))),
          ms(cpuBoundMs(median(f.cpu.map((c) => c.machineMs)))),
        ]
      : ['-', '-', '-'];
  const rows = figures.map((f) =>
    f.samples.length === 0
      ? [f.side, f.kind, '0', f.unsupported ?? '-', '-', '-', '-', '-', '-', '-']
      : [
          f.side,
          f.kind,
          String(f.samples.length),
          ms(median(f.samples)),
          ms(Math.min(...f.samples)),
          ms(Math.max(...f.samples)),
          ratio(f) === undefined ? '-' : `${ratio(f)!.toFixed(2)}x`,
          ...cpuCells(f),
        ],
  );
  const goals = figures.flatMap((f) => {
    if (f.kind === FLOOR) return [];
    const limit = f.side === 'knode apply (embedded)' ? 0.25 : f.side.startsWith('knode apply (containerd') ? 0.5 : undefined;
    if (limit === undefined) return [];
    const r = ratio(f);
    const verdict = r === undefined ? 'no podman figure: podman does not run it' : `${r.toFixed(2)}x ${r <= limit ? 'met' : 'NOT met'}`;
    return [`Goal: ${f.side}, ${f.kind}, <= ${limit}x ${PODMAN}: ${verdict}`];
  });
  return [
    `\nOne command, from its start to ${REPLICAS} replicas available (Deployment) or ${REPLICAS} completions (Job, parallelism ${REPLICAS}) (interleaved runs; busybox:1.36 imported beforehand; host network)\n`,
    table(['command', 'kind', 'runs', 'p50', 'min', 'max', 'p50 / podman', 'command CPU', 'machine CPU', 'machine CPU / cores'], rows),
    `(${FLOOR}: each knode side's runtime alone, ${REPLICAS} host-network busybox pods made at once by a client already connected, set against podman's Deployment)`,
    `(CPU, p50s of the same runs: the knode command's own, and the whole machine's while it ran, the runtime's and its containers' included; machine CPU / cores is the least wall time that much CPU allows on this machine's ${availableParallelism()} cores)`,
    '',
    ...goals,
  ].join('\n');
}
