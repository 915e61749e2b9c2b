import { describe, expect, it } from 'vitest';
import type { Container, Pod, PodSpec } from '../../../../src/engine/api/v1.js';
import type {
  ContainerInstance,
  ContainerRuntimeState,
  RuntimePodStatus,
  SandboxInstance,
} from '../../../../src/engine/container/types.js';
import {
  computePodActions,
  shouldContainerBeRestarted,
  type ComputeContext,
  type PodActions,
} from '../../../../src/engine/kuberuntime/compute-pod-actions.js';
import { hashContainer } from '../../../../src/engine/kuberuntime/labels.js';

// ---- builders ---------------------------------------------------------------

const T0 = Date.UTC(2024, 0, 2, 3, 4, 5);

const container = (name: string, extra: Partial<Container> = {}): Container => ({ name, image: `busybox:${name}`, ...extra });
const sidecar = (name: string): Container => container(name, { restartPolicy: 'Always' });

const app = container('app');
const keeper = container('keeper');
const setup = container('setup');
const migrate = container('migrate');
const proxy = sidecar('proxy');
/** A sidecar with a startup probe. */
const slowProxy = container('proxy', { restartPolicy: 'Always', startupProbe: { exec: { command: ['true'] } } });

function pod(spec: Partial<PodSpec> & Pick<PodSpec, 'containers'>, deletionTimestamp?: string): Pod {
  return {
    metadata: { name: 'web', namespace: 'default', uid: 'uid-1', ...(deletionTimestamp ? { deletionTimestamp } : {}) },
    spec,
  };
}

function sandbox(over: Partial<SandboxInstance> = {}): SandboxInstance {
  return { id: 'sb-1', state: 'ready', createdAt: T0, attempt: 0, ip: '10.88.0.5', network: 'POD', ...over };
}

/** One instance of `spec` in the runtime; its hash is the spec's, so it is "unchanged" unless `hash` says otherwise. */
function instance(spec: Container, state: ContainerRuntimeState, over: Partial<ContainerInstance> = {}): ContainerInstance {
  return {
    id: `${spec.name}-1`,
    name: spec.name,
    state,
    createdAt: T0,
    startedAt: state === 'created' ? 0 : T0 + 1000,
    finishedAt: state === 'exited' ? T0 + 5000 : 0,
    exitCode: 0,
    image: spec.image ?? '',
    imageRef: `sha256:${spec.name}`,
    imageId: `sha256:${spec.name}`,
    reason: '',
    message: '',
    hash: hashContainer(spec),
    restartCount: 0,
    logPath: '',
    labels: {},
    annotations: {},
    ...over,
  };
}
const running = (spec: Container, over: Partial<ContainerInstance> = {}) => instance(spec, 'running', over);
const exited = (spec: Container, exitCode: number, over: Partial<ContainerInstance> = {}) =>
  instance(spec, 'exited', { exitCode, ...over });

function runtime(sandboxes: SandboxInstance[], containers: ContainerInstance[] = []): RuntimePodStatus {
  return { uid: 'uid-1', name: 'web', namespace: 'default', ips: sandboxes[0]?.ip ? [sandboxes[0].ip] : [], sandboxes, containers };
}

// ---- what a row expects -----------------------------------------------------

interface Expected {
  killPod: boolean;
  createSandbox: boolean;
  sandboxId: unknown;
  attempt: number;
  initContainersToStart: number[];
  containersToStart: number[];
  /** Container id → container name. */
  containersToKill: Record<string, string>;
}

/** The answer for a ready sandbox `sb-1` where nothing has to happen; rows override what differs. */
function expected(over: Partial<Expected> = {}): Expected {
  return {
    killPod: false,
    createSandbox: false,
    sandboxId: 'sb-1',
    attempt: 0,
    initContainersToStart: [],
    containersToStart: [],
    containersToKill: {},
    ...over,
  };
}

/** A brand-new sandbox for the pod (the first one, or a replacement). */
function recreate(attempt: number, sandboxId: unknown, over: Partial<Expected> = {}): Expected {
  return expected({ killPod: true, createSandbox: true, attempt, sandboxId, ...over });
}

