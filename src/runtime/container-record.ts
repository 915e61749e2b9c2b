// What CreateContainer checks and records of a CRI ContainerConfig: the container as
// ContainerStatus and its start will read it, created and not yet run.
import type { ContainerConfig__Output } from '../cri/gen/runtime/v1/ContainerConfig.js';
import { status } from '@grpc/grpc-js';
import { resolveLogPath } from './container-mounts.js';
import { alreadyExists, invalid, RuntimeError } from './errors.js';
import { nowNs } from './ids.js';
import type { RuntimeImages } from './images.js';
import type { ContainerRecord, ImageRecord, SandboxedSpec, SandboxRecord } from './records.js';
import type { ImageSandboxes } from './sandbox/image-sandboxes.js';
import type { RuntimeState } from './state.js';

/**
 * What CreateContainer refuses before it makes anything, in containerd's
 * words: no image, a group without a user, an image not pulled, a host
 * process without a command or with a seccomp profile (it cannot load one),
 * a name and attempt already taken in the sandbox.
 */
export function checkCreate(
  state: RuntimeState,
  images: RuntimeImages,
  sandboxes: ImageSandboxes,
  sandbox: SandboxRecord,
  config: ContainerConfig__Output,
): { name: string; image: ImageRecord; sandboxed: boolean } {
  const name = config.metadata!.name;
  const attempt = config.metadata!.attempt;
  const imageName = config.image?.image ?? '';
  if (imageName === '') throw invalid(`container "${name}" has no image`);
  const security = config.linux?.securityContext;
  // critest's Security Context suite asks for this error: a group alone would leave the user to the image.
  if (security?.runAsGroup && !security.runAsUser && !security.runAsUsername) {
    throw invalid(`container "${name}": runAsGroup is set without runAsUser or runAsUsername`);
  }
  const image = images.find(imageName);
  if (!image) throw new RuntimeError(status.NOT_FOUND, `failed to get image "${imageName}": image not found; pull it first`);
  const sandboxed = sandboxes.applies(image);
  if (!sandboxed && config.command.length + config.args.length === 0) {
    throw invalid(
      `container "${name}" has no command: it runs as a host process (${sandboxes.describe()}), with no image entrypoint, so the pod spec must give command`,
    );
  }
  // containerd on a host without seccomp refuses any profile but Unconfined rather than run a container unfiltered.
  const seccomp = security?.seccomp;
  if (!sandboxed && seccomp && seccomp.profileType !== 'Unconfined' && !security.privileged) {
    throw invalid(
      `container "${name}": failed to generate seccomp spec opts: seccomp is not supported: it runs as a host process (${sandboxes.enabled ? 'its image has no layers' : sandboxes.describe()}), and only a sandbox loads a ${seccomp.profileType} profile`,
    );
  }
  // The name before the mounts, as containerd reserves it before it sets anything up: a refused create stacks no image volume.
  for (const other of state.containersOf(sandbox.id)) {
    if (other.metadata.name === name && other.metadata.attempt === attempt) {
      throw alreadyExists(`container name "${name}" attempt ${attempt} is reserved for ${other.id} in sandbox ${sandbox.id}`);
    }
  }
  return { name, image, sandboxed };
}

/**
 * The record of container `id` in `sandbox`, made from `config` (checked by
 * the create: it has a name and an image) and `image`, with its `mounts` as
 * recorded; `sandboxed` makes its sandbox's part, last, when it has one.
 */
export function containerRecord(
  id: string,
  sandbox: SandboxRecord,
  config: ContainerConfig__Output,
  image: ImageRecord,
  mounts: ContainerRecord['mounts'],
  sandboxed: () => SandboxedSpec | undefined,
): ContainerRecord {
  const ns = config.linux?.securityContext?.namespaceOptions;
  const { name, attempt } = config.metadata!;
  return {
    id,
    podSandboxId: sandbox.id,
    metadata: { name, attempt },
    image: config.image?.image ?? '',
    ...(image.repoTags[0] ? { imageTag: image.repoTags[0] } : {}),
    ...(config.image?.userSpecifiedImage ? { userSpecifiedImage: config.image.userSpecifiedImage } : {}),
    imageRef: image.repoDigests[0] ?? image.id,
    imageId: image.id,
    command: config.command,
    args: config.args,
    workingDir: config.workingDir,
    envs: config.envs.map((e) => ({ key: e.key, value: e.value })),
    mounts,
    labels: config.labels,
    annotations: config.annotations,
    logPath: resolveLogPath(sandbox.logDirectory, config.logPath),
    stdin: config.stdin,
    stdinOnce: config.stdinOnce,
    stopSignal: config.stopSignal,
    pidNamespace: { mode: ns?.pid ?? 'POD', targetId: ns?.targetId ?? '' },
    resources: {
      memoryLimitInBytes: config.linux?.resources?.memoryLimitInBytes ?? 0,
      cpuQuota: config.linux?.resources?.cpuQuota ?? 0,
      cpuPeriod: config.linux?.resources?.cpuPeriod ?? 0,
      cpuShares: config.linux?.resources?.cpuShares ?? 0,
    },
    state: 'CONTAINER_CREATED',
    createdAt: nowNs(),
    startedAt: 0,
    finishedAt: 0,
    exitCode: 0,
    reason: '',
    message: '',
    sandboxed: sandboxed(),
  };
}
