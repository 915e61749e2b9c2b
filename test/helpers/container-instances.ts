import type { ContainerInstance, ContainerRuntimeState, RuntimePodStatus } from '../../src/engine/container/types.js';

/**
 * One container as the runtime manager reports it, for status tests: a
 * busybox container created 0.5 s before `times.started`, running from then
 * on, or exited at `times.finished` with code 0; `over` changes the rest.
 */
export function containerInstance(
  name: string,
  state: ContainerRuntimeState,
  times: { started: number; finished: number },
  over: Partial<ContainerInstance> = {},
): ContainerInstance {
  return {
    id: `${name}-1`,
    name,
    state,
    createdAt: times.started - 500,
    startedAt: state === 'created' ? 0 : times.started,
    finishedAt: state === 'exited' ? times.finished : 0,
    exitCode: 0,
    image: 'docker.io/library/busybox:1.36',
    imageRef: 'docker.io/library/busybox@sha256:abc',
    imageId: 'sha256:abc',
    reason: '',
    message: '',
    hash: '',
    restartCount: 0,
    logPath: '',
    labels: {},
    annotations: {},
    ...over,
  };
}

/**
 * Pod `default/web` (uid `uid-1`) as the runtime manager reports it, for
 * computePodActions tests: one sandbox on the pod network, made at
 * CREATED_AT and ready unless told otherwise, with CONTAINERS.
 */
export function webPodRuntime(createdAt: number, containers: ContainerInstance[], sandboxReady = true): RuntimePodStatus {
  const sandbox = {
    id: 'sb-1',
    state: sandboxReady ? ('ready' as const) : ('notready' as const),
    createdAt,
    attempt: 0,
    ip: '10.88.0.5',
    network: 'POD' as const,
  };
  return { uid: 'uid-1', name: 'web', namespace: 'default', ips: ['10.88.0.5'], sandboxes: [sandbox], containers };
}
