import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ImageService, RuntimeService } from '../cri/runtime-service.js';
import type { EventStream, LifecycleEvent } from './events.js';
import { registerProcessMetrics } from './process-metrics.js';

/** The kubelet's buckets for pod start-up (seconds). */
const POD_START_BUCKETS = [0.5, 1, 2, 3, 4, 5, 6, 8, 10, 20, 30, 45, 60, 120, 180, 240, 300, 360, 480, 600, 900, 1200, 1800, 2700, 3600];
const OPERATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface RuntimeCounts {
  pods: number;
  containers: Record<string, number>;
}

/**
 * The kubelet's Prometheus metrics, with its names and types, fed by the
 * event stream and by timing every CRI call. Served at /metrics.
 */
export class KubeletMetrics {
  readonly registry = new Registry();
  private readonly podStart: Histogram;
  private readonly podStartSli: Histogram;
  private readonly workerDuration: Histogram<'operation_type'>;
  private readonly relistDuration: Histogram;
  private readonly relistInterval: Histogram;
  private readonly runtimeDuration: Histogram<'operation_type'>;
  private readonly runtimeErrors: Counter<'operation_type'>;
  private readonly startedContainers: Counter<'container_type'>;
  private readonly startedPods: Counter;
  private readonly seen = new Map<string, { at: number; pulling: number }>();
  private lastRelist = 0;

  /** WAITING: the pods whose sync waits for its turn to ask for a sandbox (maxParallelSandboxStarts). */
  constructor(events: EventStream, counts: () => RuntimeCounts, waiting: () => number = () => 0) {
    const registers = [this.registry];
    this.podStart = new Histogram({
      name: 'kubelet_pod_start_duration_seconds',
      help: 'Duration in seconds from kubelet seeing a pod for the first time to the pod starting to run',
      buckets: POD_START_BUCKETS,
      registers,
    });
    this.podStartSli = new Histogram({
      name: 'kubelet_pod_start_sli_duration_seconds',
      help: 'Duration in seconds to start a pod, excluding time to pull images',
      buckets: POD_START_BUCKETS,
      registers,
    });
    this.workerDuration = new Histogram({
      name: 'kubelet_pod_worker_duration_seconds',
      help: 'Duration in seconds to sync a single pod, by operation type',
      labelNames: ['operation_type'],
      buckets: OPERATION_BUCKETS,
      registers,
    });
    this.relistDuration = new Histogram({
      name: 'kubelet_pleg_relist_duration_seconds',
      help: 'Duration in seconds for relisting pods in PLEG',
      buckets: OPERATION_BUCKETS,
      registers,
    });
    this.relistInterval = new Histogram({
      name: 'kubelet_pleg_relist_interval_seconds',
      help: 'Interval in seconds between relisting in PLEG',
      buckets: OPERATION_BUCKETS,
      registers,
    });
    this.runtimeDuration = new Histogram({
      name: 'kubelet_runtime_operations_duration_seconds',
      help: 'Duration in seconds of runtime operations, by operation type',
      labelNames: ['operation_type'],
      buckets: OPERATION_BUCKETS,
      registers,
    });
    this.runtimeErrors = new Counter({
      name: 'kubelet_runtime_operations_errors_total',
      help: 'Cumulative number of runtime operation errors by operation type',
      labelNames: ['operation_type'],
      registers,
    });
    this.startedContainers = new Counter({
      name: 'kubelet_started_containers_total',
      help: 'Cumulative number of containers started',
      labelNames: ['container_type'],
      registers,
    });
    this.startedPods = new Counter({ name: 'kubelet_started_pods_total', help: 'Cumulative number of pods started', registers });
    new Gauge({
      name: 'kubelet_running_pods',
      help: 'Number of pods that have a running pod sandbox',
      registers,
      collect() {
        this.set(counts().pods);
      },
    });
    new Gauge({
      name: 'kubelet_running_containers',
      help: 'Number of containers currently running',
      labelNames: ['container_state'],
      registers,
      collect() {
        this.reset();
        for (const [state, n] of Object.entries(counts().containers)) this.set({ container_state: state }, n);
      },
    });
    new Gauge({
      name: 'knode_sandbox_starts_waiting',
      help: 'Number of pods waiting for their turn to ask the runtime for a sandbox (maxParallelSandboxStarts)',
      registers,
      collect() {
        this.set(waiting());
      },
    });
    registerProcessMetrics(this.registry);
    events.subscribe((e) => this.observe(e));
  }

