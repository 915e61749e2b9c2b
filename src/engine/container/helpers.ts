import { restartPolicyOf } from '../api/pod-util.js';
import type { Container, Pod } from '../api/v1.js';
import { findContainer, type RuntimePodStatus } from './types.js';

/** The kubelet's ShouldContainerBeRestarted, for a container that is not running. */
export function shouldContainerBeRestarted(container: Container, pod: Pod, status: RuntimePodStatus): boolean {
  if (pod.metadata.deletionTimestamp) return false;
  const current = findContainer(status, container.name);
  if (!current) return true;
  if (current.state === 'running') return false;
  if (current.state === 'unknown' || current.state === 'created') return true;
  const policy = restartPolicyOf(pod);
  if (policy === 'Never') return false;
  if (policy === 'OnFailure' && current.exitCode === 0) return false;
  return true;
}
