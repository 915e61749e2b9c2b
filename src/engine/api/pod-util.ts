import { rfc3339, type Container, type Pod, type PodStatus } from './v1.js';

/** The kubelet's pod full name, `name_namespace`, used in keys and logs. */
export function podFullName(pod: Pod): string {
  return `${pod.metadata.name}_${pod.metadata.namespace}`;
}

/** The pod as the kubelet names it in messages (format.Pod): `name_namespace(uid)`. */
export function podDesc(pod: Pod | undefined): string {
  return pod ? `${podFullName(pod)}(${pod.metadata.uid ?? ''})` : '<nil>';
}

/** `namespace/name`, as users and kubectl write it. */
export function podRef(pod: Pod): string {
  return `${pod.metadata.namespace}/${pod.metadata.name}`;
}

export function podUid(pod: Pod): string {
  return pod.metadata.uid ?? '';
}

/** A restartable init container (a sidecar): restartPolicy Always on an init container. */
export function isRestartableInit(container: Container): boolean {
  return container.restartPolicy === 'Always';
}

export function restartPolicyOf(pod: Pod): 'Always' | 'OnFailure' | 'Never' {
  return pod.spec.restartPolicy ?? 'Always';
}

export function isTerminalPhase(pod: Pod): boolean {
  return pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded';
}

export const ConfigSourceAnnotation = 'kubernetes.io/config.source';
export const ConfigHashAnnotation = 'kubernetes.io/config.hash';
export const ConfigSeenAnnotation = 'kubernetes.io/config.seen';
export const ConfigMirrorAnnotation = 'kubernetes.io/config.mirror';

/** Static pods come from the file and URL sources; the apiserver's are not static. */
export function isStaticPod(pod: Pod): boolean {
  const source = pod.metadata.annotations?.[ConfigSourceAnnotation];
  return source !== undefined && source !== 'api';
}

/**
 * The DisruptionTarget condition the kubelet sets on a pod it stops (reason
 * TerminationByKubelet), replacing any other; a condition already True keeps
 * its transition time.
 */
export function setDisruptionTarget(status: PodStatus, message: string, now: number): void {
  const previous = status.conditions?.find((c) => c.type === 'DisruptionTarget' && c.status === 'True');
  status.conditions = [
    ...(status.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget'),
    {
      type: 'DisruptionTarget',
      status: 'True',
      reason: 'TerminationByKubelet',
      message,
      lastProbeTime: null,
      lastTransitionTime: previous?.lastTransitionTime ?? rfc3339(now),
    },
  ];
}