  /** Times one CRI call (the kubelet's instrumented runtime service). */
  observeRuntimeCall(method: string, durationMs: number, failed: boolean): void {
    const operation = operationType(method);
    this.runtimeDuration.observe({ operation_type: operation }, durationMs / 1000);
    if (failed) this.runtimeErrors.inc({ operation_type: operation });
  }

  private observe(e: LifecycleEvent): void {
    switch (e.type) {
      case 'PodSeen':
        if (!this.seen.has(e.uid)) this.seen.set(e.uid, { at: e.at, pulling: 0 });
        break;
      case 'ImagePulled': {
        const s = this.seen.get(e.uid);
        if (s && typeof e.detail?.durationMs === 'number') s.pulling += e.detail.durationMs;
        break;
      }
      case 'PodRunning': {
        const s = this.seen.get(e.uid);
        if (!s) break;
        this.podStart.observe((e.at - s.at) / 1000);
        this.podStartSli.observe(Math.max(0, e.at - s.at - s.pulling) / 1000);
        this.seen.delete(e.uid);
        break;
      }
      case 'PodRemoved':
        this.seen.delete(e.uid);
        break;
      case 'PodSynced':
        this.workerDuration.observe({ operation_type: e.detail?.updateType ?? 'sync' }, (e.detail?.durationMs ?? 0) / 1000);
        break;
      case 'PLEGRelist':
        if (!e.detail || !('durationMs' in e.detail)) break;
        this.relistDuration.observe(e.detail.durationMs / 1000);
        if (this.lastRelist) this.relistInterval.observe((e.at - this.lastRelist) / 1000);
        this.lastRelist = e.at;
        break;
      case 'ContainerStarted':
        this.startedContainers.inc({ container_type: e.detail?.containerType ?? 'container' });
        break;
      case 'SandboxCreated':
        this.startedPods.inc();
        break;
    }
  }
}

/** The label of each CRI method named so far: a CRI call is labelled without three regular expressions each time. */
const operationTypes = new Map<string, string>();

/** CRI method names as the kubelet labels them: RunPodSandbox → run_podsandbox. */
export function operationType(method: string): string {
  let label = operationTypes.get(method);
  if (label === undefined) {
    label = method
      .replace(/([a-z])([A-Z])/g, '$1_$2')
      .toLowerCase()
      .replace('pod_sandbox', 'podsandbox');
    operationTypes.set(method, label);
  }
  return label;
}

/**
 * The runtime with every call timed: a proxy that reports each method's
 * duration and failure, whatever implements the CRI interface. Each
 * method's timed wrapper is made once (while the method stays the same),
 * not on each call.
 */
export function instrumentRuntime<T extends RuntimeService & ImageService>(
  runtime: T,
  observe: (method: string, durationMs: number, failed: boolean) => void,
): T {
  const wrappers = new Map<string, { value: unknown; timed: (...args: unknown[]) => unknown }>();
  return new Proxy(runtime, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string' || property === 'getContainerEvents' || property === 'close')
        return value;
      const cached = wrappers.get(property);
      if (cached?.value === value) return cached.timed;
      const method = property[0].toUpperCase() + property.slice(1);
      const timed = (...args: unknown[]) => {
        const started = performance.now();
        const result = value.apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.then(
          (r) => {
            observe(method, performance.now() - started, false);
            return r;
          },
          (err) => {
            observe(method, performance.now() - started, true);
            throw err;
          },
        );
      };
      wrappers.set(property, { value, timed });
      return timed;
    },
  });
}
