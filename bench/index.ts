// `npm run bench`: every benchmark, printed as tables with the goals beside
// them. Needs root for containerd (as CI has); KNODE_BENCH_CONTAINERD=off
// measures the embedded runtime alone.
import { benchCri, reportCri, type CriFigures } from './cri.js';
import { startContainerd, startEmbedded, type BenchRuntime } from './runtimes.js';
import { median, ms } from './stats.js';

const PODS = Number(process.env.KNODE_BENCH_PODS ?? 100);

async function withRuntime<T>(start: () => Promise<BenchRuntime>, fn: (rt: BenchRuntime) => Promise<T>): Promise<T> {
  const rt = await start();
  try {
    return await fn(rt);
  } finally {
    await rt.stop();
  }
}

const figures: CriFigures[] = [];
figures.push(await withRuntime(startEmbedded, (rt) => benchCri(rt, PODS, 1000)));
if (process.env.KNODE_BENCH_CONTAINERD !== 'off') figures.push(await withRuntime(startContainerd, (rt) => benchCri(rt, PODS)));

console.log(`\nCRI calls (${PODS} one-container pods, host network, then status and list with them present)\n`);
console.log(reportCri(figures));
const embedded = figures[0];
const perPod = median(embedded.samples['sandbox+create+start']);
const list1000 = median(embedded.listLarge!.samples);
console.log(`\nGoals (embedded runtime): sandbox+create+start median ${ms(perPod)} (goal <= 10 ms) ${perPod <= 10 ? 'met' : 'NOT met'}; ` +
  `ListContainers with ${embedded.listLarge!.containers} containers median ${ms(list1000)} (goal <= 5 ms) ${list1000 <= 5 ? 'met' : 'NOT met'}`);
for (const f of figures.slice(1)) {
  const ratio = median(f.samples['sandbox+create+start']) / perPod;
  console.log(`sandbox+create+start: ${f.runtime} takes ${ratio.toFixed(1)}x the embedded runtime's median`);
}
