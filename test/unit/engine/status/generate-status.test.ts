import { describe, expect, it } from 'vitest';
import { containerInstance } from '../../../helpers/container-instances.js';
import type { Container, ContainerStatus, Pod, PodCondition, PodSpec, PodStatus } from '../../../../src/engine/api/v1.js';
import type {
  ContainerInstance,
  ContainerRuntimeState,
  RuntimePodStatus,
  SandboxInstance,
} from '../../../../src/engine/container/types.js';
import { PodSyncResult, SyncError, SyncErrors, type SyncErrorReason } from '../../../../src/engine/kuberuntime/sync-result.js';
import { podRow } from '../../../../src/engine/api/printers.js';
import { generateAPIPodStatus, type StatusContext } from '../../../../src/engine/status/generate.js';
import { qosClassOf } from '../../../../src/engine/status/qos.js';
import { ReasonCache } from '../../../../src/engine/status/reason-cache.js';

// ---- builders ---------------------------------------------------------------

/** The times used below, and how the API writes them (RFC 3339, whole seconds). */
const NOW = Date.UTC(2024, 0, 2, 3, 4, 5, 678);
const NOW_TEXT = '2024-01-02T03:04:05Z';
const STARTED = Date.UTC(2024, 0, 2, 3, 0, 0, 250);
const STARTED_TEXT = '2024-01-02T03:00:00Z';
const FINISHED = Date.UTC(2024, 0, 2, 3, 1, 30, 999);
const FINISHED_TEXT = '2024-01-02T03:01:30Z';
const EARLIER_TEXT = '2024-01-01T00:00:00Z';

const UID = 'uid-1';
const c = (name: string, extra: Partial<Container> = {}): Container => ({ name, image: 'busybox:1.36', ...extra });
const sidecar = (name: string): Container => c(name, { restartPolicy: 'Always' });

function pod(spec: Partial<PodSpec> & Pick<PodSpec, 'containers'>): Pod {
  return { metadata: { name: 'web', namespace: 'default', uid: UID }, spec };
}

function sandbox(state: SandboxInstance['state'] = 'ready'): SandboxInstance {
  return { id: 'sb-1', state, createdAt: STARTED - 1000, attempt: 0, ip: '10.88.0.5', network: 'POD' };
}

const instance = (name: string, state: ContainerRuntimeState, over: Partial<ContainerInstance> = {}) =>
  containerInstance(name, state, { started: STARTED, finished: FINISHED }, over);
const running = (name: string, over: Partial<ContainerInstance> = {}) => instance(name, 'running', over);
const exited = (name: string, exitCode: number, over: Partial<ContainerInstance> = {}) => instance(name, 'exited', { exitCode, ...over });

function runtime(sandboxes: SandboxInstance[], containers: ContainerInstance[] = []): RuntimePodStatus {
  const ips = sandboxes[0]?.state === 'ready' ? [sandboxes[0].ip] : [];
  return { uid: UID, name: 'web', namespace: 'default', ips, sandboxes, containers };
}

/** A reason cache holding the failures of one SyncPod's StartContainer steps. */
function reasons(...failures: [container: string, reason: SyncErrorReason, message: string][]): ReasonCache {
  const cache = new ReasonCache();
  const result = new PodSyncResult();
  for (const [target, reason, message] of failures) result.add({ action: 'StartContainer', target, error: new SyncError(reason, message) });
  cache.update(UID, result);
  return cache;
}

function ctx(over: Partial<StatusContext> = {}): StatusContext {
  return { now: NOW, hostIP: '192.168.1.10', runtimeName: 'containerd', reasons: new ReasonCache(), podIsTerminal: false, ...over };
}

function statusOf(s: PodStatus, name: string): ContainerStatus {
  return [...(s.initContainerStatuses ?? []), ...(s.containerStatuses ?? [])].find((x) => x.name === name)!;
}

/** Conditions without their times, in order. */
const conditionsOf = (s: PodStatus) => (s.conditions ?? []).map(({ lastTransitionTime: _t, lastProbeTime: _p, ...rest }) => rest);
const cond = (type: string, status: PodCondition['status'], reason?: string, message?: string) => ({
  type,
  status,
  ...(reason ? { reason } : {}),
  ...(message ? { message } : {}),
});

// ---- container statuses -----------------------------------------------------

interface ContainerRow {
  name: string;
  pod: Pod;
  runtime: RuntimePodStatus;
  ctx?: Partial<StatusContext>;
  container: string;
  want: Partial<ContainerStatus> & Pick<ContainerStatus, 'state'>;
}

const crashLoop = 'back-off 10s restarting failed container=app pod=web_default(uid-1)';
const terminatedApp = (exitCode: number, reason: string, id = 'app-1') => ({
  terminated: { exitCode, reason, startedAt: STARTED_TEXT, finishedAt: FINISHED_TEXT, containerID: `containerd://${id}` },
});

/** An old API status of `app` with this state and last state, of the instance `id`. */
function oldApp(state: ContainerStatus['state'], lastState: ContainerStatus['lastState'], id: string): ContainerStatus {
  return {
    name: 'app',
    state,
    lastState,
    ready: false,
    restartCount: 1,
    image: 'busybox:1.36',
    imageID: '',
    containerID: `containerd://${id}`,
  };
}

