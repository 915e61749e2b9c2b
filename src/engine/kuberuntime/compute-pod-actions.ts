import { isRestartableInit, restartPolicyOf } from '../api/pod-util.js';
import { restartsWithoutExitCode, triggersRestartAll } from '../api/restart-policy.js';
import type { Container, Pod } from '../api/v1.js';
import { shouldContainerBeRestarted } from '../container/helpers.js';
import { findContainer, type ContainerInstance, type RuntimePodStatus, type SandboxInstance } from '../container/types.js';
import { hashContainer } from './labels.js';

export interface ContainerToKill {
  name: string;
  container?: Container;
  reason: string;
  message: string;
}

/** What SyncPod must do to bring the runtime in line with the spec (the kubelet's podActions). */
export interface PodActions {
  killPod: boolean;
  createSandbox: boolean;
  sandboxId: string;
  attempt: number;
  /** Indexes into spec.initContainers, in start order. */
  initContainersToStart: number[];
  /** Indexes into spec.containers. */
  containersToStart: number[];
  /** By container id. */
  containersToKill: Map<string, ContainerToKill>;
  /**
   * For a restart in place (RestartAllContainers): every instance of every container, to kill
   * if it runs and remove, the ones whose exit triggered it last (the kubelet's ContainersToReset).
   */
  containersToReset: ContainerToReset[];
}

/** A container instance removed for a restart in place. */
export interface ContainerToReset {
  id: string;
  container: Container;
  /** It still runs (or may): killed, without grace, before it is removed. */
  kill: boolean;
}

export interface ComputeContext {
  /** Why the liveness or startup probe says the container must restart, if it does. */
  probeFailed?: (containerId: string, name: string) => string | undefined;
  /** Whether the container's startup probe has succeeded; undefined when it has none (the kubelet's startup manager). */
  started?: (containerId: string, name: string) => boolean | undefined;
  /** The pod's status says a restart in place is under way (its AllContainersRestarting condition is True). */
  restartAllContainers?: boolean;
}

/**
 * Decides, from the pod spec and what the runtime holds, which sandbox to
 * create, which containers to kill and which to start. Pure: every situation
 * is a row in its table test.
 */
export function computePodActions(pod: Pod, status: RuntimePodStatus, ctx: ComputeContext = {}): PodActions {
  const sandbox = podSandboxChanged(pod, status);
  const changes: PodActions = {
    killPod: sandbox.changed,
    createSandbox: sandbox.changed,
    sandboxId: sandbox.sandboxId,
    attempt: sandbox.attempt,
    initContainersToStart: [],
    containersToStart: [],
    containersToKill: new Map(),
    containersToReset: [],
  };

  // A restart in place: remove every container, the victims first, then those that triggered it.
  if (ctx.restartAllContainers) {
    const inits = containersToReset(pod.spec.initContainers ?? [], status);
    const regular = containersToReset(pod.spec.containers, status);
    changes.containersToReset = [...regular.targets, ...inits.targets, ...regular.sources, ...inits.sources];
    return changes;
  }

  if (sandbox.changed) {
    // A sandbox that died under a pod that must not restart stays dead once its containers have run.
    if (restartPolicyOf(pod) === 'Never' && sandbox.attempt !== 0 && status.containers.length > 0) {
      changes.createSandbox = false;
      return changes;
    }
    // A container that succeeded under OnFailure (its own policy, else the pod's) is done.
    const toStart = pod.spec.containers.flatMap((c, i) =>
      (c.restartPolicy ?? restartPolicyOf(pod)) === 'OnFailure' && succeeded(c, status) ? [] : [i],
    );
    // Initialization done and nothing left to start: no new sandbox, just finish the pod.
    if (hasAnyRegularContainerCreated(pod, status) && toStart.length === 0) {
      changes.createSandbox = false;
      return changes;
    }
    if ((pod.spec.initContainers ?? []).length > 0) {
      changes.initContainersToStart = [0];
      return changes;
    }
    changes.containersToStart = toStart;
    return changes;
  }

  const initialized = computeInitContainerActions(pod, status, changes, ctx);
  if (changes.killPod || !initialized) return changes;

  let keep = 0;
  pod.spec.containers.forEach((container, index) => {
    const current = findContainer(status, container.name);
    if (!current || current.state !== 'running') {
      if (shouldContainerBeRestarted(container, pod, status)) {
        changes.containersToStart.push(index);
        // It may still run: kill it first, so two instances never run at once.
        if (current?.state === 'unknown') {
          changes.containersToKill.set(current.id, {
            name: container.name,
            container,
            reason: 'Unknown',
            message: `Container is in "unknown" state, try killing it before restart`,
          });
        }
      }
      return;
    }
    // A running container is killed on a spec change (and then always restarted),
    // or on a failed liveness/startup probe (restarted unless its policy, else the pod's, is Never;
    // its rules are not read: it has no exit code yet).
    let restart = restartsWithoutExitCode(container, pod.spec);
    let message: string;
    let reason = '';
    const probe = ctx.probeFailed?.(current.id, container.name);
    if (specChanged(current, container)) {
      message = `Container ${container.name} definition changed`;
      restart = true;
    } else if (probe) {
      message = probe;
      reason = 'Unhealthy';
    } else {
      keep++;
      return;
    }
    if (restart) {
      message = `${message}, will be restarted`;
      changes.containersToStart.push(index);
    }
    changes.containersToKill.set(current.id, { name: container.name, container, reason, message });
  });

  if (keep === 0 && changes.containersToStart.length === 0) {
    changes.killPod = true;
    // Sidecars do not keep a pod alive once its regular containers are done.
    changes.initContainersToStart = [];
  }
  return changes;
}

