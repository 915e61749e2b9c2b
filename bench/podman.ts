// `npm run bench -- podman` (issue 41, "beside podman kube play"): the wall
// time of one command, from its start to every container running, for 1 pod
// and for 10 pods: `knode apply` on the embedded runtime (and on containerd 2,
// unless KNODE_BENCH_CONTAINERD2=off) against `podman kube play` (Debian's
// podman with catatonit). Both run the same manifest (host network, as
// knode's embedded runtime has without a CNI configuration) and the same
// busybox:1.36 image (scripts/busybox-image.sh), imported beforehand. The
// runs are interleaved (knode, podman, knode, podman…); after each one the
// bench checks every container is running and removes the pods
// (`knode delete -f --force`, `podman kube down`) before the next.
// KNODE_BENCH_PODMAN_RUNS sets the runs of each (default 5).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startContainerd } from './runtimes.js';
import { median, ms, table } from './stats.js';

const repo = join(import.meta.dirname, '..');
export const IMAGE = 'docker.io/library/busybox:1.36';
const POD_COUNTS = [1, 10] as const;
/** What this VM needs for podman's containers to start: it refuses podman's default rlimits. */
const ULIMITS = 'default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]';

/** One command line under comparison. */
export interface Side {
  name: string;
  /** Runs the manifest; returns the command's wall time in ms. */
  apply(file: string): number;
  /** How many containers of the manifest's pods run now (infra containers aside). */
  running(): number;
  /** How many containers of the manifest's pods have exited with 0 (infra containers aside). */
  succeeded(): number;
  down(file: string): void;
  /** Removes what is left of the manifests in `dir` (after a failed run), and the side's own state. */
  close(dir: string): Promise<void>;
}

export interface PodmanFigures {
  side: string;
  pods: number;
  samples: number[];
}

/** Runs a command; throws with its output when it fails. */
export function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

function timedRun(cmd: string, args: string[], env?: NodeJS.ProcessEnv): number {
  const t0 = performance.now();
  run(cmd, args, env);
  return performance.now() - t0;
}