const containerRows: ContainerRow[] = [
  {
    name: 'never created, pod without init containers: waiting ContainerCreating',
    pod: pod({ containers: [c('app')] }),
    runtime: runtime([]),
    container: 'app',
    want: {
      state: { waiting: { reason: 'ContainerCreating' } },
      lastState: {},
      ready: false,
      started: false,
      restartCount: 0,
      image: 'busybox:1.36',
      imageID: '',
    },
  },
  {
    name: 'never created, pod with init containers: waiting PodInitializing',
    pod: pod({ initContainers: [c('setup')], containers: [c('app')] }),
    runtime: runtime([sandbox()], [running('setup')]),
    container: 'app',
    want: { state: { waiting: { reason: 'PodInitializing' } }, lastState: {}, ready: false },
  },
  {
    name: 'running: startedAt in RFC 3339 seconds, id prefixed with the runtime name, ready and started',
    pod: pod({ containers: [c('app')] }),
    runtime: runtime([sandbox()], [running('app', { restartCount: 2 })]),
    container: 'app',
    want: {
      state: { running: { startedAt: STARTED_TEXT } },
      lastState: {},
      containerID: 'containerd://app-1',
      image: 'docker.io/library/busybox:1.36',
      imageID: 'docker.io/library/busybox@sha256:abc',
      ready: true,
      started: true,
      restartCount: 2,
    },
  },
  {
    name: 'running under another runtime name',
    pod: pod({ containers: [c('app')] }),
    runtime: runtime([sandbox()], [running('app')]),
    ctx: { runtimeName: 'knode' },
    container: 'app',
    want: { state: { running: { startedAt: STARTED_TEXT } }, containerID: 'knode://app-1' },
  },
  {
    name: 'running, readiness probe failing: started but not ready',
    pod: pod({ containers: [c('app')] }),
    runtime: runtime([sandbox()], [running('app')]),
    ctx: { ready: () => false },
    container: 'app',
    want: { state: { running: { startedAt: STARTED_TEXT } }, started: true, ready: false },
  },
  {
    name: 'running, startup probe not passed: neither started nor ready',
    pod: pod({ containers: [c('app')] }),
    runtime: runtime([sandbox()], [running('app')]),
    ctx: { started: () => false, ready: () => true },
    container: 'app',
    want: { state: { running: { startedAt: STARTED_TEXT } }, started: false, ready: false },
  },
  {
    name: 'the runtime reports an image id: show the image the spec names',
    pod: pod({ containers: [c('app')] }),
    runtime: runtime([sandbox()], [running('app', { image: 'sha256:abc' })]),
    container: 'app',
    want: { state: { running: { startedAt: STARTED_TEXT } }, image: 'busybox:1.36' },
  },
  {
    name: 'exited 0: terminated, reason Completed',
    pod: pod({ restartPolicy: 'Never', containers: [c('app')] }),
    runtime: runtime([sandbox()], [exited('app', 0)]),
    container: 'app',
    want: { state: terminatedApp(0, 'Completed'), lastState: {}, containerID: 'containerd://app-1', ready: false, started: false },
  },
  {
    name: 'exited 1: terminated, reason Error',
    pod: pod({ restartPolicy: 'Never', containers: [c('app')] }),
    runtime: runtime([sandbox()], [exited('app', 1)]),
    container: 'app',
    want: { state: terminatedApp(1, 'Error'), lastState: {} },
  },
  {
    name: "exited with the runtime's own reason and message: both kept",
    pod: pod({ restartPolicy: 'Never', containers: [c('app')] }),
    runtime: runtime([sandbox()], [exited('app', 137, { reason: 'OOMKilled', message: 'out of memory' })]),
    container: 'app',
    want: { state: { terminated: { ...terminatedApp(137, 'OOMKilled').terminated, message: 'out of memory' } } },
  },
  {
    name: 'running again: the previous exited instance becomes lastState',
    pod: pod({ containers: [c('app')] }),
    runtime: runtime([sandbox()], [running('app', { id: 'app-2', restartCount: 1 }), exited('app', 2)]),
    container: 'app',
    want: {
      state: { running: { startedAt: STARTED_TEXT } },
      lastState: terminatedApp(2, 'Error'),
      containerID: 'containerd://app-2',
      restartCount: 1,
    },
  },
  {
    name: 'exited, CrashLoopBackOff in the reason cache: waiting with that reason, the termination moves to lastState',
    pod: pod({ containers: [c('app')] }),
    runtime: runtime([sandbox()], [exited('app', 1, { restartCount: 3 })]),
    ctx: { reasons: reasons(['app', SyncErrors.crashLoopBackOff, crashLoop]) },
    container: 'app',
    want: {
      state: { waiting: { reason: 'CrashLoopBackOff', message: crashLoop } },
      lastState: terminatedApp(1, 'Error'),
      restartCount: 3,
      ready: false,
    },
  },
  {
    name: 'never created, ErrImagePull in the reason cache: waiting ErrImagePull',
    pod: pod({ containers: [c('app')] }),
    runtime: runtime([sandbox()]),
    ctx: { reasons: reasons(['app', SyncErrors.imagePull, 'pull access denied']) },
    container: 'app',
    want: { state: { waiting: { reason: 'ErrImagePull', message: 'pull access denied' } }, lastState: {} },
  },
  {
    name: 'running: a stale reason-cache entry does not hide it',
    pod: pod({ containers: [c('app')] }),
    runtime: runtime([sandbox()], [running('app')]),
    ctx: { reasons: reasons(['app', SyncErrors.crashLoopBackOff, crashLoop]) },
    container: 'app',
    want: { state: { running: { startedAt: STARTED_TEXT } }, ready: true },
  },
  {
    name: 'a reason-cache entry of another container does not touch this one',
    pod: pod({ containers: [c('app'), c('other')] }),
    runtime: runtime([sandbox()], [exited('app', 1)]),
    ctx: { reasons: reasons(['other', SyncErrors.imagePull, 'nope']) },
    container: 'app',
    want: { state: terminatedApp(1, 'Error') },
  },
  {
    name: 'init container not created yet, pod with init containers: waiting PodInitializing',
    pod: pod({ initContainers: [c('setup'), c('migrate')], containers: [c('app')] }),
    runtime: runtime([sandbox()], [running('setup')]),
    container: 'migrate',
    want: { state: { waiting: { reason: 'PodInitializing' } }, lastState: {}, ready: false },
  },
  {
    name: 'init container exited 0: terminated Completed, and ready',
    pod: pod({ initContainers: [c('setup')], containers: [c('app')] }),
    runtime: runtime([sandbox()], [running('app'), exited('setup', 0)]),
    container: 'setup',
    want: { state: terminatedApp(0, 'Completed', 'setup-1'), lastState: {}, ready: true },
  },
  {
    name: 'exited under restartPolicy Never, RunContainerError in the reason cache: stays terminated, as it will not start again',
    pod: pod({ restartPolicy: 'Never', containers: [c('app')] }),
    runtime: runtime([sandbox()], [exited('app', 128, { reason: 'StartError' })]),
    ctx: { reasons: reasons(['app', SyncErrors.runContainer, 'failed to start']) },
    container: 'app',
    want: { state: terminatedApp(128, 'StartError'), lastState: {} },
  },
  {
    name: 'init container that failed to start under restartPolicy Never, RunContainerError in the reason cache: stays terminated StartError, as it will not start again',
    pod: pod({ restartPolicy: 'Never', initContainers: [c('setup')], containers: [c('app')] }),
    runtime: runtime([sandbox()], [exited('setup', 128, { reason: 'StartError' })]),
    ctx: { reasons: reasons(['setup', SyncErrors.runContainer, 'failed to start']) },
    container: 'setup',
    want: { state: terminatedApp(128, 'StartError', 'setup-1'), lastState: {} },
  },
  {
    name: 'init container that failed to start under restartPolicy OnFailure: waiting RunContainerError, as it starts again',
    pod: pod({ restartPolicy: 'OnFailure', initContainers: [c('setup')], containers: [c('app')] }),
    runtime: runtime([sandbox()], [exited('setup', 128, { reason: 'StartError' })]),
    ctx: { reasons: reasons(['setup', SyncErrors.runContainer, 'failed to start']) },
    container: 'setup',
    want: {
      state: { waiting: { reason: 'RunContainerError', message: 'failed to start' } },
      lastState: terminatedApp(128, 'StartError', 'setup-1'),
    },
  },
  {
    name: 'init container that failed to start under restartPolicy Always: waiting RunContainerError, as it starts again',
    pod: pod({ initContainers: [c('setup')], containers: [c('app')] }),
    runtime: runtime([sandbox()], [exited('setup', 128, { reason: 'StartError' })]),
    ctx: { reasons: reasons(['setup', SyncErrors.runContainer, 'failed to start']) },
    container: 'setup',
    want: {
      state: { waiting: { reason: 'RunContainerError', message: 'failed to start' } },
      lastState: terminatedApp(128, 'StartError', 'setup-1'),
    },
  },
  {
    name: 'sidecar that failed to start under restartPolicy Never: waiting RunContainerError, as a sidecar always restarts',
    pod: pod({ restartPolicy: 'Never', initContainers: [sidecar('proxy')], containers: [c('app')] }),
    runtime: runtime([sandbox()], [exited('proxy', 128, { reason: 'StartError' })]),
    ctx: { reasons: reasons(['proxy', SyncErrors.runContainer, 'failed to start']) },
    container: 'proxy',
    want: {
      state: { waiting: { reason: 'RunContainerError', message: 'failed to start' } },
      lastState: terminatedApp(128, 'StartError', 'proxy-1'),
    },
  },
  {
    name: 'init container exited 0, an entry in the reason cache: stays terminated, as it will not start again',
    pod: pod({ initContainers: [c('setup')], containers: [c('app')] }),
    runtime: runtime([sandbox()], [running('app'), exited('setup', 0)]),
    ctx: { reasons: reasons(['setup', SyncErrors.runContainer, 'failed to start']) },
    container: 'setup',
    want: { state: terminatedApp(0, 'Completed', 'setup-1'), lastState: {} },
  },
  {
    name: 'no instance left: restart count and last state come from the old status',
    pod: pod({ containers: [c('app')] }),
    runtime: runtime([sandbox()]),
    ctx: {
      oldStatus: {
        containerStatuses: [
          {
            name: 'app',
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: terminatedApp(1, 'Error'),
            ready: false,
            restartCount: 4,
            image: 'busybox:1.36',
            imageID: '',
          },
        ],
      },
    },
    container: 'app',
    want: { state: { waiting: { reason: 'ContainerCreating' } }, lastState: terminatedApp(1, 'Error'), restartCount: 4 },
  },
  {
    name: 'OnFailure, exited 0 on a retry, the failed run collected: the old status keeps it as lastState',
    pod: pod({ restartPolicy: 'OnFailure', containers: [c('app')] }),
    runtime: runtime([sandbox()], [exited('app', 0, { id: 'app-2', restartCount: 1 })]),
    ctx: { oldStatus: { containerStatuses: [oldApp({ running: { startedAt: STARTED_TEXT } }, terminatedApp(1, 'Error'), 'app-2')] } },
    container: 'app',
    want: { state: terminatedApp(0, 'Completed', 'app-2'), lastState: terminatedApp(1, 'Error'), restartCount: 1 },
  },
  {
    name: "the old status's own termination, of another instance, becomes lastState",
    pod: pod({ restartPolicy: 'OnFailure', containers: [c('app')] }),
    runtime: runtime([sandbox()], [running('app', { id: 'app-2', restartCount: 1 })]),
    ctx: { oldStatus: { containerStatuses: [oldApp(terminatedApp(1, 'Error'), {}, 'app-1')] } },
    container: 'app',
    want: { state: { running: { startedAt: STARTED_TEXT } }, lastState: terminatedApp(1, 'Error') },
  },
  {
    name: "the old status's termination of this same instance is its state, not its lastState",
    pod: pod({ restartPolicy: 'Never', containers: [c('app')] }),
    runtime: runtime([sandbox()], [exited('app', 1)]),
    ctx: { oldStatus: { containerStatuses: [oldApp(terminatedApp(1, 'Error'), {}, 'app-1')] } },
    container: 'app',
    want: { state: terminatedApp(1, 'Error'), lastState: {} },
  },
  {
    name: 'a previous instance in the runtime wins over the old status',
    pod: pod({ containers: [c('app')] }),
    runtime: runtime([sandbox()], [running('app', { id: 'app-3', restartCount: 2 }), exited('app', 2, { id: 'app-2' })]),
    ctx: { oldStatus: { containerStatuses: [oldApp({ waiting: { reason: 'CrashLoopBackOff' } }, terminatedApp(1, 'Error'), 'app-2')] } },
    container: 'app',
    want: { state: { running: { startedAt: STARTED_TEXT } }, lastState: terminatedApp(2, 'Error', 'app-2') },
  },
  {
    name: 'OnFailure, an init container that succeeded on a retry after its failed run was pruned: lastState kept',
    pod: pod({ restartPolicy: 'OnFailure', initContainers: [c('setup')], containers: [c('app')] }),
    runtime: runtime([sandbox()], [running('app'), exited('setup', 0, { id: 'setup-2', restartCount: 1 })]),
    ctx: {
      oldStatus: {
        initContainerStatuses: [
          { ...oldApp({ running: { startedAt: STARTED_TEXT } }, terminatedApp(1, 'Error', 'setup-1'), 'setup-2'), name: 'setup' },
        ],
      },
    },
    container: 'setup',
    want: { state: terminatedApp(0, 'Completed', 'setup-2'), lastState: terminatedApp(1, 'Error', 'setup-1'), ready: true },
  },
];