function summary(actions: PodActions): Expected {
  return {
    killPod: actions.killPod,
    createSandbox: actions.createSandbox,
    sandboxId: actions.sandboxId,
    attempt: actions.attempt,
    initContainersToStart: actions.initContainersToStart,
    containersToStart: actions.containersToStart,
    containersToKill: Object.fromEntries([...actions.containersToKill].map(([id, k]) => [id, k.name])),
  };
}

interface Row {
  name: string;
  pod: Pod;
  status: RuntimePodStatus;
  ctx?: ComputeContext;
  want: Expected;
  /** Checks on the kill entries beyond the container name, by container id. */
  kills?: Record<string, { reason?: string; message?: string | RegExp }>;
}

const failLiveness = (id: string): ComputeContext => ({
  probeFailed: (cid) => (cid === id ? `Container failed liveness probe, will be restarted` : undefined),
  started: () => undefined,
});
/** The startup probe of container `id`: no verdict yet, failed, or succeeded. */
const startup = (id: string, verdict: 'failed' | 'succeeded' | undefined): ComputeContext => ({
  probeFailed: (cid) => (cid === id && verdict === 'failed' ? 'Container proxy failed startup probe' : undefined),
  started: (cid) => (cid === id ? verdict === 'succeeded' : undefined),
});

// ---- the table --------------------------------------------------------------

const sandboxRows: Row[] = [
  {
    name: 'no sandbox yet: create one with attempt 0 and start every container',
    pod: pod({ containers: [app, keeper] }),
    status: runtime([]),
    want: recreate(0, '', { containersToStart: [0, 1] }),
  },
  {
    name: 'no sandbox yet, with init containers: start only the first init container',
    pod: pod({ initContainers: [setup, migrate], containers: [app] }),
    status: runtime([]),
    want: recreate(0, '', { initContainersToStart: [0] }),
  },
  {
    name: 'newest sandbox not ready: kill the pod and recreate it with attempt+1',
    pod: pod({ containers: [app] }),
    status: runtime([sandbox({ state: 'notready', attempt: 2 })], [exited(app, 137)]),
    want: recreate(3, 'sb-1', { containersToStart: [0] }),
  },
  {
    name: 'two ready sandboxes: reconcile by recreating from the newest',
    pod: pod({ containers: [app] }),
    status: runtime([sandbox({ id: 'sb-2', attempt: 1 }), sandbox({ id: 'sb-1', attempt: 0 })], [running(app)]),
    want: recreate(2, 'sb-2', { containersToStart: [0] }),
  },
  {
    name: 'hostNetwork pod in a sandbox with its own network (POD): recreate',
    pod: pod({ hostNetwork: true, containers: [app] }),
    status: runtime([sandbox({ network: 'POD' })], [running(app)]),
    want: recreate(1, expect.any(String), { containersToStart: [0] }),
  },
  {
    name: 'pod-network pod in a host-network sandbox (NODE): recreate',
    pod: pod({ containers: [app] }),
    status: runtime([sandbox({ network: 'NODE' })], [running(app)]),
    want: recreate(1, expect.any(String), { containersToStart: [0] }),
  },
  {
    name: 'hostNetwork pod in a NODE sandbox without an IP: nothing to do',
    pod: pod({ hostNetwork: true, containers: [app] }),
    status: runtime([sandbox({ network: 'NODE', ip: '' })], [running(app)]),
    want: expected(),
  },
  {
    name: 'pod-network sandbox without an IP: recreate',
    pod: pod({ containers: [app] }),
    status: runtime([sandbox({ ip: '' })], [running(app)]),
    want: recreate(1, 'sb-1', { containersToStart: [0] }),
  },
  {
    name: 'restartPolicy Never, sandbox died after the containers ran: kill, no new sandbox',
    pod: pod({ restartPolicy: 'Never', containers: [app] }),
    status: runtime([sandbox({ state: 'notready' })], [exited(app, 0)]),
    want: expected({ killPod: true, attempt: 1 }),
  },
  {
    name: 'restartPolicy Never, sandbox died before any container was created: try again',
    pod: pod({ restartPolicy: 'Never', containers: [app] }),
    status: runtime([sandbox({ state: 'notready' })]),
    want: recreate(1, 'sb-1', { containersToStart: [0] }),
  },
  {
    name: 'restartPolicy OnFailure, every container succeeded and the sandbox is gone: no new sandbox',
    pod: pod({ restartPolicy: 'OnFailure', containers: [app, keeper] }),
    status: runtime([sandbox({ state: 'notready' })], [exited(app, 0), exited(keeper, 0)]),
    want: expected({ killPod: true, attempt: 1 }),
  },
  {
    name: 'restartPolicy OnFailure, sandbox gone, one container failed: recreate and start only that one',
    pod: pod({ restartPolicy: 'OnFailure', containers: [app, keeper] }),
    status: runtime([sandbox({ state: 'notready' })], [exited(app, 0), exited(keeper, 2)]),
    want: recreate(1, 'sb-1', { containersToStart: [1] }),
  },
  {
    name: 'finished OnFailure pod with init containers whose sandbox died: no new sandbox',
    pod: pod({ restartPolicy: 'OnFailure', initContainers: [setup], containers: [app] }),
    status: runtime([sandbox({ state: 'notready' })], [exited(app, 0), exited(setup, 0)]),
    want: expected({ killPod: true, createSandbox: false, attempt: 1 }),
  },
  {
    name: 'hostNetwork changed: a new sandbox, not a replacement of the old id',
    pod: pod({ hostNetwork: true, containers: [app] }),
    status: runtime([sandbox({ network: 'POD' })], [running(app)]),
    want: recreate(1, '', { containersToStart: [0] }),
  },
];

