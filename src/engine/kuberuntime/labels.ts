import type { ContainerStatus as CriContainerStatus } from '../../cri/types.js';
import { KubeletAnnotations, KubeletLabels } from '../../cri/types.js';
import { isRestartableInit } from '../api/pod-util.js';
import type { Container, Pod } from '../api/v1.js';
import type { ContainerInstance } from '../container/types.js';
import { canonicalJson } from '../config/static-pod.js';

/** knode's own label: which node's kubelet made this sandbox or container (a shared runtime may hold others'). */
export const NodeNameLabel = 'io.knode.node-name';

/**
 * knode's own annotation on an init container: `init`, or `sidecar` for one
 * that restarts (restartPolicy Always). The kubelet marks none, so without
 * the pod's spec only this tells a pod's init containers from the rest.
 */
export const InitContainerAnnotation = 'io.knode.container.init';

/**
 * knode's own annotation on a sandbox: the pod's restartPolicy, which the
 * kubelet's labels do not carry either, so that without the spec a pod
 * whose containers all ended reads with the phase the kubelet gives it.
 */
export const RestartPolicyAnnotation = 'io.knode.pod.restart-policy';

export function sandboxLabels(pod: Pod, nodeName: string): Record<string, string> {
  return {
    ...pod.metadata.labels,
    [KubeletLabels.podName]: pod.metadata.name!,
    [KubeletLabels.podNamespace]: pod.metadata.namespace!,
    [KubeletLabels.podUid]: pod.metadata.uid!,
    [NodeNameLabel]: nodeName,
  };
}

export function containerLabels(pod: Pod, container: Container, nodeName: string): Record<string, string> {
  return {
    [KubeletLabels.podName]: pod.metadata.name!,
    [KubeletLabels.podNamespace]: pod.metadata.namespace!,
    [KubeletLabels.podUid]: pod.metadata.uid!,
    [KubeletLabels.containerName]: container.name,
    [NodeNameLabel]: nodeName,
  };
}

export function containerAnnotations(pod: Pod, container: Container, restartCount: number): Record<string, string> {
  const annotations: Record<string, string> = {
    [KubeletAnnotations.containerHash]: hashContainer(container),
    [KubeletAnnotations.containerRestartCount]: String(restartCount),
    [KubeletAnnotations.terminationMessagePath]: container.terminationMessagePath ?? '',
    [KubeletAnnotations.terminationMessagePolicy]: container.terminationMessagePolicy ?? 'File',
    [KubeletAnnotations.terminationGracePeriod]: String(pod.spec.terminationGracePeriodSeconds ?? 30),
  };
  const init = (pod.spec.initContainers ?? []).find((c) => c.name === container.name);
  if (init) annotations[InitContainerAnnotation] = isRestartableInit(init) ? 'sidecar' : 'init';
  if (container.lifecycle?.preStop) annotations[KubeletAnnotations.preStopHandler] = JSON.stringify(container.lifecycle.preStop);
  if (container.ports?.length) annotations[KubeletAnnotations.containerPorts] = JSON.stringify(container.ports);
  return annotations;
}

/**
 * The container's spec hash (FNV-1a, 32 bits, as the kubelet's): a change of
 * anything but resources, which can change in place, restarts the container.
 */
export function hashContainer(container: Container): string {
  const { resources: _resources, ...hashed } = container;
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(canonicalJson(hashed))) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

const STATES = {
  CONTAINER_CREATED: 'created',
  CONTAINER_RUNNING: 'running',
  CONTAINER_EXITED: 'exited',
  CONTAINER_UNKNOWN: 'unknown',
} as const;

export function containerStateOf(state: string): ContainerInstance['state'] {
  return STATES[state as keyof typeof STATES] ?? 'unknown';
}

export const nsToMs = (ns: number) => ns / 1e6;

/** A CRI container status as the engine's ContainerInstance, with the kubelet's annotations parsed. */
export function toContainerInstance(s: CriContainerStatus): ContainerInstance {
  return {
    id: s.id,
    name: s.labels[KubeletLabels.containerName] ?? s.metadata?.name ?? '',
    state: containerStateOf(s.state),
    createdAt: nsToMs(s.createdAt),
    startedAt: nsToMs(s.startedAt),
    finishedAt: nsToMs(s.finishedAt),
    exitCode: s.exitCode,
    image: s.image?.image ?? '',
    ...(s.image?.userSpecifiedImage ? { userSpecifiedImage: s.image.userSpecifiedImage } : {}),
    imageRef: s.imageRef,
    imageId: s.imageId,
    reason: s.reason,
    message: s.message,
    hash: s.annotations[KubeletAnnotations.containerHash] ?? '',
    restartCount: Number(s.annotations[KubeletAnnotations.containerRestartCount] ?? 0) || 0,
    logPath: s.logPath,
    labels: s.labels,
    annotations: s.annotations,
  };
}
