// The workloads of `knode apply` in its task list: a task per workload,
// titled as `kubectl get` names it with its progress, and its pods under it
// as subtasks that come and go as the controllers make and delete them.
import { Listr, ListrErrorTypes, ListrTaskEventType, type ListrTask } from 'listr2';

/** One pod of a workload, as the task list shows it. */
export interface PodProgress {
  /** `namespace/name`, as the engine's events name the pod. */
  ref: string;
  name: string;
  /** kubectl's READY column: ready containers of all. */
  ready: string;
  /** kubectl's STATUS column. */
  status: string;
  restarts: number;
  /** done: ready (Succeeded for a Job's pod); failed: the pod failed; waiting: neither yet. */
  state: 'waiting' | 'done' | 'failed';
  /** Why it failed, when it did; while it waits, which container keeps failing, if one does. */
  message?: string;
}

/** One workload of the manifests, as the task list shows it. */
export interface WorkloadProgress {
  /** `kind/namespace/name`. */
  key: string;
  /** `deployment.apps/web`, with ` -n NAMESPACE` outside the default namespace. */
  name: string;
  /** `1/2 ready`, `3/3 complete`. */
  summary: string;
  /** As `kubectl rollout status` judges it. */
  state: 'waiting' | 'ready' | 'failed';
  /** kubectl's line for that state. */
  message: string;
  pods: PodProgress[];
}

/** The workloads' progress, as the apply command reads it from the local controllers. */
export interface WorkloadFeed {
  current(): WorkloadProgress[];
  /** Calls LISTENER with a workload each time what it shows changes; returns the unsubscribe. */
  subscribe(listener: (workload: WorkloadProgress) => void): () => void;
  /** Resolves once apply stops waiting, with why for the workloads not done by then ("timed out after 4m"). */
  ended: Promise<string>;
}

/** Where a pod's start stages go: the engine's events name the pod by `namespace/name`. */
export type StageSinks = Map<string, (line: string) => void>;

/** What the task functions are handed, of listr2's task wrapper. */
interface TaskHandle {
  title: string;
  output: string;
  skip(message: string): void;
  report(error: Error, type: ListrErrorTypes): void;
  task: { emit(event: string, data: unknown): void };
}

const heading = (w: WorkloadProgress) => `${w.name}  ${w.summary}`;
const podTitle = (p: PodProgress) => `${p.name}  ${p.ready}  ${p.status}${p.restarts > 0 ? `  ${p.restarts} restarts` : ''}`;

/**
 * A workload's pod, as a subtask: its title follows the pod's STATUS and its
 * output the pod's start stages; it ends done, failed, or skipped as deleted.
 * Updates before listr2 runs its function are kept and shown then.
 */
class PodTask {
  private handle: TaskHandle | undefined;
  private settle: { resolve: () => void; reject: (e: Error) => void } | undefined;
  private outcome: 'done' | 'failed' | 'deleted' | undefined;
  private settled = false;
  private stage: string | undefined;

  constructor(private pod: PodProgress) {}

  definition(): ListrTask {
    return {
      title: podTitle(this.pod),
      exitOnError: false,
      task: (_ctx, handle) =>
        new Promise<void>((resolve, reject) => {
          this.handle = handle as unknown as TaskHandle;
          this.settle = { resolve, reject };
          this.show();
        }),
    };
  }

  update(pod: PodProgress): void {
    if (this.outcome) return;
    this.pod = pod;
    if (pod.state !== 'waiting') this.outcome = pod.state;
    this.show();
  }

  stageLine(line: string): void {
    this.stage = line;
    this.show();
  }

  /** The workload is done: a pod still waiting ends ready when it is, failed otherwise. */
  end(ok: boolean): void {
    if (this.outcome) return;
    this.outcome = ok ? 'done' : 'failed';
    this.show();
  }

  deleted(): void {
    this.outcome ??= 'deleted';
    this.show();
  }

