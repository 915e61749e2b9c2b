// The load and density section of `npm run bench` (issue #7): the density
// runs and the churn, printed with the command that produced them and the
// issue's goals. `npm run bench -- density` runs this section alone.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { benchChurn, type ChurnFigures } from './churn.js';
import { benchDensity, pollMs, type DensityFigures } from './density.js';
import { histogramQuantile, median, ms, percentile, table, type Histogram } from './stats.js';

const GOAL_IDLE_CPU = 0.03;
const GOAL_RSS_MIB = 200;
/** Issue #41: CPU (user + system) per pod from the manifests landing to all Running, for knode and for the runtime alike. */
const GOAL_CPU_MS_PER_POD = 8;
/** Leak: open files must come back to where they were; RSS may keep this much of what the churn grew (V8 keeps some heap). */
const GOAL_RSS_GROWTH = 0.1;
const LIFETIME_SECONDS = 5;

const envNumber = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);

export async function densitySection(alone: boolean): Promise<void> {
  const maxPods = envNumber('KNODE_BENCH_DENSITY_PODS', 1000);
  const idleSeconds = envNumber('KNODE_BENCH_DENSITY_IDLE_SECONDS', 90);
  const rate = envNumber('KNODE_BENCH_CHURN_RATE', Math.max(1, Math.round(maxPods / 10)));
  const churnSeconds = envNumber('KNODE_BENCH_CHURN_SECONDS', 60);
  // More rounds tell a leak (knode's memory grows with every churn) from what a churn's peak leaves behind.
  const churnRounds = envNumber('KNODE_BENCH_CHURN_ROUNDS', 1);
  const sizes = [...[10, 100, 1000].filter((n) => n < maxPods), maxPods];
  const settings = Object.entries(process.env)
    .filter(([k]) => /^KNODE_BENCH_(DENSITY|CHURN)_/.test(k))
    .map(([k, v]) => `${k}=${v}`);
  const command = [...settings, alone ? 'npm run bench -- density' : 'npm run bench'].join(' ');
  const loadBefore = loadAverage();

  const density: DensityFigures[] = [];
  for (const pods of sizes) density.push(await benchDensity(pods, idleSeconds));
  const churn = churnSeconds > 0 ? await benchChurn(rate, churnSeconds, LIFETIME_SECONDS, churnRounds) : undefined;
  const machine = `${cpus().length} cores; load average ${loadBefore} before, ${loadAverage()} after`;

  console.log(
    `\nDensity: N one-container static pods (sleep 3600, host network) written at once into a fresh node (knode run, evented PLEG) on the embedded runtime (its own process)`,
  );
  console.log(`command: ${command}\nmachine: ${machine}\n`);
  console.log(
    table(
      [
        'pods',
        'all started (CRI)',
        'start p50',
        'start p99',
        'start event delay p99, max',
        'all Running (/pods)',
        'knode CPU to Running (per pod)',
        'knode peak RSS',
        'runtime CPU (per pod), peak RSS',
      ],
      density.map((d) => [
        String(d.pods),
        ms(d.startedMs),
        ms(median(d.latencies)),
        ms(percentile(d.latencies, 99)),
        `${ms(percentile(d.deliveries, 99))}, ${ms(Math.max(...d.deliveries))}`,
        `${ms(d.runningMs)} (±${pollMs(d.pods)} ms)`,
        `${d.rampCpuSeconds.toFixed(2)} s (${perPod(d.rampCpuSeconds, d.pods)}; system ${perPod(d.rampSystemSeconds, d.pods)})`,
        mib(d.peakRssMiB),
        `${d.runtimeCpuSeconds.toFixed(2)} s (${perPod(d.runtimeCpuSeconds, d.pods)}), ${mib(d.runtimePeakRssMiB)}`,
      ]),
    ),
  );
  console.log('(start event delay: from the runtime stamping a CONTAINER_STARTED event to the bench receiving it over GetContainerEvents)');
  console.log(
    `\nSteady state with every pod Running (${idleSeconds} s, from 5 s after; relists from knode's /pleg stream; pod worker passes from /metrics, p50/p99 by histogram_quantile over its buckets; starting: from the manifests to 5 s after all Running)\n`,
  );
  console.log(
    table(
      [
        'pods',
        'knode CPU',
        'knode RSS',
        'open files',
        'relists',
        'relist p50',
        'relist max',
        'worker passes starting: n, p50, p99',
        'worker passes steady: n, p50, p99',
      ],
      density.map((d) => [
        String(d.pods),
        percent(d.idle.cpuCores),
        mib(d.idle.rssMiB),
        String(d.idle.openFiles),
        String(d.relists.length),
        d.relists.length ? ms(median(d.relists)) : '-',
        d.relists.length ? ms(Math.max(...d.relists)) : '-',
        passes(d.workerRamp),
        passes(d.workerIdle),
      ]),
    ),
  );
  if (churn) printChurn(churn);

  const largest = density.at(-1)!;
  console.log(`\nGoals (load and density, ${largest.pods} pods):`);
  console.log(
    `  ${goal(`knode CPU idle ${percent(largest.idle.cpuCores)} of one core`, `<= ${percent(GOAL_IDLE_CPU)}`, largest.idle.cpuCores <= GOAL_IDLE_CPU)}`,
  );
  const burst = density.find((d) => d.pods === 100);
  if (burst) {
    for (const [who, seconds] of [
      ['knode', burst.rampCpuSeconds],
      ['the runtime', burst.runtimeCpuSeconds],
    ] as const) {
      const goalMet = (seconds * 1000) / burst.pods <= GOAL_CPU_MS_PER_POD;
      console.log(
        `  ${goal(`${who} CPU per pod in the 100-pod burst ${perPod(seconds, burst.pods)}`, `<= ${GOAL_CPU_MS_PER_POD} ms`, goalMet)}`,
      );
    }
    console.log(`  (of knode's, ${perPod(burst.rampSystemSeconds, burst.pods)} in the kernel)`);
  }
  console.log(`  ${goal(`knode RSS ${mib(largest.idle.rssMiB)}`, `<= ${GOAL_RSS_MIB} MiB`, largest.idle.rssMiB <= GOAL_RSS_MIB)}`);
  if (churn) {
    const { before, after } = churn;
    console.log(
      `  ${goal(`churn: open files ${before.openFiles} -> ${after.openFiles}`, 'no more after', after.openFiles <= before.openFiles)}`,
    );
    console.log(
      `  ${goal(`churn: RSS ${mib(before.rssMiB)} -> ${mib(after.rssMiB)}`, `at most ${GOAL_RSS_GROWTH * 100}% more`, after.rssMiB <= before.rssMiB * (1 + GOAL_RSS_GROWTH))}`,
    );
    if (churn.trimmedRssMiB !== undefined) {
      // A leak is memory knode cannot give back: with glibc's free pages returned, RSS after every churn against RSS before (with them).
      const churns = 1 + churn.again.length;
      console.log(
        `  ${goal(`churn: no leak: RSS ${mib(before.rssMiB)} before, ${mib(churn.trimmedRssMiB)} after ${churns} churn${churns > 1 ? 's' : ''} once glibc gave back the free pages it kept`, `at most ${GOAL_RSS_GROWTH * 100}% more`, churn.trimmedRssMiB <= before.rssMiB * (1 + GOAL_RSS_GROWTH))}`,
      );
    }
    const stuck = churn.notRunning + churn.leftovers + churn.strayWorkers;
    console.log(
      `  ${goal(`churn: ${churn.settledMs === undefined ? 'did not settle' : `settled ${ms(churn.settledMs)} after the churn`}; ${churn.notRunning} wanted pods not Running, ${churn.leftovers} removed pods still in the runtime, ${churn.strayWorkers} workers of unwanted pods`, 'no stuck worker', stuck === 0)}`,
    );
  }
}

