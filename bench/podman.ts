// `npm run bench -- podman` (issue 41, "beside podman kube play"): the wall
// time of one command, from its start to every container running, for 1 pod
// and for 10 pods: `knode apply` on the embedded runtime (and on containerd 2,
// unless KNODE_BENCH_CONTAINERD2=off) against `podman kube play` (Debian's
// podman with catatonit). Both run the same manifest (host network, as
// knode's embedded runtime has without a CNI configuration) and the same
// busybox:1.36 image (scripts/busybox-image.sh), imported beforehand. The
// runs are interleaved (knode, podman, knode, podman…); after each one the
// bench checks every container is running and removes the pods
// (`knode delete -f --force`, `podman kube down`) before the next. The sides
// and that loop are bench/podman-runner.ts's, shared with
// bench/podman-workloads.ts.
// KNODE_BENCH_PODMAN_RUNS sets the runs of each (default 5).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { IMAGE, interleave, withPodmanSides } from './podman-runner.js';
import { median, ms, table } from './stats.js';

const POD_COUNTS = [1, 10] as const;

export interface PodmanFigures {
  side: string;
  pods: number;
  samples: number[];
}

/** `pods` one-container pods in one file, on the host's network. */
function manifest(dir: string, pods: number): string {
  const file = join(dir, `pods-${pods}.yaml`);
  const docs = Array.from({ length: pods }, (_, i) =>
    stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `podbench-${i}` },
      spec: {
        hostNetwork: true,
        terminationGracePeriodSeconds: 0,
        containers: [{ name: 'sleep', image: IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sleep', 'infinity'] }],
      },
    }),
  );
  writeFileSync(file, docs.join('---\n'));
  return file;
}

export async function benchPodman(runs = Number(process.env.KNODE_BENCH_PODMAN_RUNS ?? 5)): Promise<PodmanFigures[]> {
  return withPodmanSides((sides, dir) => {
    const figures: PodmanFigures[] = [];
    for (const pods of POD_COUNTS) {
      const file = manifest(dir, pods);
      const bySide = interleave(sides, runs, {
        file,
        time: (side) => side.apply(file),
        check: (side) => {
          const up = side.running();
          if (up !== pods) throw new Error(`${side.name}: ${up} of ${pods} containers running after the command`);
        },
      });
      figures.push(...bySide.map(({ samples }, i) => ({ side: sides[i].name, pods, samples })));
    }
    return figures;
  });
}

export function reportPodman(figures: PodmanFigures[]): string {
  const podman = (pods: number) => figures.find((f) => f.side === 'podman kube play' && f.pods === pods)!;
  const rows = figures.map((f) => [
    f.side,
    String(f.pods),
    String(f.samples.length),
    ms(median(f.samples)),
    ms(Math.min(...f.samples)),
    ms(Math.max(...f.samples)),
    `${(median(f.samples) / median(podman(f.pods).samples)).toFixed(2)}x`,
  ]);
  const goal = (side: string, limit: number) => {
    const ten = figures.find((f) => f.side.startsWith(side) && f.pods === 10);
    if (!ten) return [];
    const ratio = median(ten.samples) / median(podman(10).samples);
    return [`Goal: ${ten.side}, 10 pods, <= ${limit}x podman kube play: ${ratio.toFixed(2)}x ${ratio <= limit ? 'met' : 'NOT met'}`];
  };
  return [
    '\nOne command, from its start to every container running (interleaved runs; busybox:1.36 imported beforehand; host network)\n',
    table(['command', 'pods', 'runs', 'p50', 'min', 'max', 'p50 / podman'], rows),
    '',
    ...goal('knode apply (embedded)', 0.25),
    ...goal('knode apply (containerd', 0.6),
  ].join('\n');
}
