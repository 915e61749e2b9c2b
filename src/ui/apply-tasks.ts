import { figures, Listr, ListrDefaultRendererLogLevels, ListrLogger, ProcessOutput } from 'listr2';
import type { LifecycleEvent } from '../engine/events.js';
import type { PodOutcome } from '../engine/run-once.js';
import { workloadTasks, type StageSinks, type WorkloadFeed } from './workload-tasks.js';

/** A line for each stage of a pod's start, as the task list shows it. */
function stageOf(e: LifecycleEvent): string | undefined {
  const c = e.container ? ` ${e.container}` : '';
  switch (e.type) {
    case 'PodAdmitted':
      return 'admitted';
    case 'SandboxCreated':
      return 'sandbox created';
    case 'PodNetworkMissing':
      return "no pod network: on the host's network";
    case 'ImagePulling':
      return `pulling image for${c}`;
    case 'ImagePulled':
      return `image pulled for${c}`;
    case 'ContainerCreated':
      return `created${c}`;
    case 'ContainerStarted':
      return `started${c}`;
    case 'ContainerWaiting':
      return `${e.container}: ${e.reason}`;
    case 'PodTerminating':
      return 'terminating';
    default:
      return undefined;
  }
}

export interface ApplyProgress {
  /** Subscribes to the engine's events; returns the unsubscribe. */
  subscribe(listener: (event: LifecycleEvent) => void): () => void;
  /** Resolves with every pod's outcome once all are decided. */
  outcomes: Promise<PodOutcome[]>;
  /** The manifests' workloads, each shown with its pods under it. */
  workloads?: WorkloadFeed;
}

/**
 * Renders `knode apply` as a listr2 task list, one task per pod showing each
 * stage as it happens, then one per workload with its pods under it, on
 * stderr (stdout stays free for -o json|yaml). Not a TTY: one plain line per
 * task state.
 */
export async function renderApplyTasks(
  pods: string[],
  progress: ApplyProgress,
  tty: boolean,
  out: NodeJS.WriteStream = process.stderr,
): Promise<void> {
  const waiters = new Map<string, { stage: (line: string) => void; done: (o: PodOutcome) => void }>();
  const workloadPods: StageSinks = new Map();
  const unsubscribe = progress.subscribe((e) => {
    const line = stageOf(e);
    if (line) (waiters.get(e.pod)?.stage ?? workloadPods.get(e.pod))?.(line);
  });
  void progress.outcomes.then((all) => {
    for (const o of all) waiters.get(o.pod)?.done(o);
  });
  // listr2 draws only when stdout is a terminal too; with stdout redirected (-o json > file) it
  // would fall back to plain lines on stdout, in the JSON. Plain lines then, on stderr.
  const draw = tty && process.stdout.isTTY === true;
  const logger = new ListrLogger({ processOutput: new ProcessOutput(out, out) });
  const list = new Listr(
    [
      ...pods.map((pod) => ({
        title: pod,
        task: (_ctx: unknown, task: { output: string; title: string }) =>
          new Promise<void>((resolve, reject) => {
            waiters.set(pod, {
              stage: (line) => (task.output = line),
              done: (o) => {
                const took = `${(o.durationMs / 1000).toFixed(1)}s`;
                if (o.ok) {
                  task.title = `${pod}: ${o.result} in ${took}`;
                  resolve();
                } else {
                  reject(new Error(`${pod}: ${o.result}${o.message ? `: ${o.message}` : ''}`));
                }
              },
            });
          }),
      })),
      ...(progress.workloads ? workloadTasks(progress.workloads, draw, workloadPods) : []),
    ],
    {
      concurrent: true,
      exitOnError: false,
      // knode apply owns SIGINT (listr2's own handler would exit 127 before the summary).
      registerSignalListeners: false,
      renderer: draw ? 'default' : 'simple',
      // A workload's pods stay under it once it is done; a failed workload is crossed as a failed pod is.
      rendererOptions: {
        logger,
        collapseErrors: false,
        collapseSubtasks: false,
        icon: { [ListrDefaultRendererLogLevels.FAILED_WITH_FAILED_SUBTASKS]: figures.cross },
      },
      fallbackRendererOptions: { logger },
    },
  );
  try {
    await list.run();
  } catch {
    // failures are reported per task and again in the summary
  } finally {
    unsubscribe();
  }
}
