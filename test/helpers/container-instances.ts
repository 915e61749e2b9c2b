import type { ContainerInstance, ContainerRuntimeState } from '../../src/engine/container/types.js';

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
