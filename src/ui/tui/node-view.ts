import type { ContainerSummary, LifecycleEvent } from '../../engine/events.js';
import { isQuiet } from '../../engine/events-table.js';

export type WorkerState = 'syncing' | 'terminating' | 'terminated' | 'finished' | 'rejected';

export type ContainerView = ContainerSummary;

export interface PodView {
  pod: string;
  uid: string;
  phase: string;
  /** kubectl's STATUS column. */
  status: string;
  ready: string;
  restarts: number;
  worker: WorkerState;
  lastSync?: number;
  /** When the current CrashLoopBackOff ends. */
  backoffUntil?: number;
  lastError?: string;
  containers: Map<string, ContainerView>;
  seenAt: number;
}

/** A workload the local controllers run: its `kubectl get` row without ages. */
export interface WorkloadView {
  /** `deployment.apps/web`, as kubectl names it. */
  name: string;
  namespace: string;
  cells: [string, string][];
}

export interface NodeView {
  nodeName: string;
  runtime: string;
  sources: Map<string, boolean>;
  plegMode: string;
  runtimeHealthy: boolean;
  /** knode run --drain-on-exit is stopping every pod before knode exits. */
  draining?: boolean;
  pods: Map<string, PodView>;
  /** By kind/namespace/name. */
  workloads: Map<string, WorkloadView>;
  /** The newest events, oldest first. */
  events: LifecycleEvent[];
  lastRelistMs?: number;
}

const EVENT_HISTORY = 200;

export function emptyNodeView(): NodeView {
  return {
    nodeName: '',
    runtime: '',
    sources: new Map(),
    plegMode: 'starting',
    runtimeHealthy: true,
    pods: new Map(),
    workloads: new Map(),
    events: [],
  };
}

/**
 * The TUI's picture of the node, folded from the engine's event stream alone
 * (the UI never reaches into the engine): the node header, one row per pod
 * worker, the recent events. Mutates and returns `view`.
 */
export function applyEvent(view: NodeView, e: LifecycleEvent): NodeView {
  switch (e.type) {
    case 'NodeStarted': {
      const d = partial(e.detail);
      view.nodeName = d.nodeName ?? '';
      view.runtime = `${d.runtimeName ?? ''} ${d.runtimeVersion ?? ''}`.trim();
      for (const s of d.sources ?? []) if (!view.sources.has(s)) view.sources.set(s, false);
      break;
    }
    case 'SourceReady':
      view.sources.set(partial(e.detail).source ?? '', true);
      break;
    case 'PLEGRelist': {
      const d = partial(e.detail);
      if ('durationMs' in d && d.durationMs !== undefined) view.lastRelistMs = d.durationMs;
      if ('mode' in d && d.mode) view.plegMode = d.mode;
      break;
    }
    case 'NodeShutdown':
      view.draining = true;
      break;
    case 'RuntimeUnhealthy':
    case 'RuntimeHealthy':
      view.runtimeHealthy = e.type === 'RuntimeHealthy';
      break;
    case 'WorkloadStatus': {
      const d = partial(e.detail);
      if (!d.kind || !d.name) break;
      const key = `${d.kind}/${d.namespace ?? ''}/${d.name}`;
      if (d.deleted) view.workloads.delete(key);
      else view.workloads.set(key, { name: `${d.resource ?? d.kind}/${d.name}`, namespace: d.namespace ?? '', cells: d.cells ?? [] });
      break;
    }
  }
  if (e.uid) applyPodEvent(view, e);
  if (!isQuiet(e)) {
    view.events.push(e);
    if (view.events.length > EVENT_HISTORY) view.events.splice(0, view.events.length - EVENT_HISTORY);
  }
  return view;
}

function podOf(view: NodeView, e: LifecycleEvent): PodView {
  let pod = view.pods.get(e.uid);
  if (!pod) {
    pod = {
      pod: e.pod,
      uid: e.uid,
      phase: 'Pending',
      status: 'Pending',
      ready: '0/0',
      restarts: 0,
      worker: 'syncing',
      containers: new Map(),
      seenAt: e.at,
    };
    view.pods.set(e.uid, pod);
  }
  if (e.pod) pod.pod = e.pod;
  return pod;
}

function applyPodEvent(view: NodeView, e: LifecycleEvent): void {
  if (e.type === 'PodRemoved' || e.type === 'WorkerFinished') {
    const pod = view.pods.get(e.uid);
    if (pod && e.type === 'WorkerFinished') pod.worker = 'finished';
    if (e.type === 'PodRemoved' && pod) pod.worker = pod.worker === 'finished' ? 'finished' : 'terminating';
    return;
  }
  // Events about a pod that change nothing in its row: they must not bring back a pod that went.
  // A workload's events carry its uid: they are no pod's either.
  const rowless = [
    'PLEGRelist',
    'OrphanKilled',
    'ManifestError',
    'ContainerLogRotated',
    'ContainerLogRotationFailed',
    'WorkloadEvent',
    'WorkloadStatus',
  ];
  if (rowless.includes(e.type)) return;
  const pod = podOf(view, e);
  const container = (name: string) => {
    let c = pod.containers.get(name);
    if (!c) {
      c = { name, state: 'waiting', reason: 'ContainerCreating', restartCount: 0 };
      pod.containers.set(name, c);
    }
    return c;
  };
  switch (e.type) {
    case 'StatusChanged': {
      const d = partial(e.detail);
      pod.phase = d.phase ?? pod.phase;
      pod.status = d.status ?? pod.status;
      pod.ready = d.ready ?? pod.ready;
      pod.restarts = d.restarts ?? pod.restarts;
      if (pod.status !== 'CrashLoopBackOff') pod.backoffUntil = undefined;
      for (const c of d.containers ?? []) Object.assign(container(c.name), c);
      break;
    }
    case 'PodRejected':
      pod.worker = 'rejected';
      pod.status = e.reason ?? 'Rejected';
      break;
    case 'PodTerminating':
      pod.worker = 'terminating';
      break;
    case 'PodTerminated':
      pod.worker = 'terminated';
      break;
    case 'PodSynced':
      pod.lastSync = e.at;
      pod.lastError = undefined;
      break;
    case 'SyncFailed':
      pod.lastError = e.message;
      break;
    case 'ContainerStarted': {
      const c = container(e.container);
      c.state = 'running';
      c.reason = '';
      c.restartCount = partial(e.detail).restartCount ?? c.restartCount;
      break;
    }
    case 'ContainerWaiting': {
      const c = container(e.container);
      c.state = 'waiting';
      c.reason = e.reason ?? '';
      pod.lastError = e.message;
      break;
    }
    case 'ContainerBackOff': {
      const { remainingMs } = partial(e.detail);
      if (remainingMs !== undefined) pod.backoffUntil = e.at + remainingMs;
      break;
    }
  }
}

/** An event's detail with each field possibly absent: for a field an event leaves out, the view keeps what it had. */
function partial<D extends object>(detail: D | undefined): Partial<D> {
  return detail ?? {};
}