describe('generateAPIPodStatus: container statuses', () => {
  it.each(containerRows.map((row) => [row.name, row] as const))('%s', (_name, { pod: p, runtime: rt, ctx: over, container, want }) => {
    const got = statusOf(generateAPIPodStatus(p, rt, ctx(over)), container);
    const { state, lastState, ...rest } = want;
    expect(got.state).toEqual(state);
    if (lastState) expect(got.lastState).toEqual(lastState);
    expect(got).toMatchObject(rest);
  });

  it('lists init containers apart, and leaves the list out when there are none', () => {
    const withInit = generateAPIPodStatus(
      pod({ initContainers: [c('setup')], containers: [c('app')] }),
      runtime([sandbox()], [exited('setup', 0)]),
      ctx(),
    );
    expect(withInit.initContainerStatuses?.map((s) => s.name)).toEqual(['setup']);
    expect(withInit.containerStatuses?.map((s) => s.name)).toEqual(['app']);
    const without = generateAPIPodStatus(pod({ containers: [c('app')] }), runtime([sandbox()]), ctx());
    expect(without).not.toHaveProperty('initContainerStatuses');
  });

  it('sorts regular containers by name, as the kubelet does, and keeps init containers in spec order', () => {
    const got = generateAPIPodStatus(
      pod({ initContainers: [c('zeta'), c('alpha')], containers: [c('web'), c('Api'), c('db')] }),
      runtime([sandbox()], [exited('zeta', 0), exited('alpha', 0), running('web'), running('Api'), running('db')]),
      ctx(),
    );
    expect(got.initContainerStatuses?.map((s) => s.name)).toEqual(['zeta', 'alpha']);
    expect(got.containerStatuses?.map((s) => s.name)).toEqual(['Api', 'db', 'web']);
  });

  it('counts a running init container as not ready until it succeeds; a running sidecar as ready', () => {
    const got = generateAPIPodStatus(
      pod({ initContainers: [c('migrate'), { ...c('proxy'), restartPolicy: 'Always' }], containers: [c('app')] }),
      runtime([sandbox()], [running('migrate'), running('proxy')]),
      ctx(),
    );
    expect(got.initContainerStatuses?.map((s) => [s.name, s.started, s.ready])).toEqual([
      ['migrate', true, false],
      ['proxy', true, true],
    ]);
  });
});

