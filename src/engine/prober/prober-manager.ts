import { isRestartableInit } from '../api/pod-util.js';
import type { Container, Pod, Probe } from '../api/v1.js';
import { ProbeWorker, ResultsCache, shownStarted, type ProbeKind, type WorkerDeps } from './worker.js';

export type ProberDeps = Omit<WorkerDeps, 'results' | 'startedAt'>;

const KINDS: [ProbeKind, (c: Container) => Probe | undefined][] = [
  ['liveness', (c) => c.livenessProbe],
  ['readiness', (c) => c.readinessProbe],
  ['startup', (c) => c.startupProbe],
];

/**
 * The kubelet's prober manager: one worker per container and probe kind,
 * added when the pod is synced and stopped with it, and the results the sync
 * (a failed liveness or startup probe restarts the container) and the
 * status (readiness makes containers Ready; startup makes them Started) read.
 */
export class ProberManager {
  readonly results: Record<ProbeKind, ResultsCache> = {
    liveness: new ResultsCache(),
    readiness: new ResultsCache(),
    startup: new ResultsCache(),
  };
  private readonly workers = new Map<string, ProbeWorker>();
  private readonly startedAt: number;

  constructor(private readonly deps: ProberDeps) {
    this.startedAt = deps.clock.now();
  }

  /** Starts the workers a pod's probes need (again after a spec change); idempotent. */
  addPod(pod: Pod): void {
    const uid = pod.metadata.uid!;
    const containers = [...(pod.spec.initContainers ?? []).filter(isRestartableInit), ...pod.spec.containers];
    for (const container of containers) {
      for (const [kind, probeOf] of KINDS) {
        const probe = probeOf(container);
        const key = `${uid}/${container.name}/${kind}`;
        if (!probe || this.workers.has(key)) continue;
        const worker = new ProbeWorker(kind, pod, container, probe, { ...this.deps, results: this.results, startedAt: this.startedAt });
        this.workers.set(key, worker);
        worker.start();
      }
    }
  }

  /** Stops liveness and startup probing of a terminating pod (readiness goes on, as in the kubelet). */
  stopLivenessAndStartup(uid: string): void {
    this.stop((key) => key.startsWith(`${uid}/`) && !key.endsWith('/readiness'));
  }

  removePod(uid: string): void {
    this.stop((key) => key.startsWith(`${uid}/`));
  }

  /** Why the sync must restart a running container, if a liveness or startup probe says so. */
  probeFailed(container: string, containerId: string): string | undefined {
    if (this.results.liveness.get(containerId) === 'failure') return `Container ${container} failed liveness probe`;
    if (this.results.startup.get(containerId) === 'failure') return `Container ${container} failed startup probe`;
    return undefined;
  }

  /**
   * Ready by its readiness probe; undefined when the container has none. As
   * the kubelet's UpdatePodStatus: a probe that has not said yes is run now;
   * a container that ran before this node started and has no result yet
   * keeps the readiness its pod's status shows (setReadyStateOnKubeletRestart,
   * on since v1.35), so a restart does not make ready pods unready. The
   * kubelet counts only containers started 10 s before it; knode counts any
   * started before it, as a `knode apply` often follows another within
   * seconds. The pod's Ready condition still has to say so.
   */
  isReady(pod: Pod, container: string, containerId: string): boolean | undefined {
    if (!specOf(pod, container)?.readinessProbe) return undefined;
    const result = this.results.readiness.get(containerId);
    if (result === 'success') return true;
    const uid = pod.metadata.uid!;
    this.workers.get(`${uid}/${container}/readiness`)?.trigger();
    return (
      result === undefined &&
      this.ranBefore(uid, container, containerId) &&
      pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true
    );
  }

  /**
   * Started by its startup probe; undefined when the container has none. A
   * container that ran before this node started, with no result yet, keeps
   * the Started its pod's status shows, as the kubelet copies it (while
   * ChangeContainerStatusOnKubeletRestart is off, its default since v1.35);
   * its worker then runs no startup probe.
   */
  isStarted(pod: Pod, container: string, containerId: string): boolean | undefined {
    if (!specOf(pod, container)?.startupProbe) return undefined;
    const result = this.results.startup.get(containerId);
    if (result !== undefined) return result === 'success';
    return this.ranBefore(pod.metadata.uid!, container, containerId) && shownStarted(pod, container, containerId);
  }

  /** Whether the container ID is the newest of its name and started before this node did. */
  private ranBefore(uid: string, container: string, containerId: string): boolean {
    const current = this.deps.current(uid, container);
    return current?.id === containerId && current.startedAt < this.startedAt;
  }

  stopAll(): void {
    this.stop(() => true);
  }

  private stop(match: (key: string) => boolean): void {
    for (const [key, worker] of this.workers) {
      if (!match(key)) continue;
      worker.stop();
      this.workers.delete(key);
    }
  }
}

function specOf(pod: Pod, name: string): Container | undefined {
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers].find((c) => c.name === name);
}