const containerRows: Row[] = [
  {
    name: 'container running with the current spec: nothing to do',
    pod: pod({ containers: [app] }),
    status: runtime([sandbox()], [running(app)]),
    want: expected(),
  },
  {
    name: 'container running with an older spec (hash changed): kill and start again',
    pod: pod({ containers: [container('app', { image: 'busybox:2' })] }),
    status: runtime([sandbox()], [running(app)]),
    want: expected({ containersToStart: [0], containersToKill: { 'app-1': 'app' } }),
    kills: { 'app-1': { reason: '', message: 'Container app definition changed, will be restarted' } },
  },
  {
    name: 'hash changed under restartPolicy Never: still restarted (the spec changed)',
    pod: pod({ restartPolicy: 'Never', containers: [container('app', { args: ['--v=2'] })] }),
    status: runtime([sandbox()], [running(app)]),
    want: expected({ containersToStart: [0], containersToKill: { 'app-1': 'app' } }),
    kills: { 'app-1': { message: /definition changed/ } },
  },
  {
    name: 'a change of resources only keeps the container (resources are not hashed)',
    pod: pod({ containers: [container('app', { resources: { limits: { memory: '64Mi' } } })] }),
    status: runtime([sandbox()], [running(app)]),
    want: expected(),
  },
  ...(
    [
      ['Always', 0, [0]],
      ['Always', 1, [0]],
      ['OnFailure', 0, []],
      ['OnFailure', 1, [0]],
      ['Never', 0, []],
      ['Never', 1, []],
    ] as const
  ).map(([restartPolicy, exitCode, start]): Row => ({
    name: `restartPolicy ${restartPolicy}, container exited ${exitCode}: ${start.length ? 'start it' : 'leave it'}`,
    pod: pod({ restartPolicy, containers: [app, keeper] }),
    status: runtime([sandbox()], [exited(app, exitCode), running(keeper)]),
    want: expected({ containersToStart: [...start] }),
  })),
  {
    name: 'restartPolicy Never, every container exited: kill the pod',
    pod: pod({ restartPolicy: 'Never', containers: [app, keeper] }),
    status: runtime([sandbox()], [exited(app, 0), exited(keeper, 1)]),
    want: expected({ killPod: true }),
  },
  {
    name: 'restartPolicy OnFailure, every container succeeded: kill the pod',
    pod: pod({ restartPolicy: 'OnFailure', containers: [app, keeper] }),
    status: runtime([sandbox()], [exited(app, 0), exited(keeper, 0)]),
    want: expected({ killPod: true }),
  },
  {
    name: 'the newest instance decides: an older exited instance does not matter once it runs again',
    pod: pod({ restartPolicy: 'Never', containers: [app] }),
    status: runtime([sandbox()], [running(app, { id: 'app-2' }), exited(app, 1)]),
    want: expected(),
  },
  {
    name: 'container created but never started: start it',
    pod: pod({ restartPolicy: 'Never', containers: [app, keeper] }),
    status: runtime([sandbox()], [instance(app, 'created'), running(keeper)]),
    want: expected({ containersToStart: [0] }),
  },
  {
    name: 'liveness probe failed on a running container: kill (Unhealthy) and start again',
    pod: pod({ containers: [app, keeper] }),
    status: runtime([sandbox()], [running(app), running(keeper)]),
    ctx: failLiveness('app-1'),
    want: expected({ containersToStart: [0], containersToKill: { 'app-1': 'app' } }),
    kills: { 'app-1': { reason: 'Unhealthy', message: 'Container failed liveness probe, will be restarted' } },
  },
  {
    name: 'a probe failure of another container id does not touch this one',
    pod: pod({ containers: [app] }),
    status: runtime([sandbox()], [running(app)]),
    ctx: failLiveness('someone-else'),
    want: expected(),
  },
  {
    name: 'pod being deleted: exited containers are not restarted, and with none left running the pod is killed',
    pod: pod({ containers: [app] }, '2024-01-02T03:05:00Z'),
    status: runtime([sandbox()], [exited(app, 1)]),
    want: expected({ killPod: true }),
  },
  {
    name: 'pod being deleted: a missing container is not started while another still runs',
    pod: pod({ containers: [app, keeper] }, '2024-01-02T03:05:00Z'),
    status: runtime([sandbox()], [running(keeper)]),
    want: expected(),
  },
  {
    name: 'liveness failed under restartPolicy Never: kill the container, do not start it again',
    pod: pod({ restartPolicy: 'Never', containers: [app, keeper] }),
    status: runtime([sandbox()], [running(app), running(keeper)]),
    ctx: failLiveness('app-1'),
    want: expected({ containersToKill: { 'app-1': 'app' } }),
    kills: { 'app-1': { reason: 'Unhealthy' } },
  },
  {
    name: 'container in unknown state: kill it before starting it again',
    pod: pod({ containers: [app, keeper] }),
    status: runtime([sandbox()], [instance(app, 'unknown'), running(keeper)]),
    want: expected({ containersToStart: [0], containersToKill: { 'app-1': 'app' } }),
    kills: { 'app-1': { reason: 'Unknown', message: /unknown/ } },
  },
];