/** `knode` as users run it, on the embedded runtime of its own root dir or on `endpoint`. */
export function knodeSide(name: string, archive: string, endpoint?: string): Side {
  const root = mkdtempSync(join(tmpdir(), 'knode-bench-podman-'));
  const global = ['--root-dir', root, ...(endpoint ? ['--runtime-endpoint', endpoint] : [])];
  const knode = (...args: string[]) => [join(repo, 'bin/run.js'), ...args, ...global];
  if (!endpoint) {
    // The embedded runtime keeps imported images as pulled; it wants a registries.yaml, empty will do.
    writeFileSync(join(root, 'registries.yaml'), '');
    run(process.execPath, knode('image', 'import', archive, '--base-name', 'docker.io/library/busybox'));
  }
  const containers = () => {
    const list = JSON.parse(run(process.execPath, knode('status', '-o', 'json'))) as {
      items: { status?: { containerStatuses?: { state?: { running?: unknown; terminated?: { exitCode?: number } } }[] } }[];
    };
    return list.items.flatMap((p) => p.status?.containerStatuses ?? []);
  };
  return {
    name,
    apply: (file) => timedRun(process.execPath, knode('apply', '-f', file)),
    running: () => containers().filter((c) => c.state?.running).length,
    succeeded: () => containers().filter((c) => c.state?.terminated?.exitCode === 0).length,
    down: (file) => void run(process.execPath, knode('delete', '-f', file, '--force')),
    close: async (dir) => {
      // Pods outlive the embedded runtime (their holders keep their namespaces), so they go first.
      spawnSync(process.execPath, knode('delete', '-f', dir, '--force'), { stdio: 'ignore' });
      if (!endpoint) spawnSync(process.execPath, knode('runtime', 'stop'), { stdio: 'ignore' });
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * podman with its storage in a fresh directory, and a containers.conf of its
 * own (CONTAINERS_CONF) holding the rlimits this VM accepts, so no system
 * file is edited.
 */
export function podmanSide(archive: string): Side {
  const dir = mkdtempSync(join(tmpdir(), 'knode-bench-podman-store-'));
  writeFileSync(join(dir, 'containers.conf'), `[containers]\n${ULIMITS}\n`);
  const env = { ...process.env, CONTAINERS_CONF: join(dir, 'containers.conf') };
  const podman = (...args: string[]) => ['--root', join(dir, 'storage'), '--runroot', join(dir, 'run'), ...args];
  const id = run('podman', podman('pull', '-q', `oci-archive:${archive}`), env)
    .trim()
    .split('\n')
    .at(-1)!;
  run('podman', podman('tag', id, IMAGE), env);
  /** The state and exit code of each container of the manifests' pods (`{{.State}}` is a phrase in podman 4.3.1, the JSON is not). */
  const states = () =>
    (
      JSON.parse(run('podman', podman('ps', '--all', '--format', 'json'), env)) as { IsInfra: boolean; State: string; ExitCode: number }[]
    ).filter((c) => !c.IsInfra);
  return {
    name: 'podman kube play',
    apply: (file) => timedRun('podman', podman('kube', 'play', file), env),
    running: () => states().filter((c) => c.State === 'running').length,
    succeeded: () => states().filter((c) => c.State === 'exited' && c.ExitCode === 0).length,
    down: (file) => void run('podman', podman('kube', 'down', file), env),
    close: async () => {
      spawnSync('podman', podman('pod', 'rm', '--all', '--force', '--time', '0'), { env, stdio: 'ignore' });
      spawnSync('podman', podman('system', 'reset', '--force'), { env, stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
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

/** What is missing for the podman side, or undefined. */
export function podmanMissing(): string | undefined {
  const missing = ['podman', 'catatonit'].filter((b) => spawnSync('sh', ['-c', `command -v ${b}`]).status !== 0);
  if (missing.length > 0) return `${missing.join(' and ')} missing: apt-get install -y podman catatonit`;
  return undefined;
}

/** Whether a plain `podman kube play` on this machine gets the rlimits it needs (the bench brings its own). */
export function systemConfNote(): string {
  const path = '/etc/containers/containers.conf';
  const has = existsSync(path) && readFileSync(path, 'utf8').includes('default_ulimits');
  return has
    ? `${path} sets default_ulimits`
    : `${path} has no default_ulimits; the bench passes its own containers.conf (CONTAINERS_CONF) with ${ULIMITS}; a plain podman here needs that line in ${path}`;
}

export async function benchPodman(runs = Number(process.env.KNODE_BENCH_PODMAN_RUNS ?? 5)): Promise<PodmanFigures[]> {
  const missing = podmanMissing();
  if (missing) throw new Error(`npm run bench -- podman: ${missing}`);
  console.log(systemConfNote());
  const archive = execFileSync('bash', [join(repo, 'scripts/busybox-image.sh')], { encoding: 'utf8' }).trim();
  const dir = mkdtempSync(join(tmpdir(), 'knode-bench-podman-manifests-'));
  const containerd2 = process.env.KNODE_BENCH_CONTAINERD2 !== 'off' ? await startContainerd('2') : undefined;
  const sides: Side[] = [];
  try {
    sides.push(knodeSide('knode apply (embedded)', archive));
    sides.push(podmanSide(archive));
    if (containerd2) sides.push(knodeSide(`knode apply (${containerd2.name})`, archive, containerd2.endpoint));
    const figures: PodmanFigures[] = [];
    for (const pods of POD_COUNTS) {
      const file = manifest(dir, pods);
      const bySide = sides.map((s) => ({ side: s.name, pods, samples: [] as number[] }));
      // One run of each first, not counted: the first start of each pays for cold caches.
      for (let run = -1; run < runs; run++) {
        for (const [i, side] of sides.entries()) {
          const took = side.apply(file);
          const up = side.running();
          if (up !== pods) throw new Error(`${side.name}: ${up} of ${pods} containers running after the command`);
          side.down(file);
          if (run >= 0) bySide[i].samples.push(took);
        }
      }
      figures.push(...bySide);
    }
    return figures;
  } finally {
    for (const side of sides) await side.close(dir);
    await containerd2?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
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
