// Which instance of a container `logs` reads, as the kubelet picks it
// (validateContainerLogStatus): from the pod's status, not from the runtime's
// list of instances, so a container waiting out a crash-loop back-off shows
// the run that just ended, and `--previous` is its last termination.
import type { Pod } from '../api/v1.js';

/** The instance to read (`runtime://id`, as the status names it), or the kubelet's words for why there is none. */
export type LogPick = { containerID: string } | { error: string };

/** CONTAINER's instance in POD to read the log of (PREVIOUS: its last termination). */
export function logInstance(pod: Pod, container: string, previous: boolean): LogPick {
  const name = pod.metadata.name;
  const status = pod.status ?? {};
  const found = [...(status.containerStatuses ?? []), ...(status.initContainerStatuses ?? [])].find((c) => c.name === container);
  if (!found) return { error: `container "${container}" in pod "${name}" is not available` };
  const last = found.lastState?.terminated;
  const { waiting, running, terminated } = found.state ?? {};
  const terminatedError = { error: `container "${container}" in pod "${name}" is terminated` };
  let id: string | undefined;
  if (previous) {
    if (!last?.containerID) return { error: `previous terminated container "${container}" in pod "${name}" not found` };
    id = last.containerID;
  } else if (running) id = found.containerID;
  else if (terminated) {
    // When the next run did not start, the termination has no id: the last one's log.
    id = terminated.containerID || last?.containerID;
    if (!id) return terminatedError;
  } else if (last) {
    if (!last.containerID) return terminatedError;
    id = last.containerID;
  } else if (waiting) {
    const why =
      waiting.reason === 'ErrImagePull'
        ? "image can't be pulled"
        : waiting.reason === 'ImagePullBackOff'
          ? 'trying and failing to pull image'
          : (waiting.reason ?? '');
    return { error: `container "${container}" in pod "${name}" is waiting to start: ${why}` };
  } else return { error: `container "${container}" in pod "${name}" is waiting to start - no logs yet` };
  if (!id) return { error: `container "${container}" in pod "${name}" is waiting to start - no logs yet` };
  return { containerID: id };
}
