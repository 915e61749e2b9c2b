import { isRestartableInit } from '../api/pod-util.js';
import {
  rfc3339,
  type Container,
  type ContainerState,
  type ContainerStatus,
  type Pod,
  type PodCondition,
  type PodStatus,
} from '../api/v1.js';
import { findContainer, instancesOf, type ContainerInstance, type RuntimePodStatus } from '../container/types.js';
import { shouldContainerBeRestarted } from '../container/helpers.js';
import { hasAnyRegularContainerCreated, podSandboxChanged } from '../kuberuntime/compute-pod-actions.js';
import { getPhase } from './phase.js';
import { qosClassOf } from './qos.js';
import { allContainersRestartingCondition, removedForRestartAll, shouldAllContainersRestart } from './restart-all.js';
import type { ReasonCache } from './reason-cache.js';
import type { PodSyncHandler } from '../lifecycle.js';

export interface StatusContext {
  now: number;
  hostIP: string;
  /** Prefix of container ids in the API (`containerd://`, `knode://`). */
  runtimeName: string;
  reasons: ReasonCache;
  /** The previous API status, for start time, transition times and terminal phases. */
  oldStatus?: PodStatus;
  podIsTerminal: boolean;
  /** Asked whether the pod must fail (the active deadline); the first yes sets phase, reason and message. */
  podSyncHandlers?: PodSyncHandler[];
  /** Readiness and startup probe verdicts for running containers; undefined means no probe. */
  ready?: (name: string, containerId: string) => boolean | undefined;
  started?: (name: string, containerId: string) => boolean | undefined;
}

/**
 * The pod's API status from what the runtime reports (the kubelet's
 * generateAPIPodStatus): container statuses with waiting/running/terminated
 * states and the last termination, the phase, and the conditions.
 */
export function generateAPIPodStatus(pod: Pod, runtime: RuntimePodStatus, ctx: StatusContext): PodStatus {
  const inits = pod.spec.initContainers ?? [];
  // A restart in place under way (RestartAllContainers): the containers it removed show so.
  const restarting = shouldAllContainersRestart(pod, runtime, ctx.oldStatus);
  const initStatuses = inits.map((c) => containerStatus(pod, c, runtime, ctx, true, inits.length > 0, restarting));
  const statuses = pod.spec.containers.map((c) => containerStatus(pod, c, runtime, ctx, false, inits.length > 0, restarting));
  let phase = getPhase(pod, [...initStatuses, ...statuses], ctx.podIsTerminal);
  const old = ctx.oldStatus;
  // The reason and message belong to the phase: kept while it stays.
  let reason = phase === old?.phase ? old.reason : undefined;
  let message = phase === old?.phase ? old.message : undefined;
  for (const handler of ctx.podSyncHandlers ?? []) {
    const result = handler.shouldEvict(pod);
    if (!result.evict) continue;
    phase = 'Failed';
    reason = result.reason;
    message = result.message;
    break;
  }
  // A pod never leaves a terminal phase.
  if ((old?.phase === 'Succeeded' || old?.phase === 'Failed') && phase !== old.phase) {
    phase = old.phase;
    reason = old.reason;
    message = old.message;
  }

  const podIP = pod.spec.hostNetwork ? ctx.hostIP : (runtime.ips[0] ?? old?.podIP ?? '');
  const status: PodStatus = {
    phase,
    ...(reason ? { reason } : {}),
    ...(message ? { message } : {}),
    conditions: conditions(pod, runtime, initStatuses, statuses, phase, ctx),
    hostIP: ctx.hostIP,
    hostIPs: [{ ip: ctx.hostIP }],
    ...(podIP ? { podIP, podIPs: [{ ip: podIP }] } : {}),
    startTime: old?.startTime ?? rfc3339(ctx.now),
    ...(inits.length > 0 ? { initContainerStatuses: initStatuses } : {}),
    // Regular containers by name (Go's byte order), as the kubelet sorts them; init containers stay in spec order.
    containerStatuses: [...statuses].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    qosClass: qosClassOf(pod),
  };
  return status;
}

