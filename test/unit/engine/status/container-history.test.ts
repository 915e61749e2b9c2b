// A container's history in its status, as the kubelet's convertToAPIContainerStatuses
// keeps it when the runtime's records fall short: the old status of a container whose
// instances are gone, the restart count the runtime no longer knows, an init
// container that must have succeeded, and the back-off of a failed init container.
import { describe, expect, it } from 'vitest';
import { containerInstance } from '../../../helpers/container-instances.js';
import type { Container, ContainerStatus, Pod, PodSpec, PodStatus } from '../../../../src/engine/api/v1.js';
import type { ContainerInstance, RuntimePodStatus } from '../../../../src/engine/container/types.js';
import { PodSyncResult, SyncError, SyncErrors } from '../../../../src/engine/kuberuntime/sync-result.js';
import { generateAPIPodStatus } from '../../../../src/engine/status/generate.js';
import { ReasonCache } from '../../../../src/engine/status/reason-cache.js';

const NOW = Date.UTC(2024, 0, 2, 3, 4, 5);
const STARTED = Date.UTC(2024, 0, 2, 3, 0, 0);
const STARTED_TEXT = '2024-01-02T03:00:00Z';
const FINISHED = Date.UTC(2024, 0, 2, 3, 1, 30);
const FINISHED_TEXT = '2024-01-02T03:01:30Z';
const UID = 'uid-1';
const BACK_OFF = 'back-off 10s restarting failed container=setup pod=web_default(uid-1)';

const c = (name: string, extra: Partial<Container> = {}): Container => ({ name, image: 'busybox:1.36', ...extra });

function pod(spec: Partial<PodSpec> & Pick<PodSpec, 'containers'>, deleted = false): Pod {
  return { metadata: { name: 'web', namespace: 'default', uid: UID, ...(deleted ? { deletionTimestamp: STARTED_TEXT } : {}) }, spec };
}

const instance = (name: string, state: 'running' | 'exited', over: Partial<ContainerInstance> = {}) =>
  containerInstance(name, state, { started: STARTED, finished: FINISHED }, over);

function runtime(...containers: ContainerInstance[]): RuntimePodStatus {
  const sandbox = { id: 'sb-1', state: 'ready' as const, createdAt: STARTED - 1000, attempt: 0, ip: '10.88.0.5', network: 'POD' as const };
  return { uid: UID, name: 'web', namespace: 'default', ips: ['10.88.0.5'], sandboxes: [sandbox], containers };
}

/** The terminated state of instance ID as the API shows it. */
const terminated = (exitCode: number, reason: string, id: string) => ({
  terminated: { exitCode, reason, startedAt: STARTED_TEXT, finishedAt: FINISHED_TEXT, containerID: `containerd://${id}` },
});

/** An old API status of container NAME. */
function old(name: string, over: Partial<ContainerStatus>): ContainerStatus {
  return { name, state: {}, lastState: {}, ready: false, restartCount: 0, image: 'busybox:1.36', imageID: '', ...over };
}

/** A reason cache after a SyncPod whose start of CONTAINER met its crash-loop back-off. */
function backedOff(container: string): ReasonCache {
  const cache = new ReasonCache();
  const result = new PodSyncResult();
  result.add({ action: 'StartContainer', target: container, error: new SyncError(SyncErrors.crashLoopBackOff, BACK_OFF) });
  cache.update(UID, result);
  return cache;
}

interface Row {
  name: string;
  pod: Pod;
  runtime: RuntimePodStatus;
  oldStatus?: PodStatus;
  reasons?: ReasonCache;
  container: string;
  want: Partial<ContainerStatus>;
}