// ---- conditions -------------------------------------------------------------

interface ConditionRow {
  name: string;
  pod: Pod;
  runtime: RuntimePodStatus;
  ctx?: Partial<StatusContext>;
  want: ReturnType<typeof cond>[];
}

const unready = (names: string) => `containers with unready status: [${names}]`;
const incomplete = (names: string) => `containers with incomplete status: [${names}]`;
const notReady = (names: string) => [
  cond('Ready', 'False', 'ContainersNotReady', unready(names)),
  cond('ContainersReady', 'False', 'ContainersNotReady', unready(names)),
];
const allReady = [cond('Ready', 'True'), cond('ContainersReady', 'True')];
const scheduled = cond('PodScheduled', 'True');
/** The kubelet's PodReadyToStartContainers=False, with PodSandboxChanged's reason as the message. */
const noSandbox = (why: string) => cond('PodReadyToStartContainers', 'False', 'PodSandboxNotReady', why);

const conditionRows: ConditionRow[] = [
  {
    name: 'no sandbox, nothing created',
    pod: pod({ containers: [c('app')] }),
    runtime: runtime([]),
    want: [noSandbox('no pod sandbox exists'), cond('Initialized', 'True'), ...notReady('app'), scheduled],
  },
  {
    name: 'sandbox ready, every container running and ready',
    pod: pod({ containers: [c('a'), c('b')] }),
    runtime: runtime([sandbox()], [running('a'), running('b')]),
    want: [cond('PodReadyToStartContainers', 'True'), cond('Initialized', 'True'), ...allReady, scheduled],
  },
  {
    name: 'sandbox not ready any more',
    pod: pod({ containers: [c('a')] }),
    runtime: runtime([sandbox('notready')], [exited('a', 0)]),
    want: [noSandbox('pod sandbox is not ready'), cond('Initialized', 'True'), ...notReady('a'), scheduled],
  },
  {
    name: 'two containers unready, named in spec order',
    pod: pod({ containers: [c('a'), c('b'), c('c')] }),
    runtime: runtime([sandbox()], [running('b'), running('a')]),
    ctx: { ready: (_name, id) => id === 'b-1' },
    want: [cond('PodReadyToStartContainers', 'True'), cond('Initialized', 'True'), ...notReady('a c'), scheduled],
  },
  {
    name: 'no init container has run yet',
    pod: pod({ initContainers: [c('setup'), c('migrate')], containers: [c('app')] }),
    runtime: runtime([sandbox()]),
    want: [
      cond('PodReadyToStartContainers', 'True'),
      cond('Initialized', 'False', 'ContainersNotInitialized', incomplete('setup migrate')),
      ...notReady('app'),
      scheduled,
    ],
  },
  {
    name: 'first init container done, second running',
    pod: pod({ initContainers: [c('setup'), c('migrate')], containers: [c('app')] }),
    runtime: runtime([sandbox()], [running('migrate'), exited('setup', 0)]),
    want: [
      cond('PodReadyToStartContainers', 'True'),
      cond('Initialized', 'False', 'ContainersNotInitialized', incomplete('migrate')),
      ...notReady('app'),
      scheduled,
    ],
  },
  {
    name: 'init container failed',
    pod: pod({ initContainers: [c('setup')], containers: [c('app')] }),
    runtime: runtime([sandbox()], [exited('setup', 1)]),
    want: [
      cond('PodReadyToStartContainers', 'True'),
      cond('Initialized', 'False', 'ContainersNotInitialized', incomplete('setup')),
      ...notReady('app'),
      scheduled,
    ],
  },
  {
    name: 'init containers done, app running',
    pod: pod({ initContainers: [c('setup')], containers: [c('app')] }),
    runtime: runtime([sandbox()], [running('app'), exited('setup', 0)]),
    want: [cond('PodReadyToStartContainers', 'True'), cond('Initialized', 'True'), ...allReady, scheduled],
  },
  {
    name: 'init records gone but a regular container started: initialized',
    pod: pod({ initContainers: [c('setup')], containers: [c('app')] }),
    runtime: runtime([sandbox()], [running('app')]),
    want: [cond('PodReadyToStartContainers', 'True'), cond('Initialized', 'True'), ...allReady, scheduled],
  },
  {
    name: 'sidecar running but its startup probe has not passed: not initialized',
    pod: pod({ initContainers: [sidecar('proxy')], containers: [c('app')] }),
    runtime: runtime([sandbox()], [running('proxy')]),
    ctx: { started: () => false },
    want: [
      cond('PodReadyToStartContainers', 'True'),
      cond('Initialized', 'False', 'ContainersNotInitialized', incomplete('proxy')),
      ...notReady('proxy app'),
      scheduled,
    ],
  },
  {
    name: 'sidecar started but not ready: initialized, and the pod is not ready',
    pod: pod({ initContainers: [sidecar('proxy')], containers: [c('app')] }),
    runtime: runtime([sandbox()], [running('proxy'), running('app')]),
    ctx: { ready: (_name, id) => id !== 'proxy-1' },
    want: [cond('PodReadyToStartContainers', 'True'), cond('Initialized', 'True'), ...notReady('proxy'), scheduled],
  },
  {
    name: 'Succeeded pod with init containers: PodCompleted everywhere',
    pod: pod({ restartPolicy: 'Never', initContainers: [c('setup')], containers: [c('app')] }),
    runtime: runtime([sandbox('notready')], [exited('app', 0), exited('setup', 0)]),
    want: [
      noSandbox('pod sandbox is not ready'),
      cond('Initialized', 'True', 'PodCompleted'),
      cond('Ready', 'False', 'PodCompleted'),
      cond('ContainersReady', 'False', 'PodCompleted'),
      scheduled,
    ],
  },
  {
    name: 'Succeeded pod without init containers: Initialized with reason PodCompleted',
    pod: pod({ restartPolicy: 'Never', containers: [c('app')] }),
    runtime: runtime([sandbox('notready')], [exited('app', 0)]),
    want: [
      noSandbox('pod sandbox is not ready'),
      cond('Initialized', 'True', 'PodCompleted'),
      cond('Ready', 'False', 'PodCompleted'),
      cond('ContainersReady', 'False', 'PodCompleted'),
      scheduled,
    ],
  },
  {
    name: 'Failed pod: Ready and ContainersReady PodFailed, Initialized without a reason',
    pod: pod({ restartPolicy: 'Never', initContainers: [c('setup')], containers: [c('app')] }),
    runtime: runtime([sandbox('notready')], [exited('app', 1), exited('setup', 0)]),
    want: [
      noSandbox('pod sandbox is not ready'),
      cond('Initialized', 'True'),
      cond('Ready', 'False', 'PodFailed'),
      cond('ContainersReady', 'False', 'PodFailed'),
      scheduled,
    ],
  },
  {
    name: 'ready pod-network sandbox without an IP: not ready to start containers',
    pod: pod({ containers: [c('app')] }),
    runtime: runtime([{ ...sandbox(), ip: '' }], [running('app')]),
    want: [noSandbox('pod sandbox has no IP address'), cond('Initialized', 'True'), ...allReady, scheduled],
  },
  {
    name: 'ready host-network sandbox without an IP: ready to start containers',
    pod: pod({ hostNetwork: true, containers: [c('app')] }),
    runtime: runtime([{ ...sandbox(), ip: '', network: 'NODE' }], [running('app')]),
    want: [cond('PodReadyToStartContainers', 'True'), cond('Initialized', 'True'), ...allReady, scheduled],
  },
];