function containerStatus(
  pod: Pod,
  c: Container,
  runtime: RuntimePodStatus,
  ctx: StatusContext,
  isInit: boolean,
  hasInits: boolean,
  restarting: boolean,
): ContainerStatus {
  const [newest, previous] = instancesOf(runtime, c.name);
  const old = [...(ctx.oldStatus?.initContainerStatuses ?? []), ...(ctx.oldStatus?.containerStatuses ?? [])].find((s) => s.name === c.name);
  let status: ContainerStatus = {
    name: c.name,
    state: {},
    lastState: {},
    ready: false,
    restartCount: 0,
    image: c.image ?? '',
    imageID: '',
    started: false,
  };
  if (!newest) status = withoutInstance(pod, status, old, hasInits, restarting);
  else {
    status.containerID = `${ctx.runtimeName}://${newest.id}`;
    status.image = displayImage(newest, c);
    status.imageID = newest.imageRef;
    status.restartCount = Math.max(newest.restartCount, old?.restartCount ?? 0);
    status.state = stateOf(newest, ctx.runtimeName);
    // The last termination outlives the runtime's record of it, as in the kubelet (RestartAllContainersOnContainerExits, on
    // since v1.36): a failed run that garbage collection or the init-container prune removed stays the lastState once a
    // retry succeeds. The old status's own termination, when it was another instance, else its lastState.
    if (old?.state?.terminated && old.containerID !== status.containerID) status.lastState = { terminated: old.state.terminated };
    else if (old?.lastState?.terminated) status.lastState = { terminated: old.lastState.terminated };
    // Running again after a termination the runtime no longer counts (its records gone): one restart more than shown.
    if (newest.state === 'running' && old?.state?.terminated && old.restartCount >= newest.restartCount)
      status.restartCount = old.restartCount + 1;
    if (previous?.state === 'exited') status.lastState = stateOf(previous, ctx.runtimeName);
    if (newest.state === 'running') {
      status.started = ctx.started?.(c.name, newest.id) ?? true;
      // A regular init container is ready only once it has succeeded (the prober manager's rule); a sidecar as any container.
      status.ready = status.started && (!isInit || isRestartableInit(c)) && (ctx.ready?.(c.name, newest.id) ?? true);
    }
    // An init container that ran to completion counts as ready.
    if (isInit && !isRestartableInit(c) && newest.state === 'exited' && newest.exitCode === 0) status.ready = true;
  }
  // An init container whose records are gone while a regular container was created: it succeeded, as the kubelet infers.
  if (isInit && !newest && !isRestartableInit(c) && status.state?.waiting && hasAnyRegularContainerCreated(pod, runtime)) {
    status.state = { terminated: { exitCode: 0, reason: 'Completed', message: INIT_STATUS_LOST } };
    return status;
  }
  // Why it waits, unless it will not start again.
  const failure = ctx.reasons.get(pod.metadata.uid ?? '', c.name);
  if (failure && newest?.state !== 'running' && willStartAgain(pod, c, runtime, isInit)) {
    if (status.state?.terminated) status.lastState = { terminated: status.state.terminated };
    status.state = { waiting: { reason: failure.reason, message: failure.message } };
  }
  return status;
}

const INIT_STATUS_LOST =
  'Unable to get init container status from container runtime and pod has been initialized, treat it as exited normally';

/**
 * A container the runtime has no record of (never created, or removed), as the kubelet's
 * convertToAPIContainerStatuses shows it from the old status: the old status itself when it had
 * terminated; else waiting, with the old restart count and last state, and a container that was
 * running and vanished counted as terminated (ContainerStatusUnknown, 137) and restarted; one a
 * restart in place removed, waiting for it (RestartingAllContainers).
 */
function withoutInstance(
  pod: Pod,
  status: ContainerStatus,
  old: ContainerStatus | undefined,
  hasInits: boolean,
  restarting: boolean,
): ContainerStatus {
  const waiting: ContainerStatus = { ...status, state: { waiting: { reason: hasInits ? 'PodInitializing' : 'ContainerCreating' } } };
  if (!old) return waiting;
  const base = old.state?.terminated ? { ...old } : { ...waiting, restartCount: old.restartCount, lastState: old.lastState ?? {} };
  // Removed by a restart in place (RestartAllContainers), unless it already waited before.
  const removed = restarting ? removedForRestartAll(base, old) : undefined;
  if (removed) return removed;
  if (old.state?.terminated) return base;
  waiting.restartCount = old.restartCount;
  waiting.lastState = old.lastState ?? {};
  if (old.state?.running && !waiting.lastState.terminated) {
    waiting.lastState = {
      terminated: {
        exitCode: 137,
        reason: 'ContainerStatusUnknown',
        message: 'The container could not be located when the pod was deleted.  The container used to be Running',
      },
    };
    if (!pod.metadata.deletionTimestamp) waiting.restartCount += 1;
  }
  return waiting;
}

/**
 * The kubelet's ShouldContainerBeRestarted as its status sees it: never a regular init container
 * that succeeded; always a sidecar (its own restartPolicy Always wins over the pod's); otherwise
 * as the pod's restart policy says, so an init container that failed to start in a pod that never
 * restarts stays terminated (StartError), and the pod fails.
 */
