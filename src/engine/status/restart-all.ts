// A pod restarted in place because a container exited under a rule whose
// action is RestartAllContainers (RestartAllContainersOnContainerExits, beta
// and on by default since v1.36): how the kubelet tells that it is under way
// (the AllContainersRestarting condition) and how it shows the containers it
// removed for it. pkg/kubelet/container/helpers.go, status/generate.go and
// kubelet_pods.go.
import { allContainersCouldRestart, triggersRestartAll } from '../api/restart-policy.js';
import type { ContainerStatus, Pod, PodCondition, PodStatus } from '../api/v1.js';
import { findContainer, type RuntimePodStatus } from '../container/types.js';

/** The reason of a container's state while the pod restarts in place, and of the last state it leaves. */
export const RESTARTING_ALL_CONTAINERS = 'RestartingAllContainers';
const REMOVED = 'The container is removed because RestartAllContainers in place';

/** The pod condition that is True from a triggering exit until every container is removed. */
export const ALL_CONTAINERS_RESTARTING = 'AllContainersRestarting';

/** Whether the pod's last status says a restart in place is under way. */
export function isRestartingAll(status: PodStatus | undefined): boolean {
  return !!status?.conditions?.some((c) => c.type === ALL_CONTAINERS_RESTARTING && c.status === 'True');
}

/**
 * The kubelet's ShouldAllContainersRestart: the old status says a restart in place is under way,
 * or a container (init or regular) has exited, in the runtime or in the old status, with an exit
 * code whose first matching rule is RestartAllContainers.
 */
export function shouldAllContainersRestart(pod: Pod, runtime: RuntimePodStatus | undefined, old: PodStatus | undefined): boolean {
  if (isRestartingAll(old)) return true;
  const oldStatuses = [...(old?.initContainerStatuses ?? []), ...(old?.containerStatuses ?? [])];
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers].some((c) => {
    const current = runtime && findContainer(runtime, c.name);
    if (current?.state === 'exited' && triggersRestartAll(c, current.exitCode)) return true;
    const terminated = oldStatuses.find((s) => s.name === c.name)?.state?.terminated;
    return !!terminated && triggersRestartAll(c, terminated.exitCode);
  });
}

/** Whether the runtime holds no container of the pod any more (AllContainersRestartCleanedUp). */
export function allContainersRestartCleanedUp(pod: Pod, runtime: RuntimePodStatus): boolean {
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers].every((c) => !findContainer(runtime, c.name));
}

/**
 * The AllContainersRestarting condition, on the pods that could restart in place only (the
 * kubelet's GenerateAllContainersRestartingCondition): True from the triggering exit until the
 * runtime holds none of the pod's containers, False otherwise, with the terminal phase's reason.
 */
export function allContainersRestartingCondition(
  pod: Pod,
  runtime: RuntimePodStatus,
  old: PodStatus | undefined,
  phase: string,
): Omit<PodCondition, 'lastTransitionTime'> | undefined {
  if (!allContainersCouldRestart(pod.spec)) return undefined;
  const type = ALL_CONTAINERS_RESTARTING;
  if (phase === 'Succeeded') return { type, status: 'False', reason: 'PodCompleted' };
  if (phase === 'Failed') return { type, status: 'False', reason: 'PodFailed' };
  if (!shouldAllContainersRestart(pod, runtime, old) || allContainersRestartCleanedUp(pod, runtime)) return { type, status: 'False' };
  return { type, status: 'True', reason: 'RestartAllContainersStarted', message: 'container exited with restart policy rule' };
}

/**
 * A container removed for the restart in place, as the kubelet shows it until it runs again:
 * waiting, its last state a termination by the restart (137), counted as one restart more.
 * Undefined when the old status already waited (it was shown so before, or never ran).
 */
export function removedForRestartAll(status: ContainerStatus, old: ContainerStatus | undefined): ContainerStatus | undefined {
  if (!old || old.state?.waiting) return undefined;
  return {
    ...status,
    state: { waiting: { reason: RESTARTING_ALL_CONTAINERS, message: REMOVED } },
    lastState: { terminated: { exitCode: 137, reason: RESTARTING_ALL_CONTAINERS, message: REMOVED } },
    restartCount: old.restartCount + 1,
  };
}
