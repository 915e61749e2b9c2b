import { isRestartableInit, isStaticPod } from '../api/pod-util.js';
import { containerShouldRestart } from '../api/restart-policy.js';
import type { Container, ContainerStateTerminated, ContainerStatus, Pod, PodPhase, PodSpec } from '../api/v1.js';
import { RESTARTING_ALL_CONTAINERS } from './restart-all.js';

/**
 * The kubelet's getPhase: the pod phase from its containers' statuses.
 * Pending until initialization is done and every container has started;
 * Running while any runs (or any that stopped will restart); Succeeded or
 * Failed when all have stopped and none will restart. Whether one restarts is
 * its own rules and policy, else the pod's (ContainerRestartRules).
 */
export function getPhase(pod: Pod, statuses: ContainerStatus[], podIsTerminal: boolean): PodPhase {
  const spec = pod.spec;
  const byName = new Map(statuses.map((s) => [s.name, s]));
  let pendingRegularInit = 0;
  let pendingRestartableInit = 0;
  let failedInitialization = 0;
  let failedInitializationNotRestartable = 0;
  let unknown = 0;
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let stoppedNotRestartable = 0;
  let succeeded = 0;

  for (const c of spec.initContainers ?? []) {
    const s = byName.get(c.name);
    if (isRestartableInit(c)) {
      if (!s) {
        unknown++;
        continue;
      }
      if (s.state?.running) {
        if (!s.started) pendingRestartableInit++;
        running++;
      } else if (s.state?.terminated) {
        // neither pending nor running
      } else if (s.state?.waiting) {
        if (!s.lastState?.terminated) {
          pendingRestartableInit++;
          waiting++;
        }
      } else {
        pendingRestartableInit++;
        unknown++;
      }
      continue;
    }
    // Its last run: terminated now, or waiting to restart after it.
    const ran = s?.state?.terminated ?? (s?.state?.waiting ? s.lastState?.terminated : undefined);
    if (!ran) {
      pendingRegularInit++;
    } else if (ran.exitCode !== 0) {
      failedInitialization++;
      if (!restartable(c, spec, ran)) failedInitializationNotRestartable++;
    }
  }

  for (const c of spec.containers) {
    const s = byName.get(c.name);
    if (!s) unknown++;
    else if (s.state?.running) running++;
    else if (s.state?.terminated) {
      stopped++;
      if (!restartable(c, spec, s.state.terminated)) stoppedNotRestartable++;
      if (s.state.terminated.exitCode === 0) succeeded++;
    } else if (s.state?.waiting) {
      if (s.lastState?.terminated) {
        stopped++;
        if (!restartable(c, spec, s.lastState.terminated)) stoppedNotRestartable++;
      } else waiting++;
    } else unknown++;
  }

  if (failedInitializationNotRestartable > 0) return 'Failed';

  const anyRegularStarted = spec.containers.some((c) => {
    const s = byName.get(c.name);
    return !!(s?.state?.running || s?.state?.terminated || s?.lastState?.terminated);
  });
  if ((pendingRegularInit > 0 || pendingRestartableInit > 0 || failedInitialization > 0) && !anyRegularStarted) return 'Pending';
  if (waiting > 0) return 'Pending';
  if (running > 0 && unknown === 0) return 'Running';
  if (running === 0 && stopped > 0 && unknown === 0) {
    // Static pods keep their phase by restart policy even when terminal (as upstream, for now).
    if (podIsTerminal && !isStaticPod(pod)) return stopped === succeeded ? 'Succeeded' : 'Failed';
    // Some container is restarting; else all are done, by their own policy or the pod's.
    if (stopped !== stoppedNotRestartable) return 'Running';
    return stopped === succeeded ? 'Succeeded' : 'Failed';
  }
  return 'Pending';
}

/** Whether a container that ended so starts again: by its rules and policy, else the pod's, or as removed by a restart in place. */
function restartable(c: Container, spec: PodSpec, ended: ContainerStateTerminated): boolean {
  return containerShouldRestart(c, spec, ended.exitCode) || ended.reason === RESTARTING_ALL_CONTAINERS;
}
