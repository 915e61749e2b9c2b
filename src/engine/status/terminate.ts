import { isRestartableInit, isStaticPod } from '../api/pod-util.js';
import type { ContainerStatus, Pod, PodStatus } from '../api/v1.js';

/** What a container that never reported its end is said to have ended with (the kubelet's TerminatePod). */
export const TERMINATED_UNKNOWN = {
  exitCode: 137,
  reason: 'ContainerStatusUnknown',
  message: 'The container could not be located when the pod was terminated',
};

/**
 * The pod's last status once it terminated (the status manager's TerminatePod):
 * from CACHED, the status manager's latest (else the pod's own), every container
 * not terminated is terminated with an unknown status, as a failure, since
 * whether it succeeded is not known: the regular containers once the pod has
 * initialized, the init containers but the final ones that never started; and a
 * pod not static that is not Succeeded or Failed is Failed.
 */
export function terminatedPodStatus(pod: Pod, cached: PodStatus | undefined): PodStatus {
  const old = cached ?? pod.status ?? {};
  const status: PodStatus = structuredClone(old);
  const terminate = (c: ContainerStatus): ContainerStatus =>
    c.state?.terminated ? c : { ...c, state: { terminated: { ...TERMINATED_UNKNOWN } } };
  if (hasPodInitialized(pod) && status.containerStatuses) status.containerStatuses = status.containerStatuses.map(terminate);
  if (status.initContainerStatuses) {
    const started = initializedContainers(status.initContainerStatuses);
    status.initContainerStatuses = status.initContainerStatuses.map((c, i) => (i < started ? terminate(c) : c));
  }
  // The kubelet leaves a static pod's phase alone (kubernetes#116484).
  if (!isStaticPod(pod) && status.phase !== 'Succeeded' && status.phase !== 'Failed') status.phase = 'Failed';
  return status;
}

/**
 * Whether the pod shows it got past its init containers (the kubelet's hasPodInitialized), as
 * its own status (the apiserver's) says: no init containers, a regular container that ever left
 * waiting, or a last init container that succeeded (a sidecar: that runs, started).
 */
export function hasPodInitialized(pod: Pod): boolean {
  const inits = pod.spec.initContainers ?? [];
  if (inits.length === 0) return true;
  for (const c of pod.status?.containerStatuses ?? []) if (c.lastState?.terminated || !c.state?.waiting) return true;
  const statuses = pod.status?.initContainerStatuses ?? [];
  if (statuses.length === 0) return false;
  const last = statuses[statuses.length - 1];
  const spec = inits[statuses.length - 1];
  if (!spec || spec.name !== last.name) return false;
  if (isRestartableInit(spec)) return !!last.state?.running && last.started === true;
  return last.lastState?.terminated?.exitCode === 0 || last.state?.terminated?.exitCode === 0;
}

/**
 * How many init container statuses, from the first, have tried to start (the kubelet's
 * initializedContainers): all but the final ones still waiting with no past termination;
 * at least one.
 */
export function initializedContainers(statuses: ContainerStatus[]): number {
  for (let i = statuses.length - 1; i >= 0; i--) if (!statuses[i].state?.waiting || statuses[i].lastState?.terminated) return i + 1;
  return Math.min(statuses.length, 1);
}