describe('generateAPIPodStatus: conditions', () => {
  it.each(conditionRows.map((row) => [row.name, row] as const))('%s', (_name, { pod: p, runtime: rt, ctx: over, want }) => {
    expect(conditionsOf(generateAPIPodStatus(p, rt, ctx(over)))).toEqual(want);
  });

  const p = pod({ containers: [c('app')] });
  const old = (status: PodCondition['status']): PodStatus => ({
    phase: 'Running',
    conditions: ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady', 'PodScheduled'].map((type) => ({
      type,
      status: type === 'Ready' || type === 'ContainersReady' ? status : 'True',
      lastTransitionTime: EARLIER_TEXT,
    })),
  });
  const times = (s: PodStatus) => Object.fromEntries((s.conditions ?? []).map((x) => [x.type, x.lastTransitionTime]));

  it.each([
    [
      'no old status: every condition changes now',
      undefined,
      runtime([sandbox()], [running('app')]),
      { PodReadyToStartContainers: NOW_TEXT, Initialized: NOW_TEXT, Ready: NOW_TEXT, ContainersReady: NOW_TEXT, PodScheduled: NOW_TEXT },
    ],
    [
      'same statuses as before: the old times stay',
      old('True'),
      runtime([sandbox()], [running('app')]),
      {
        PodReadyToStartContainers: EARLIER_TEXT,
        Initialized: EARLIER_TEXT,
        Ready: EARLIER_TEXT,
        ContainersReady: EARLIER_TEXT,
        PodScheduled: EARLIER_TEXT,
      },
    ],
    [
      'Ready flips to False: only Ready and ContainersReady move',
      old('True'),
      runtime([sandbox()], [exited('app', 1)]),
      {
        PodReadyToStartContainers: EARLIER_TEXT,
        Initialized: EARLIER_TEXT,
        Ready: NOW_TEXT,
        ContainersReady: NOW_TEXT,
        PodScheduled: EARLIER_TEXT,
      },
    ],
    [
      'Ready flips to True: only Ready and ContainersReady move',
      old('False'),
      runtime([sandbox()], [running('app')]),
      {
        PodReadyToStartContainers: EARLIER_TEXT,
        Initialized: EARLIER_TEXT,
        Ready: NOW_TEXT,
        ContainersReady: NOW_TEXT,
        PodScheduled: EARLIER_TEXT,
      },
    ],
  ] as const)('%s', (_name, oldStatus, rt, want) => {
    const s = generateAPIPodStatus(p, rt, ctx({ oldStatus }));
    expect(times(s)).toEqual(want);
    expect(s.conditions?.every((x) => x.lastProbeTime === null)).toBe(true);
  });
});