  private show(): void {
    if (!this.handle || !this.settle || this.settled) return;
    this.handle.title = podTitle(this.pod);
    if (this.stage && !this.outcome && this.handle.output !== this.stage) this.handle.output = this.stage;
    if (!this.outcome) return;
    this.settled = true;
    if (this.outcome === 'done') this.settle.resolve();
    else if (this.outcome === 'deleted') {
      this.handle.skip(`${this.pod.name}  deleted`);
      this.settle.resolve();
    } else {
      const why = this.pod.message ?? `${this.pod.ready} ready`;
      this.settle.reject(new Error(`${this.pod.name}: ${this.pod.status}: ${why}`));
    }
  }
}

/**
 * A workload's subtasks. listr2 runs the tasks a list holds when it starts;
 * the pods come later, so each is added, told to the renderers (the simple
 * one follows a task only once announced), and run here. An untitled first
 * task holds the list open until the workload ends; a workload that failed
 * makes the list throw, so its task fails.
 */
class PodList extends Listr {
  /** Set when the workload failed: says so once its pods have ended, and gives the error that fails its task. */
  failure: (() => Error) | undefined;
  private readonly running: Promise<unknown>[] = [];
  private started = false;

  constructor(
    private readonly parent: TaskHandle,
    until: Promise<void>,
  ) {
    super(
      [
        {
          task: async () => {
            await until;
            await Promise.allSettled(this.running);
          },
        },
      ],
      { concurrent: true, exitOnError: false },
      parent.task as never,
    );
  }

  grow(task: ListrTask): void {
    this.add(task);
    if (!this.started) return; // run with the others
    const added = this.tasks[this.tasks.length - 1];
    this.parent.task.emit(ListrTaskEventType.SUBTASK, [added]);
    this.running.push((this as unknown as { runTask(t: unknown): Promise<void> }).runTask(added));
  }

  override async run(context?: unknown): Promise<unknown> {
    this.started = true;
    const result = await super.run(context as never);
    if (this.failure) throw this.failure();
    return result;
  }
}

/**
 * The tasks of the feed's workloads: each ends when its workload is ready
 * (`deployment.apps/web  2/2 ready in 3.1s`), fails when it failed or when
 * apply stopped waiting first. On a terminal the reason is in the title;
 * in plain lines it follows as the failure, as for a pod.
 */
export function workloadTasks(feed: WorkloadFeed, tty: boolean, stages: StageSinks): ListrTask[] {
  return feed.current().map((first) => ({
    title: heading(first),
    task: (_ctx, wrapper) => {
      const handle = wrapper as unknown as TaskHandle;
      const started = Date.now();
      let finish!: () => void;
      const list = new PodList(handle, new Promise<void>((resolve) => (finish = resolve)));
      const pods = new Map<string, PodTask>();
      let last = first;
      let open = true;
      const end = (ok: boolean, why?: string) => {
        open = false;
        unsubscribe();
        for (const pod of pods.values()) pod.end(ok);
        for (const ref of pods.keys()) stages.delete(ref);
        if (ok) handle.title = `${heading(last)} in ${((Date.now() - started) / 1000).toFixed(1)}s`;
        else
          list.failure = () => {
            if (tty) handle.title = `${heading(last)}: ${why}`;
            else handle.report(new Error(why), ListrErrorTypes.HAS_FAILED);
            return new Error(`${heading(last)}: ${why}`);
          };
        finish();
      };
      const show = (w: WorkloadProgress) => {
        if (!open || w.key !== first.key) return;
        last = w;
        for (const p of w.pods) {
          let pod = pods.get(p.ref);
          if (!pod) {
            pod = new PodTask(p);
            pods.set(p.ref, pod);
            stages.set(p.ref, (line) => pod!.stageLine(line));
            list.grow(pod.definition());
          }
          pod.update(p);
        }
        for (const [ref, pod] of pods) if (!w.pods.some((p) => p.ref === ref)) pod.deleted();
        handle.title = heading(w);
        if (w.state === 'waiting' && handle.output !== w.message) handle.output = w.message;
        if (w.state === 'ready') end(true);
        else if (w.state === 'failed') end(false, w.message);
      };
      const unsubscribe = feed.subscribe(show);
      void feed.ended.then((why) => {
        if (open) end(false, why);
      });
      show(feed.current().find((w) => w.key === first.key) ?? first);
      return list as never; // a Listr of its own renderer types, which listr2's typings do not relate
    },
  }));
}