const initRows: Row[] = [
  {
    name: 'init container running: wait, start nothing else',
    pod: pod({ initContainers: [setup, migrate], containers: [app] }),
    status: runtime([sandbox()], [running(setup)]),
    want: expected(),
  },
  {
    name: 'first init container succeeded, next not started: start the next',
    pod: pod({ initContainers: [setup, migrate], containers: [app] }),
    status: runtime([sandbox()], [exited(setup, 0)]),
    want: expected({ initContainersToStart: [1] }),
  },
  {
    name: 'every init container succeeded: start the regular containers',
    pod: pod({ initContainers: [setup, migrate], containers: [app, keeper] }),
    status: runtime([sandbox()], [exited(migrate, 0), exited(setup, 0)]),
    want: expected({ containersToStart: [0, 1] }),
  },
  {
    name: 'init container failed under restartPolicy Never: kill the pod',
    pod: pod({ restartPolicy: 'Never', initContainers: [setup, migrate], containers: [app] }),
    status: runtime([sandbox()], [exited(setup, 1)]),
    want: expected({ killPod: true }),
  },
  {
    name: 'init container failed under restartPolicy Always: restart that init container',
    pod: pod({ initContainers: [setup, migrate], containers: [app] }),
    status: runtime([sandbox()], [exited(migrate, 1), exited(setup, 0)]),
    want: expected({ initContainersToStart: [1] }),
  },
  {
    name: 'init container failed under restartPolicy OnFailure: restart that init container',
    pod: pod({ restartPolicy: 'OnFailure', initContainers: [setup], containers: [app] }),
    status: runtime([sandbox()], [exited(setup, 3)]),
    want: expected({ initContainersToStart: [0] }),
  },
  {
    name: 'init container in unknown state under restartPolicy Always: kill it and start it again',
    pod: pod({ initContainers: [setup], containers: [app] }),
    status: runtime([sandbox()], [instance(setup, 'unknown')]),
    want: expected({ initContainersToStart: [0], containersToKill: { 'setup-1': 'setup' } }),
  },
  {
    name: 'once a regular container runs, finished init containers are not run again',
    pod: pod({ initContainers: [setup], containers: [app] }),
    status: runtime([sandbox()], [running(app)]),
    want: expected(),
  },
  {
    name: 'sidecar not started yet: start it and wait',
    pod: pod({ initContainers: [proxy], containers: [app] }),
    status: runtime([sandbox()]),
    want: expected({ initContainersToStart: [0] }),
  },
  {
    name: 'sidecar running, next init container not started: start the next while the sidecar runs',
    pod: pod({ initContainers: [proxy, setup], containers: [app] }),
    status: runtime([sandbox()], [running(proxy)]),
    want: expected({ initContainersToStart: [1] }),
  },
  {
    name: 'sidecar running and the last init container: regular containers start',
    pod: pod({ initContainers: [proxy], containers: [app, keeper] }),
    status: runtime([sandbox()], [running(proxy)]),
    want: expected({ containersToStart: [0, 1] }),
  },
  {
    name: 'sidecar exited after the regular containers started: restart it without blocking them',
    pod: pod({ initContainers: [proxy], containers: [app, keeper] }),
    status: runtime([sandbox()], [exited(proxy, 1), running(app), exited(keeper, 1)]),
    want: expected({ initContainersToStart: [0], containersToStart: [1] }),
  },
  {
    name: 'sidecar failed its liveness probe: kill and restart it',
    pod: pod({ initContainers: [proxy], containers: [app] }),
    status: runtime([sandbox()], [running(proxy), running(app)]),
    ctx: failLiveness('proxy-1'),
    want: expected({ initContainersToStart: [0], containersToKill: { 'proxy-1': 'proxy' } }),
    kills: { 'proxy-1': { reason: 'Unhealthy', message: 'Init container proxy failed liveness probe' } },
  },
  {
    name: 'sidecar with a startup probe that has not succeeded yet: wait for it, start nothing after it',
    pod: pod({ initContainers: [slowProxy, setup], containers: [app] }),
    status: runtime([sandbox()], [running(slowProxy)]),
    ctx: startup('proxy-1', undefined),
    want: expected(),
  },
  {
    name: 'sidecar whose startup probe failed: kill and restart it, start nothing after it',
    pod: pod({ initContainers: [slowProxy], containers: [app] }),
    status: runtime([sandbox()], [running(slowProxy)]),
    ctx: startup('proxy-1', 'failed'),
    want: expected({ initContainersToStart: [0], containersToKill: { 'proxy-1': 'proxy' } }),
    kills: { 'proxy-1': { reason: 'Unhealthy', message: 'Init container proxy failed startup probe' } },
  },
  {
    name: 'sidecar whose startup probe succeeded: regular containers start',
    pod: pod({ initContainers: [slowProxy], containers: [app] }),
    status: runtime([sandbox()], [running(slowProxy)]),
    ctx: startup('proxy-1', 'succeeded'),
    want: expected({ containersToStart: [0] }),
  },
  {
    name: 'sidecar restarted after the regular containers started, its startup probe pending: they keep running',
    pod: pod({ initContainers: [slowProxy], containers: [app] }),
    status: runtime([sandbox()], [running(slowProxy, { id: 'proxy-2' }), exited(slowProxy, 137), running(app)]),
    ctx: startup('proxy-2', undefined),
    want: expected(),
  },
  {
    name: 'regular containers done under restartPolicy Never: kill the pod, do not restart the exited sidecar',
    pod: pod({ restartPolicy: 'Never', initContainers: [proxy], containers: [app] }),
    status: runtime([sandbox()], [exited(proxy, 137), exited(app, 0)]),
    want: expected({ killPod: true }),
  },
  {
    name: 'after a sandbox was recreated, an exited app from the old one does not skip a running init container',
    pod: pod({ initContainers: [setup], containers: [app] }),
    status: runtime([sandbox({ id: 'sb-2', attempt: 1 })], [running(setup), exited(app, 1)]),
    want: expected({ sandboxId: 'sb-2', attempt: 1 }),
  },
  {
    name: 'after a sandbox was recreated, an exited app from the old one does not skip a missing init container',
    pod: pod({ initContainers: [setup], containers: [app] }),
    status: runtime([sandbox({ id: 'sb-2', attempt: 1 })], [exited(app, 1)]),
    want: expected({ sandboxId: 'sb-2', attempt: 1, initContainersToStart: [0] }),
  },
  {
    name: 'init container in unknown state under restartPolicy Never: kill the pod',
    pod: pod({ restartPolicy: 'Never', initContainers: [setup], containers: [app] }),
    status: runtime([sandbox()], [instance(setup, 'unknown')]),
    want: expected({ killPod: true, containersToKill: { 'setup-1': 'setup' } }),
  },
  {
    name: 'running sidecar whose definition changed: kill it and start it again',
    pod: pod({ initContainers: [sidecar('proxy')], containers: [app] }),
    status: runtime([sandbox()], [running(proxy, { hash: 'old-hash' }), running(app)]),
    want: expected({ initContainersToStart: [0], containersToKill: { 'proxy-1': 'proxy' } }),
    kills: { 'proxy-1': { message: /definition changed/ } },
  },
];