// ---- phase and pod-level fields ---------------------------------------------

describe('generateAPIPodStatus: phase', () => {
  it.each([
    [
      'from the containers: running → Running',
      pod({ containers: [c('app')] }),
      runtime([sandbox()], [running('app')]),
      undefined,
      'Running',
    ],
    ['from the containers: nothing yet → Pending', pod({ containers: [c('app')] }), runtime([]), undefined, 'Pending'],
    [
      'Running may become Succeeded',
      pod({ restartPolicy: 'Never', containers: [c('app')] }),
      runtime([sandbox()], [exited('app', 0)]),
      'Running',
      'Succeeded',
    ],
    ['a Succeeded pod stays Succeeded even if it looks Pending', pod({ containers: [c('app')] }), runtime([]), 'Succeeded', 'Succeeded'],
    [
      'a Failed pod stays Failed even if a container runs',
      pod({ containers: [c('app')] }),
      runtime([sandbox()], [running('app')]),
      'Failed',
      'Failed',
    ],
    [
      'a Failed pod does not become Succeeded',
      pod({ restartPolicy: 'Never', containers: [c('app')] }),
      runtime([sandbox()], [exited('app', 0)]),
      'Failed',
      'Failed',
    ],
  ] as const)('%s', (_name, p, rt, oldPhase, want) => {
    expect(generateAPIPodStatus(p, rt, ctx({ oldStatus: oldPhase ? { phase: oldPhase } : undefined })).phase).toBe(want);
  });

  it('fails a Never pod whose init container failed to start, and kubectl shows Init:StartError', () => {
    const p = pod({ restartPolicy: 'Never', initContainers: [c('setup')], containers: [c('app')] });
    const rt = runtime([sandbox()], [exited('setup', 128, { reason: 'StartError' })]);
    const got = generateAPIPodStatus(
      p,
      rt,
      ctx({ reasons: reasons(['setup', SyncErrors.runContainer, 'exec: "no-such-command": executable file not found in $PATH']) }),
    );
    expect(got.phase).toBe('Failed');
    expect(got.initContainerStatuses?.[0].state).toEqual(terminatedApp(128, 'StartError', 'setup-1'));
    expect(podRow({ ...p, status: got }).status).toBe('Init:StartError');
  });

  it('keeps the DisruptionTarget condition a node shutdown set, and the Failed phase with its reason, once the containers are stopped', () => {
    const p = pod({ containers: [c('app')] });
    const disruption: PodCondition = {
      type: 'DisruptionTarget',
      status: 'True',
      reason: 'TerminationByKubelet',
      message: 'Pod was terminated in response to imminent node shutdown.',
      lastProbeTime: null,
      lastTransitionTime: EARLIER_TEXT,
    };
    const oldStatus: PodStatus = { phase: 'Failed', reason: 'Terminated', message: disruption.message, conditions: [disruption] };
    const got = generateAPIPodStatus(p, runtime([sandbox('notready')], [exited('app', 137)]), ctx({ podIsTerminal: true, oldStatus }));
    expect(got).toMatchObject({ phase: 'Failed', reason: 'Terminated', message: disruption.message });
    expect(got.conditions?.at(-1)).toEqual(disruption);
    expect(generateAPIPodStatus(p, runtime([sandbox()], [running('app')]), ctx()).conditions?.map((x) => x.type)).not.toContain(
      'DisruptionTarget',
    );
  });

  it('uses podIsTerminal: an Always pod whose containers all exited is Failed once terminal', () => {
    const p = pod({ containers: [c('app')] });
    const rt = runtime([sandbox('notready')], [exited('app', 1)]);
    expect(generateAPIPodStatus(p, rt, ctx()).phase).toBe('Running');
    expect(generateAPIPodStatus(p, rt, ctx({ podIsTerminal: true })).phase).toBe('Failed');
  });
});

