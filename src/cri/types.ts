// Friendly names for the generated CRI types. Values read from the wire are
// the `__Output` shapes (every field present, enums as names); values we send
// are the permissive input shapes.
export type { Container__Output as Container } from './gen/runtime/v1/Container.js';
export type { ContainerConfig } from './gen/runtime/v1/ContainerConfig.js';
export type { ContainerEventResponse__Output as ContainerEvent } from './gen/runtime/v1/ContainerEventResponse.js';
export type { ContainerEventType__Output as ContainerEventType } from './gen/runtime/v1/ContainerEventType.js';
export type { ContainerFilter } from './gen/runtime/v1/ContainerFilter.js';
export type { ContainerState__Output as ContainerState } from './gen/runtime/v1/ContainerState.js';
export type { ContainerStats__Output as ContainerStats } from './gen/runtime/v1/ContainerStats.js';
export type { ContainerStatsFilter } from './gen/runtime/v1/ContainerStatsFilter.js';
export type { ContainerStatus__Output as ContainerStatus } from './gen/runtime/v1/ContainerStatus.js';
export type { ContainerStatusResponse__Output as ContainerStatusResponse } from './gen/runtime/v1/ContainerStatusResponse.js';
export type { ExecSyncResponse__Output as ExecSyncResponse } from './gen/runtime/v1/ExecSyncResponse.js';
export type { Image__Output as Image } from './gen/runtime/v1/Image.js';
export type { ImageFilter } from './gen/runtime/v1/ImageFilter.js';
export type { ImageFsInfoResponse__Output as ImageFsInfoResponse } from './gen/runtime/v1/ImageFsInfoResponse.js';
export type { ImageStatusResponse__Output as ImageStatusResponse } from './gen/runtime/v1/ImageStatusResponse.js';
export type { ImageSpec } from './gen/runtime/v1/ImageSpec.js';
export type { AuthConfig } from './gen/runtime/v1/AuthConfig.js';
export type { KeyValue } from './gen/runtime/v1/KeyValue.js';
export type { Mount } from './gen/runtime/v1/Mount.js';
export type { PodSandbox__Output as PodSandbox } from './gen/runtime/v1/PodSandbox.js';
export type { PodSandboxConfig } from './gen/runtime/v1/PodSandboxConfig.js';
export type { PodSandboxFilter } from './gen/runtime/v1/PodSandboxFilter.js';
export type { PodSandboxState__Output as PodSandboxState } from './gen/runtime/v1/PodSandboxState.js';
export type { PodSandboxStats__Output as PodSandboxStats } from './gen/runtime/v1/PodSandboxStats.js';
export type { PodSandboxStatsFilter } from './gen/runtime/v1/PodSandboxStatsFilter.js';
export type { LinuxContainerResources } from './gen/runtime/v1/LinuxContainerResources.js';
export type { LinuxContainerSecurityContext } from './gen/runtime/v1/LinuxContainerSecurityContext.js';
export type { SecurityProfile } from './gen/runtime/v1/SecurityProfile.js';
export type { NamespaceMode__Output as NamespaceMode } from './gen/runtime/v1/NamespaceMode.js';
export type { RuntimeConfigResponse__Output as RuntimeConfigResponse } from './gen/runtime/v1/RuntimeConfigResponse.js';
export type { PodSandboxStatus__Output as PodSandboxStatus } from './gen/runtime/v1/PodSandboxStatus.js';
export type { PodSandboxStatusResponse__Output as PodSandboxStatusResponse } from './gen/runtime/v1/PodSandboxStatusResponse.js';
export type { RuntimeCondition__Output as RuntimeCondition } from './gen/runtime/v1/RuntimeCondition.js';
export type { StatusResponse__Output as StatusResponse } from './gen/runtime/v1/StatusResponse.js';
export type { VersionResponse__Output as VersionResponse } from './gen/runtime/v1/VersionResponse.js';

/** The kubelet's labels and annotations on sandboxes and containers. */
export const KubeletLabels = {
  podName: 'io.kubernetes.pod.name',
  podNamespace: 'io.kubernetes.pod.namespace',
  podUid: 'io.kubernetes.pod.uid',
  containerName: 'io.kubernetes.container.name',
  containerType: 'io.kubernetes.container.type',
} as const;

export const KubeletAnnotations = {
  containerHash: 'io.kubernetes.container.hash',
  containerRestartCount: 'io.kubernetes.container.restartCount',
  terminationMessagePath: 'io.kubernetes.container.terminationMessagePath',
  terminationMessagePolicy: 'io.kubernetes.container.terminationMessagePolicy',
  terminationGracePeriod: 'io.kubernetes.pod.terminationGracePeriod',
  podDeletionGracePeriod: 'io.kubernetes.pod.deletionGracePeriod',
  containerPorts: 'io.kubernetes.container.ports',
  preStopHandler: 'io.kubernetes.container.preStopHandler',
} as const;

/** The runtime conditions a node needs before it runs pods. */
export const RuntimeReady = 'RuntimeReady';
export const NetworkReady = 'NetworkReady';
/** The embedded runtime's own condition: whether containers of real images run in sandboxes. */
export const ContainerSandboxReady = 'ContainerSandboxReady';
