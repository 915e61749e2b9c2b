import { readdirSync } from 'node:fs';
import type { ContainerConfig } from '../../cri/types.js';
import type { Container, Pod } from '../api/v1.js';
import { containerAnnotations, containerLabels } from './labels.js';
import { expandCommand, makeEnvironmentVariables, type EnvSources, type PodAddresses } from './env.js';
import { makeMounts, type ImageVolumes } from './mounts.js';
import { linuxContainerResources } from './resources.js';
import { linuxContainerSecurityContext, type SeccompOptions } from './security-context.js';
import type { PodVolumes } from '../volume/volume-manager.js';

const STOP_SIGNALS = new Set(['SIGTERM', 'SIGINT', 'SIGQUIT', 'SIGKILL', 'SIGHUP', 'SIGUSR1', 'SIGUSR2', 'SIGWINCH', 'SIGSTOP']);

/** What a container's config is made with besides the pod: what the runtime supports, the kubelet's seccomp settings. */
export interface ContainerConfigOptions {
  supportsRecursiveReadOnly?: boolean;
  seccomp?: SeccompOptions;
  /** The pod's image volumes, pulled. */
  imageVolumes?: ImageVolumes;
}

/**
 * The CRI container config for one start of a container (generateContainerConfig):
 * metadata with the restart count as attempt, the resolved environment, the
 * expanded command, the log path `<name>/<restartCount>.log`, the pod's
 * namespace modes and security context, and the kubelet's labels and annotations that let a
 * restarted kubelet recognise it.
 */
export function generateContainerConfig(
  pod: Pod,
  container: Container,
  restartCount: number,
  imageRef: string,
  nodeName: string,
  addresses: PodAddresses,
  volumes: PodVolumes = new Map(),
  envSources?: EnvSources,
  options: ContainerConfigOptions = {},
): ContainerConfig {
  const memoryCapacity = addresses.allocatable?.memory ?? 0;
  const env = makeEnvironmentVariables(pod, container, addresses, envSources);
  const { command, args } = expandCommand(container, env);
  const stopSignal = container.lifecycle?.stopSignal;
  return {
    metadata: { name: container.name, attempt: restartCount },
    image: { image: imageRef, userSpecifiedImage: container.image ?? '' },
    command,
    args,
    workingDir: container.workingDir ?? '',
    envs: env.map((e) => ({ key: e.name, value: e.value })),
    mounts: makeMounts(container, volumes, options.supportsRecursiveReadOnly === true, options.imageVolumes, readOnlyClaims(pod)),
    labels: containerLabels(pod, container, nodeName),
    annotations: containerAnnotations(pod, container, restartCount),
    logPath: `${container.name}/${restartCount}.log`,
    stdin: container.stdin ?? false,
    stdinOnce: container.stdinOnce ?? false,
    tty: container.tty ?? false,
    // The pod's namespaces on every container (without them a runtime puts it in the sandbox's PID namespace), its user and groups.
    linux: {
      resources: linuxContainerResources(pod, container, memoryCapacity),
      securityContext: linuxContainerSecurityContext(pod, container, { seccomp: options.seccomp }),
    },
    ...(stopSignal && STOP_SIGNALS.has(stopSignal) ? { stopSignal: `SIGNAL_${stopSignal}` as ContainerConfig['stopSignal'] } : {}),
  };
}

/** The pod's volumes of claims it asks read-only: every mount of them is read-only, as the claim's mounter makes it. */
function readOnlyClaims(pod: Pod): Set<string> {
  return new Set(
    (pod.spec.volumes ?? []).filter((v) => (v.persistentVolumeClaim as { readOnly?: boolean } | undefined)?.readOnly).map((v) => v.name),
  );
}

/**
 * The restart count of a container the runtime has no instance of, from its log directory
 * (the kubelet's calcRestartCountByLogDir): one past the highest `<n>.log` (rotated ones too),
 * 0 without any. So a container removed by a restart in place, or lost with the runtime's state,
 * neither overwrites its old log nor counts from 0.
 */
export function restartCountFromLogDir(dir: string): number {
  let names: string[];
  try {
    names = readdirSync(dir, { withFileTypes: true })
      .filter((e) => !e.isDirectory())
      .map((e) => e.name);
  } catch {
    return 0;
  }
  let count = 0;
  for (const name of names) {
    const m = /^(\d+)\.log(\..*)?/.exec(name);
    if (m) count = Math.max(count, Number(m[1]) + 1);
  }
  return count;
}
