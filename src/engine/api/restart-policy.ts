// A container's restart decision (ContainerRestartRules, beta and on by
// default since v1.35): its own restartPolicyRules first, then its own
// restartPolicy, then the pod's. The kubelet's pkg/api/v1/pod/util.go.
import type { Container, ContainerRestartRule, PodSpec } from './v1.js';

/**
 * The first of the container's rules that matches this exit code, if any
 * (FindMatchingContainerRestartRule). A rule without exitCodes, or with an
 * operator the kubelet does not know, never matches.
 */
export function findMatchingContainerRestartRule(container: Container, exitCode: number): ContainerRestartRule | undefined {
  for (const rule of container.restartPolicyRules ?? []) {
    if (!rule.exitCodes) continue;
    const listed = (rule.exitCodes.values ?? []).includes(exitCode);
    if (rule.exitCodes.operator === 'In' && listed) return rule;
    if (rule.exitCodes.operator === 'NotIn' && !listed) return rule;
  }
  return undefined;
}

/**
 * Whether a container that exited with `exitCode` is started again
 * (ContainerShouldRestart). Rules count only when the container sets its own
 * restartPolicy (validation makes them require one); a matching rule
 * restarts it, otherwise its policy decides; without one, the pod's does.
 */
export function containerShouldRestart(container: Container, spec: Pick<PodSpec, 'restartPolicy'>, exitCode: number): boolean {
  if (container.restartPolicy !== undefined) {
    // Both actions restart this container (RestartAllContainers with every other one of the pod).
    if (findMatchingContainerRestartRule(container, exitCode)) return true;
    return restartsOn(container.restartPolicy, exitCode);
  }
  return restartsOn(spec.restartPolicy ?? 'Always', exitCode);
}

/**
 * Whether the container's exit with `exitCode` restarts the whole pod in place: its
 * first matching rule says RestartAllContainers (RestartAllContainersOnContainerExits).
 */
export function triggersRestartAll(container: Container, exitCode: number): boolean {
  return findMatchingContainerRestartRule(container, exitCode)?.action === 'RestartAllContainers';
}

/** Whether any container, init or regular, has a RestartAllContainers rule (the kubelet's AllContainersCouldRestart). */
export function allContainersCouldRestart(spec: Pick<PodSpec, 'initContainers' | 'containers'>): boolean {
  return [...(spec.initContainers ?? []), ...spec.containers].some((c) =>
    (c.restartPolicyRules ?? []).some((r) => r.action === 'RestartAllContainers'),
  );
}

/**
 * Whether the pod never ends by itself: some regular container is started
 * again even after it succeeds (the pod's Always, or its own).
 */
export function podRunsForever(spec: PodSpec): boolean {
  return spec.containers.some((c) => containerShouldRestart(c, spec, 0));
}

/**
 * Whether a running container that a probe failed (or whose state is unknown)
 * is started again: its own policy, or the pod's, without the rules, since
 * there is no exit code for them to read (computePodActions).
 */
export function restartsWithoutExitCode(container: Container, spec: Pick<PodSpec, 'restartPolicy'>): boolean {
  return (container.restartPolicy ?? spec.restartPolicy ?? 'Always') !== 'Never';
}

function restartsOn(policy: string, exitCode: number): boolean {
  if (policy === 'Never') return false;
  if (policy === 'OnFailure') return exitCode !== 0;
  return true;
}
