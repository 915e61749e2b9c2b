import { containerShouldRestart } from '../api/restart-policy.js';
import type { Container, Pod } from '../api/v1.js';
import { findContainer, type RuntimePodStatus } from './types.js';

/**
 * The kubelet's ShouldContainerBeRestarted, for a container that is not
 * running: never in a pod being deleted; always when it never ran, is unknown
 * or only created; otherwise by its exit code under its own rules and policy,
 * or the pod's (ContainerShouldRestart).
 */
export function shouldContainerBeRestarted(container: Container, pod: Pod, status: RuntimePodStatus): boolean {
  if (pod.metadata.deletionTimestamp) return false;
  const current = findContainer(status, container.name);
  if (!current) return true;
  if (current.state === 'running') return false;
  if (current.state === 'unknown' || current.state === 'created') return true;
  return containerShouldRestart(container, pod.spec, current.exitCode);
}
