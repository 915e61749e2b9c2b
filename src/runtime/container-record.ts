// What CreateContainer records of a CRI ContainerConfig: the container as
// ContainerStatus and its start will read it, created and not yet run.
import type { ContainerConfig__Output } from '../cri/gen/runtime/v1/ContainerConfig.js';
import { resolveLogPath } from './container-mounts.js';
import { nowNs } from './ids.js';
import type { ContainerRecord, ImageRecord, SandboxedSpec, SandboxRecord } from './records.js';

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