describe('generateAPIPodStatus: pod sync handlers', () => {
  const p = pod({ containers: [c('app')] });
  const deadline = {
    shouldEvict: () => ({
      evict: true,
      reason: 'DeadlineExceeded',
      message: 'Pod was active on the node longer than the specified deadline',
    }),
  };
  const keep = { shouldEvict: () => ({ evict: false }) };

  it('fails a running pod that a handler evicts, with its reason and message, and no longer Ready', () => {
    const s = generateAPIPodStatus(
      p,
      runtime([sandbox()], [running('app')]),
      ctx({ podSyncHandlers: [keep, deadline], oldStatus: { phase: 'Running' } }),
    );
    expect(s).toMatchObject({
      phase: 'Failed',
      reason: 'DeadlineExceeded',
      message: 'Pod was active on the node longer than the specified deadline',
    });
    expect(conditionsOf(s).find((x) => x.type === 'Ready')).toEqual(cond('Ready', 'False', 'PodFailed'));
  });

  it('leaves the pod alone when no handler evicts it', () => {
    const s = generateAPIPodStatus(p, runtime([sandbox()], [running('app')]), ctx({ podSyncHandlers: [keep] }));
    expect(s.phase).toBe('Running');
    expect(s).not.toHaveProperty('reason');
  });

  it('keeps the reason and message of a phase that stays, and drops them when it changes', () => {
    const rt = runtime([sandbox()], [running('app')]);
    expect(generateAPIPodStatus(p, rt, ctx({ oldStatus: { phase: 'Running', reason: 'R', message: 'M' } }))).toMatchObject({
      phase: 'Running',
      reason: 'R',
      message: 'M',
    });
    expect(generateAPIPodStatus(p, rt, ctx({ oldStatus: { phase: 'Pending', reason: 'R', message: 'M' } }))).not.toHaveProperty('reason');
  });

  it('does not move a Succeeded pod to Failed', () => {
    const s = generateAPIPodStatus(p, runtime([]), ctx({ podSyncHandlers: [deadline], oldStatus: { phase: 'Succeeded' } }));
    expect(s.phase).toBe('Succeeded');
    expect(s).not.toHaveProperty('reason');
  });
});