interface SandboxChange {
  changed: boolean;
  attempt: number;
  sandboxId: string;
  /** Why a new sandbox is needed (the kubelet's PodSandboxNotReady messages); '' when none is. */
  reason: string;
}

/** Whether the pod needs a new sandbox: none yet, several ready, the newest not ready, or its network mode changed. */
export function podSandboxChanged(pod: Pod, status: RuntimePodStatus): SandboxChange {
  const [newest] = status.sandboxes;
  if (!newest) return { changed: true, attempt: 0, sandboxId: '', reason: 'no pod sandbox exists' };
  const again = (reason: string) => ({ changed: true, attempt: newest.attempt + 1, sandboxId: newest.id, reason });
  if (status.sandboxes.filter((s) => s.state === 'ready').length > 1)
    return again('multiple pod sandboxes are ready and need to be reconciled');
  if (newest.state !== 'ready') return again('pod sandbox is not ready');
  if (networkChanged(pod, newest)) return { ...again('network namespace mode changed and sandbox needs to be recreated'), sandboxId: '' };
  if (!pod.spec.hostNetwork && newest.ip === '') return again('pod sandbox has no IP address');
  return { changed: false, attempt: newest.attempt, sandboxId: newest.id, reason: '' };
}

function networkChanged(pod: Pod, sandbox: SandboxInstance): boolean {
  return !!pod.spec.hostNetwork !== (sandbox.network === 'NODE');
}

/**
 * Init containers run one at a time, in order, each to success; a failed one
 * is restarted as its own rules and policy say, else as the pod's. Sidecars (restartable init
 * containers) start in their turn and are kept running; one with a startup
 * probe holds back the containers after it until the probe succeeds, and is
 * restarted when the probe fails.
 * Returns whether initialization is complete.
 */