const rows: Row[] = [
  {
    name: 'no instance left, the old status terminated: the old status as it was',
    pod: pod({ restartPolicy: 'Never', containers: [c('app')] }),
    runtime: runtime(),
    oldStatus: {
      containerStatuses: [
        old('app', {
          state: terminated(1, 'Error', 'app-2'),
          lastState: terminated(2, 'Error', 'app-1'),
          restartCount: 1,
          containerID: 'containerd://app-2',
        }),
      ],
    },
    container: 'app',
    want: {
      state: terminated(1, 'Error', 'app-2'),
      lastState: terminated(2, 'Error', 'app-1'),
      restartCount: 1,
      containerID: 'containerd://app-2',
    },
  },
  {
    name: 'no instance left, the old status running: waiting, the run terminated as ContainerStatusUnknown, one restart more',
    pod: pod({ containers: [c('app')] }),
    runtime: runtime(),
    oldStatus: { containerStatuses: [old('app', { state: { running: { startedAt: STARTED_TEXT } }, restartCount: 2 })] },
    container: 'app',
    want: {
      state: { waiting: { reason: 'ContainerCreating' } },
      lastState: {
        terminated: {
          exitCode: 137,
          reason: 'ContainerStatusUnknown',
          message: 'The container could not be located when the pod was deleted.  The container used to be Running',
        },
      },
      restartCount: 3,
    },
  },
  {
    name: 'the same in a pod being deleted: no restart counted',
    pod: pod({ containers: [c('app')] }, true),
    runtime: runtime(),
    oldStatus: { containerStatuses: [old('app', { state: { running: { startedAt: STARTED_TEXT } }, restartCount: 2 })] },
    container: 'app',
    want: { state: { waiting: { reason: 'ContainerCreating' } }, restartCount: 2 },
  },
  {
    name: 'no instance left, the old status running with a last termination: that termination kept, no restart counted',
    pod: pod({ containers: [c('app')] }),
    runtime: runtime(),
    oldStatus: {
      containerStatuses: [
        old('app', { state: { running: { startedAt: STARTED_TEXT } }, lastState: terminated(1, 'Error', 'app-1'), restartCount: 1 }),
      ],
    },
    container: 'app',
    want: { state: { waiting: { reason: 'ContainerCreating' } }, lastState: terminated(1, 'Error', 'app-1'), restartCount: 1 },
  },
  {
    name: 'an init container without records or old status, a regular container created: it succeeded',
    pod: pod({ initContainers: [c('setup')], containers: [c('app')] }),
    runtime: runtime(instance('app', 'running')),
    container: 'setup',
    want: {
      state: {
        terminated: {
          exitCode: 0,
          reason: 'Completed',
          message: 'Unable to get init container status from container runtime and pod has been initialized, treat it as exited normally',
        },
      },
      lastState: {},
    },
  },
  {
    name: 'a sidecar without records, a regular container created: waiting, it will be started again',
    pod: pod({ initContainers: [c('proxy', { restartPolicy: 'Always' })], containers: [c('app')] }),
    runtime: runtime(instance('app', 'running')),
    container: 'proxy',
    want: { state: { waiting: { reason: 'PodInitializing' } } },
  },
  {
    name: 'the runtime counts fewer restarts than the old status: the old count stays',
    pod: pod({ restartPolicy: 'OnFailure', containers: [c('app')] }),
    runtime: runtime(instance('app', 'exited', { exitCode: 1, restartCount: 0 })),
    oldStatus: { containerStatuses: [old('app', { state: { waiting: { reason: 'CrashLoopBackOff' } }, restartCount: 4 })] },
    container: 'app',
    want: { state: terminated(1, 'Error', 'app-1'), restartCount: 4 },
  },
  {
    name: 'running after a termination the runtime no longer counts: one restart more than the old status',
    pod: pod({ containers: [c('app')] }),
    runtime: runtime(instance('app', 'running', { id: 'app-2', restartCount: 0 })),
    oldStatus: {
      containerStatuses: [old('app', { state: terminated(1, 'Error', 'app-1'), restartCount: 3, containerID: 'containerd://app-1' })],
    },
    container: 'app',
    want: { state: { running: { startedAt: STARTED_TEXT } }, lastState: terminated(1, 'Error', 'app-1'), restartCount: 4 },
  },
  {
    name: 'running after a counted restart: the runtime count',
    pod: pod({ containers: [c('app')] }),
    runtime: runtime(
      instance('app', 'running', { id: 'app-2', restartCount: 2 }),
      instance('app', 'exited', { exitCode: 1, restartCount: 1 }),
    ),
    oldStatus: {
      containerStatuses: [old('app', { state: terminated(1, 'Error', 'app-1'), restartCount: 1, containerID: 'containerd://app-1' })],
    },
    container: 'app',
    want: { state: { running: { startedAt: STARTED_TEXT } }, lastState: terminated(1, 'Error', 'app-1'), restartCount: 2 },
  },
  ...(['OnFailure', 'Always'] as const).map((policy): Row => ({
    name: `restartPolicy ${policy}, an init container that failed, in its back-off: waiting CrashLoopBackOff, the failed run last`,
    pod: pod({ restartPolicy: policy, initContainers: [c('setup')], containers: [c('app')] }),
    runtime: runtime(instance('setup', 'exited', { id: 'setup-2', exitCode: 1, restartCount: 1 })),
    oldStatus: {
      initContainerStatuses: [
        old('setup', { state: terminated(1, 'Error', 'setup-2'), restartCount: 1, containerID: 'containerd://setup-2' }),
      ],
    },
    reasons: backedOff('setup'),
    container: 'setup',
    want: {
      state: { waiting: { reason: 'CrashLoopBackOff', message: BACK_OFF } },
      lastState: terminated(1, 'Error', 'setup-2'),
      restartCount: 1,
    },
  })),
  {
    name: 'restartPolicy Never, an init container that failed: terminated, it will not start again',
    pod: pod({ restartPolicy: 'Never', initContainers: [c('setup')], containers: [c('app')] }),
    runtime: runtime(instance('setup', 'exited', { id: 'setup-1', exitCode: 1 })),
    reasons: backedOff('setup'),
    container: 'setup',
    want: { state: terminated(1, 'Error', 'setup-1'), lastState: {} },
  },
];

describe('generateAPIPodStatus: a container history the runtime no longer holds', () => {
  it.each(rows.map((row) => [row.name, row] as const))('%s', (_name, row) => {
    const status = generateAPIPodStatus(row.pod, row.runtime, {
      now: NOW,
      hostIP: '192.168.1.10',
      runtimeName: 'containerd',
      reasons: row.reasons ?? new ReasonCache(),
      oldStatus: row.oldStatus,
      podIsTerminal: false,
    });
    const got = [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])].find((s) => s.name === row.container);
    expect(got).toMatchObject(row.want);
    if (row.want.lastState) expect(got?.lastState).toEqual(row.want.lastState);
    expect(got?.state).toEqual(row.want.state);
  });
});