function printChurn(c: ChurnFigures): void {
  console.log(
    `\nChurn: ${c.rate} pods/s written into the static pod directory for ${c.seconds} s, each removed ${c.lifetimeSeconds} s after it was written (after a ${c.warmSeconds} s warm-up churn; RSS: the lowest in a quiet minute on the emptied node)\n`,
  );
  console.log(
    table(
      [
        'created',
        'removed',
        'knode CPU during',
        'knode peak RSS',
        'settled after the churn',
        'RSS before -> after',
        'open files before -> after',
      ],
      [
        [
          String(c.created),
          String(c.removed),
          `${c.cpuSeconds.toFixed(2)} s`,
          mib(c.peakRssMiB),
          c.settledMs === undefined ? 'did not' : ms(c.settledMs),
          `${mib(c.before.rssMiB)} -> ${mib(c.after.rssMiB)}`,
          `${c.before.openFiles} -> ${c.after.openFiles}`,
        ],
      ],
    ),
  );
  console.log(
    `\nknode's memory on the emptied node, after each churn (JavaScript: the V8 heap in use; held outside it: external memory, buffers' backing stores; glibc heap: resident pages of its [heap] mapping)\n`,
  );
  const footprints = [
    ['before (after the warm-up)', c.before],
    ['after the churn', c.after],
    ...c.again.map((f, i) => [`after churn ${i + 2}`, f] as const),
  ] as const;
  console.log(
    table(
      ['when', 'RSS', 'JavaScript heap', 'held outside it', 'glibc heap', 'malloc in use', 'malloc keeps free', 'open files'],
      footprints.map(([when, f]) => [
        when,
        mib(f.rssMiB),
        mib(f.jsHeapMiB),
        mib(f.externalMiB),
        mib(f.mallocHeapMiB),
        f.malloc ? mib(f.malloc.inUseMiB) : '-',
        f.malloc ? mib(f.malloc.freeMiB) : '-',
        String(f.openFiles),
      ]),
    ),
  );
  console.log(
    '(malloc in use and kept free: mallinfo2() in knode, called by gdb; "-" without gdb and glibc\'s debug symbols, or with another allocator)',
  );
  if (c.trimmedRssMiB !== undefined)
    console.log(`RSS after the last of them once glibc gave back the free pages it kept (malloc_trim(0) by gdb): ${mib(c.trimmedRssMiB)}`);
}

function passes(h: Histogram): string {
  if (h.count === 0) return '0';
  return `${h.count}, ${ms(histogramQuantile(h, 0.5) * 1000)}, ${ms(histogramQuantile(h, 0.99) * 1000)}`;
}

const goal = (figure: string, limit: string, met: boolean) => `${figure} (goal ${limit}) ${met ? 'met' : 'NOT met'}`;
const mib = (value: number) => `${value.toFixed(1)} MiB`;
const perPod = (seconds: number, pods: number) => `${((seconds * 1000) / pods).toFixed(1)} ms/pod`;
const percent = (cores: number) => `${(cores * 100).toFixed(1)}%`;

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}