function willStartAgain(pod: Pod, c: Container, runtime: RuntimePodStatus, isInit: boolean): boolean {
  const newest = findContainer(runtime, c.name);
  if (isInit && !isRestartableInit(c) && newest?.state === 'exited' && newest.exitCode === 0) return false;
  if (isRestartableInit(c) && !pod.metadata.deletionTimestamp) return newest?.state !== 'running';
  return shouldContainerBeRestarted(c, pod, runtime);
}

function stateOf(c: ContainerInstance, runtimeName: string): ContainerState {
  switch (c.state) {
    case 'running':
      return { running: { startedAt: rfc3339(c.startedAt) } };
    case 'exited':
      return {
        terminated: {
          exitCode: c.exitCode,
          reason: c.reason || (c.exitCode === 0 ? 'Completed' : 'Error'),
          ...(c.message ? { message: c.message } : {}),
          startedAt: rfc3339(c.startedAt || c.createdAt),
          finishedAt: rfc3339(c.finishedAt),
          containerID: `${runtimeName}://${c.id}`,
        },
      };
    default:
      return { waiting: {} };
  }
}

/** The image as users named it: the runtime's reference unless it is a bare image id. */
function displayImage(c: ContainerInstance, spec: Container): string {
  return c.image && !c.image.startsWith('sha256:') ? c.image : (spec.image ?? c.image);
}

function conditions(
  pod: Pod,
  runtime: RuntimePodStatus,
  inits: ContainerStatus[],
  regular: ContainerStatus[],
  phase: string,
  ctx: StatusContext,
): PodCondition[] {
  const initSpecs = pod.spec.initContainers ?? [];
  const completed = phase === 'Succeeded' || phase === 'Failed';
  const anyRegularStarted = regular.some((s) => s.state?.running || s.state?.terminated || s.lastState?.terminated);

  const sandbox = podSandboxChanged(pod, runtime);
  const incomplete = initSpecs
    .filter((c, i) => (isRestartableInit(c) ? !inits[i].started : inits[i].state?.terminated?.exitCode !== 0))
    .map((c) => c.name);
  // Once initialized, a pod stays so while its init containers run again in a restart in place (the kubelet keeps the old True).
  const wasInitialized = ctx.oldStatus?.conditions?.some((o) => o.type === 'Initialized' && o.status === 'True') ?? false;
  const initialized = initSpecs.length === 0 || incomplete.length === 0 || anyRegularStarted || wasInitialized;
  const unready = [
    ...initSpecs.filter((c, i) => isRestartableInit(c) && !inits[i].ready).map((c) => c.name),
    ...regular.filter((s) => !s.ready).map((s) => s.name),
  ];
  const ready = unready.length === 0 && !completed;
  const notReady =
    phase === 'Failed'
      ? { reason: 'PodFailed' }
      : phase === 'Succeeded'
        ? { reason: 'PodCompleted' }
        : { reason: 'ContainersNotReady', message: `containers with unready status: [${unready.join(' ')}]` };

  const list: Omit<PodCondition, 'lastTransitionTime'>[] = [
    sandbox.changed
      ? { type: 'PodReadyToStartContainers', status: 'False', reason: 'PodSandboxNotReady', message: sandbox.reason }
      : { type: 'PodReadyToStartContainers', status: 'True' },
    initialized
      ? { type: 'Initialized', status: 'True', ...(phase === 'Succeeded' ? { reason: 'PodCompleted' } : {}) }
      : {
          type: 'Initialized',
          status: 'False',
          reason: 'ContainersNotInitialized',
          message: `containers with incomplete status: [${incomplete.join(' ')}]`,
        },
    ready ? { type: 'Ready', status: 'True' } : { type: 'Ready', status: 'False', ...notReady },
    ready ? { type: 'ContainersReady', status: 'True' } : { type: 'ContainersReady', status: 'False', ...notReady },
    { type: 'PodScheduled', status: 'True' },
  ];
  const restarting = allContainersRestartingCondition(pod, runtime, ctx.oldStatus, phase);
  if (restarting) list.push(restarting);
  const generated: PodCondition[] = list.map((c) => {
    const previous = ctx.oldStatus?.conditions?.find((o) => o.type === c.type);
    const lastTransitionTime =
      previous && previous.status === c.status && previous.lastTransitionTime ? previous.lastTransitionTime : rfc3339(ctx.now);
    return { ...c, lastProbeTime: null, lastTransitionTime };
  });
  // A disruption (a node shutdown) is a one-time event, not read from the containers: its condition is kept as it was set.
  const disruption = ctx.oldStatus?.conditions?.find((o) => o.type === 'DisruptionTarget');
  return disruption ? [...generated, disruption] : generated;
}