describe('computePodActions', () => {
  describe.each([
    ['sandbox', sandboxRows],
    ['regular containers', containerRows],
    ['init containers and sidecars', initRows],
  ])('%s', (_group, rows) => {
    it.each(rows.map((row) => [row.name, row] as const))('%s', (_name, { pod: p, status, ctx, want, kills }) => {
      const actions = computePodActions(p, status, ctx);
      expect(summary(actions)).toEqual(want);
      for (const [id, check] of Object.entries(kills ?? {})) {
        const kill = actions.containersToKill.get(id)!;
        if (check.reason !== undefined) expect(kill.reason).toBe(check.reason);
        if (check.message !== undefined) expect(kill.message).toMatch(check.message);
        expect(kill.container?.name).toBe(kill.name);
      }
    });
  });
});

describe('shouldContainerBeRestarted', () => {
  const deleted = '2024-01-02T03:05:00Z';
  const rows: [string, Pod['spec']['restartPolicy'], boolean, ContainerInstance | undefined, string?][] = [
    ['never created', 'Never', true, undefined],
    ['running', 'Always', false, running(app)],
    ['created, not started', 'Never', true, instance(app, 'created')],
    ['unknown state', 'Never', true, instance(app, 'unknown')],
    ['exited 0', 'Always', true, exited(app, 0)],
    ['exited 1', 'Always', true, exited(app, 1)],
    ['exited 0', 'OnFailure', false, exited(app, 0)],
    ['exited 1', 'OnFailure', true, exited(app, 1)],
    ['exited 0', 'Never', false, exited(app, 0)],
    ['exited 1', 'Never', false, exited(app, 1)],
    ['never created, pod being deleted', 'Always', false, undefined, deleted],
    ['exited 1, pod being deleted', 'Always', false, exited(app, 1), deleted],
  ];
  it.each(rows)('%s (restartPolicy %s) → %s', (_name, restartPolicy, want, current, deletionTimestamp) => {
    const p = pod({ restartPolicy, containers: [app] }, deletionTimestamp);
    expect(shouldContainerBeRestarted(app, p, runtime([sandbox()], current ? [current] : []))).toBe(want);
  });

  it('looks only at the newest instance of the container', () => {
    const p = pod({ restartPolicy: 'OnFailure', containers: [app] });
    expect(shouldContainerBeRestarted(app, p, runtime([sandbox()], [exited(app, 0, { id: 'app-2' }), exited(app, 1)]))).toBe(false);
    expect(shouldContainerBeRestarted(app, p, runtime([sandbox()], [exited(app, 1, { id: 'app-2' }), exited(app, 0)]))).toBe(true);
  });
});
