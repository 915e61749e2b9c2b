// Records to CRI messages. Kept apart from the logic so each call's answer
// has one shape, whichever call produces it.
import type { Container } from '../cri/gen/runtime/v1/Container.js';
import type { ContainerEventResponse } from '../cri/gen/runtime/v1/ContainerEventResponse.js';
import type { ContainerEventType } from '../cri/gen/runtime/v1/ContainerEventType.js';
import type { ContainerStatus } from '../cri/gen/runtime/v1/ContainerStatus.js';
import type { Image } from '../cri/gen/runtime/v1/Image.js';
import type { Mount } from '../cri/gen/runtime/v1/Mount.js';
import type { PodSandbox } from '../cri/gen/runtime/v1/PodSandbox.js';
import type { PodSandboxStatus } from '../cri/gen/runtime/v1/PodSandboxStatus.js';
import { nowNs } from './ids.js';
import type { ContainerRecord, ImageRecord, RecordMount, SandboxRecord } from './records.js';

export function toPodSandbox(s: SandboxRecord): PodSandbox {
  return {
    id: s.id,
    metadata: s.metadata,
    state: s.state,
    createdAt: s.createdAt,
    labels: s.labels,
    annotations: s.annotations,
    runtimeHandler: s.runtimeHandler,
  };
}

export function toPodSandboxStatus(s: SandboxRecord): PodSandboxStatus {
  return {
    ...toPodSandbox(s),
    network: { ip: s.ip, additionalIps: (s.additionalIps ?? []).map((ip) => ({ ip })) },
    linux: { namespaces: { options: { network: s.namespaces.network, pid: s.namespaces.pid, ipc: s.namespaces.ipc } } },
  } as PodSandboxStatus;
}

export function toContainer(c: ContainerRecord): Container {
  return {
    id: c.id,
    podSandboxId: c.podSandboxId,
    metadata: c.metadata,
    image: { image: c.image, userSpecifiedImage: c.userSpecifiedImage ?? '' },
    imageRef: c.imageRef,
    imageId: c.imageId,
    state: c.state,
    createdAt: c.createdAt,
    labels: c.labels,
    annotations: c.annotations,
  };
}

export function toContainerStatus(c: ContainerRecord): ContainerStatus {
  return {
    id: c.id,
    metadata: c.metadata,
    state: c.state,
    createdAt: c.createdAt,
    startedAt: c.startedAt,
    finishedAt: c.finishedAt,
    exitCode: c.exitCode,
    // As containerd's: the image's tag when it has one (the create named it by id), else the create's image spec.
    image: c.imageTag ? { image: c.imageTag } : { image: c.image, userSpecifiedImage: c.userSpecifiedImage ?? '' },
    imageRef: c.imageRef,
    imageId: c.imageId,
    reason: c.reason,
    message: c.message,
    labels: c.labels,
    annotations: c.annotations,
    mounts: c.mounts.map(toMount),
    logPath: c.logPath,
    stopSignal: c.stopSignal as ContainerStatus['stopSignal'],
  };
}

/** A container's mount in its status: as it was asked for (an image volume with no host path, and its image's id as image_ref). */
function toMount(m: RecordMount): Mount {
  const { image, imageSubPath, ...rest } = m;
  return {
    ...rest,
    propagation: m.propagation ?? 'PROPAGATION_PRIVATE',
    recursiveReadOnly: m.recursiveReadOnly === true,
    ...(image
      ? {
          hostPath: '',
          image: { image: image.image, userSpecifiedImage: image.userSpecifiedImage ?? '', imageRef: image.imageId },
          imageSubPath: imageSubPath ?? '',
        }
      : {}),
  };
}

export function toImage(i: ImageRecord): Image {
  return {
    id: i.id,
    repoTags: i.repoTags,
    repoDigests: i.repoDigests,
    size: i.size,
    uid: i.uid !== undefined ? { value: i.uid } : null,
    username: i.username ?? '',
    spec: { image: i.id },
    pinned: false,
  };
}

export function matchesLabels(labels: Record<string, string>, selector: Record<string, string> | undefined): boolean {
  if (!selector) return true;
  for (const key of Object.keys(selector)) if (labels[key] !== selector[key]) return false;
  return true;
}

/** A container's event, which carries its sandbox and all the sandbox's containers, as containerd's do. */
export function containerEvent(
  c: ContainerRecord,
  type: ContainerEventType,
  sandbox: SandboxRecord | undefined,
  containers: readonly ContainerRecord[],
): ContainerEventResponse {
  return {
    containerId: c.id,
    containerEventType: type,
    createdAt: nowNs(),
    podSandboxStatus: sandbox ? toPodSandboxStatus(sandbox) : null,
    containersStatuses: containers.map(toContainerStatus),
  };
}