function computeInitContainerActions(pod: Pod, status: RuntimePodStatus, changes: PodActions, ctx: ComputeContext): boolean {
  const inits = pod.spec.initContainers ?? [];
  if (inits.length === 0) return true;
  // A regular container that is created or running means initialization finished in the
  // past (its init containers' records may be gone). An exited one proves it only when
  // every init container's newest run succeeded: it may be left from an earlier sandbox.
  const regularStates = pod.spec.containers.map((c) => findContainer(status, c.name)?.state);
  const initsSucceeded = inits
    .filter((c) => !isRestartableInit(c))
    .every((c) => {
      const current = findContainer(status, c.name);
      return current?.state === 'exited' && current.exitCode === 0;
    });
  const initializedBefore =
    regularStates.some((s) => s === 'created' || s === 'running') || (initsSucceeded && regularStates.some((s) => s === 'exited'));
  for (let i = 0; i < inits.length; i++) {
    const container = inits[i];
    const current = findContainer(status, container.name);
    if (isRestartableInit(container)) {
      if (current?.state === 'running') {
        const probeFailed = ctx.probeFailed?.(current.id, container.name) !== undefined;
        if (container.startupProbe && ctx.started?.(current.id, container.name) === false) {
          // Not started yet: wait for the startup probe, or restart the sidecar when it failed.
          if (probeFailed) {
            changes.containersToKill.set(current.id, {
              name: container.name,
              container,
              reason: 'Unhealthy',
              message: `Init container ${container.name} failed startup probe`,
            });
            changes.initContainersToStart.push(i);
          }
          if (!initializedBefore) return false;
          continue;
        }
        if (specChanged(current, container)) {
          changes.containersToKill.set(current.id, {
            name: container.name,
            container,
            reason: '',
            message: `Init container ${container.name} definition changed`,
          });
          changes.initContainersToStart.push(i);
        } else if (probeFailed) {
          changes.containersToKill.set(current.id, {
            name: container.name,
            container,
            reason: 'Unhealthy',
            message: `Init container ${container.name} failed liveness probe`,
          });
          changes.initContainersToStart.push(i);
        }
        continue;
      }
      if (pod.metadata.deletionTimestamp) continue;
      changes.initContainersToStart.push(i);
      if (!initializedBefore) return false;
      continue;
    }
    if (initializedBefore) continue;
    if (!current) {
      changes.initContainersToStart.push(i);
      return false;
    }
    switch (current.state) {
      case 'running':
        return false;
      case 'exited':
        if (current.exitCode === 0) continue;
        // Its own rules and policy, else the pod's, decide on its exit code.
        if (!shouldContainerBeRestarted(container, pod, status)) {
          changes.killPod = true;
          changes.initContainersToStart = [];
          return false;
        }
        changes.initContainersToStart.push(i);
        return false;
      default:
        // Created but never started, or unknown: kill it, and start it again unless its policy (else the pod's) is Never.
        changes.containersToKill.set(current.id, {
          name: container.name,
          container,
          reason: 'Unknown',
          message: `Init container ${container.name} is in "${current.state}" state, try killing it before restart`,
        });
        if (!restartsWithoutExitCode(container, pod.spec)) {
          changes.killPod = true;
          changes.initContainersToStart = [];
          return false;
        }
        changes.initContainersToStart.push(i);
        return false;
    }
  }
  return true;
}

/**
 * The instances of these containers to reset (getContainersToReset): those that exited with a code
 * whose rule is RestartAllContainers (the sources), and all the others (the targets), a live one
 * marked to be killed first.
 */
function containersToReset(
  containers: Container[],
  status: RuntimePodStatus,
): { sources: ContainerToReset[]; targets: ContainerToReset[] } {
  const sources: ContainerToReset[] = [];
  const targets: ContainerToReset[] = [];
  for (const container of containers) {
    for (const c of status.containers) {
      if (c.name !== container.name) continue;
      const reset = { id: c.id, container, kill: c.state !== 'exited' };
      if (c.state === 'exited' && triggersRestartAll(container, c.exitCode)) sources.push(reset);
      else targets.push(reset);
    }
  }
  return { sources, targets };
}

function specChanged(current: ContainerInstance, spec: Container): boolean {
  return current.hash !== '' && current.hash !== hashContainer(spec);
}

/** Any regular container was ever created in the runtime (created, running or exited): the kubelet's HasAnyRegularContainerCreated. */
export function hasAnyRegularContainerCreated(pod: Pod, status: RuntimePodStatus): boolean {
  return pod.spec.containers.some((c) => {
    const state = findContainer(status, c.name)?.state;
    return state === 'created' || state === 'running' || state === 'exited';
  });
}

function succeeded(container: Container, status: RuntimePodStatus): boolean {
  const current = findContainer(status, container.name);
  return current?.state === 'exited' && current.exitCode === 0;
}

export { shouldContainerBeRestarted };