describe('generateAPIPodStatus: addresses and start time', () => {
  const p = pod({ containers: [c('app')] });

  it('takes the pod IP from the sandbox, the host IP from the context', () => {
    const s = generateAPIPodStatus(p, runtime([sandbox()], [running('app')]), ctx());
    expect(s).toMatchObject({
      podIP: '10.88.0.5',
      podIPs: [{ ip: '10.88.0.5' }],
      hostIP: '192.168.1.10',
      hostIPs: [{ ip: '192.168.1.10' }],
    });
  });

  it('gives a hostNetwork pod the host IP', () => {
    const s = generateAPIPodStatus(pod({ hostNetwork: true, containers: [c('app')] }), runtime([sandbox()], [running('app')]), ctx());
    expect(s).toMatchObject({ podIP: '192.168.1.10', podIPs: [{ ip: '192.168.1.10' }] });
  });

  it('keeps the old pod IP while the runtime reports none, and has none before any', () => {
    expect(generateAPIPodStatus(p, runtime([]), ctx({ oldStatus: { podIP: '10.88.0.9' } })).podIP).toBe('10.88.0.9');
    const fresh = generateAPIPodStatus(p, runtime([]), ctx());
    expect(fresh).not.toHaveProperty('podIP');
    expect(fresh).not.toHaveProperty('podIPs');
  });

  it('sets startTime once, to now in RFC 3339 seconds', () => {
    expect(generateAPIPodStatus(p, runtime([]), ctx()).startTime).toBe(NOW_TEXT);
    expect(generateAPIPodStatus(p, runtime([]), ctx({ oldStatus: { startTime: EARLIER_TEXT } })).startTime).toBe(EARLIER_TEXT);
  });
});

// ---- QoS class --------------------------------------------------------------

describe('qosClass', () => {
  const res = (requests?: Record<string, string | number>, limits?: Record<string, string | number>) => ({
    resources: { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) },
  });
  const full = { cpu: '500m', memory: '128Mi' };

  const rows: [string, Pick<PodSpec, 'containers' | 'initContainers'>, PodStatus['qosClass']][] = [
    ['no requests or limits anywhere', { containers: [c('a'), c('b')] }, 'BestEffort'],
    ['requests only', { containers: [c('a', res({ cpu: '100m' }))] }, 'Burstable'],
    ['requests differ from limits', { containers: [c('a', res({ cpu: '100m', memory: '64Mi' }, full))] }, 'Burstable'],
    ['limits only on cpu', { containers: [c('a', res(undefined, { cpu: '1' }))] }, 'Burstable'],
    ['cpu and memory limits equal to requests', { containers: [c('a', res(full, full))] }, 'Guaranteed'],
    ['cpu and memory limits, requests left to default to them', { containers: [c('a', res(undefined, full))] }, 'Guaranteed'],
    [
      'numbers and strings of the same value',
      { containers: [c('a', res({ cpu: 1, memory: '1Gi' }, { cpu: '1', memory: '1Gi' }))] },
      'Guaranteed',
    ],
    ['one guaranteed container, one without resources', { containers: [c('a', res(full, full)), c('b')] }, 'Burstable'],
    ['init containers count too', { initContainers: [c('setup')], containers: [c('a', res(full, full))] }, 'Burstable'],
    [
      'guaranteed init and regular containers',
      { initContainers: [c('setup', res(full, full))], containers: [c('a', res(undefined, full))] },
      'Guaranteed',
    ],
    [
      'requests equal to limits as quantities, written differently',
      { containers: [c('a', res({ cpu: '1', memory: '1Gi' }, { cpu: '1000m', memory: '1024Mi' }))] },
      'Guaranteed',
    ],
    ['only an ephemeral-storage request', { containers: [c('a', res({ 'ephemeral-storage': '1Gi' }))] }, 'BestEffort'],
    ['only a zero cpu request', { containers: [c('a', res({ cpu: '0' }))] }, 'BestEffort'],
  ];
  it.each(rows)('%s → %s', (_name, spec, want) => {
    const p = pod(spec);
    expect(qosClassOf(p)).toBe(want);
    expect(generateAPIPodStatus(p, runtime([]), ctx()).qosClass).toBe(want);
  });
});
