// Table tests after upstream's kuberuntime_gc_test.go (TestSandboxGC,
// TestContainerGC, TestPodLogDirectoryGC, TestUnknownStateContainerGC), on
// FakeRuntimeService and a fake clock.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KubeletLabels, type ContainerState, type PodSandboxState } from '../../../../src/cri/types.js';
import { ContainerGC, DEFAULT_GC_POLICY, type GCPolicy } from '../../../../src/engine/kuberuntime/container-gc.js';
import { NodeNameLabel } from '../../../../src/engine/kuberuntime/labels.js';
import { FakeClock } from '../../../../src/util/clock.js';
import { FakeRuntimeService, fakeRuntimeManager } from '../../../helpers/fake-runtime-service.js';

const HOUR = 3_600_000;
const MINUTE = 60_000;
let clock: FakeClock;
let runtime: FakeRuntimeService;
let removed: Set<string>;
let terminated: Set<string>;
let logsDir: string;

beforeEach(() => {
  clock = new FakeClock();
  runtime = new FakeRuntimeService(() => clock.now());
  removed = new Set();
  terminated = new Set();
  logsDir = mkdtempSync(join(tmpdir(), 'knode-gc-'));
});
afterEach(() => rmSync(logsDir, { recursive: true, force: true }));

function gc(nodeName = 'node-1'): ContainerGC {
  const manager = fakeRuntimeManager(runtime, clock);
  return new ContainerGC({
    runtime,
    removeContainer: (id) => manager.removeContainer(id),
    podState: { shouldPodContentBeRemoved: (uid) => removed.has(uid), shouldPodRuntimeBeRemoved: (uid) => terminated.has(uid) },
    clock,
    nodeName,
    podLogsDir: logsDir,
  });
}

const labels = (uid: string, name: string, node = 'node-1') => ({
  [NodeNameLabel]: node,
  [KubeletLabels.podUid]: uid,
  [KubeletLabels.podName]: name,
  [KubeletLabels.podNamespace]: 'test-ns',
});

interface ContainerTemplate {
  pod: string;
  container: string;
  attempt: number;
  /** Nanoseconds, as the CRI's. */
  createdAt: number;
  state: ContainerState;
  sandboxAttempt?: number;
  node?: string;
}

/** A dead or running container of pod POD (its UID is its name, as upstream's makeGCContainer). */
const makeGCContainer = (pod: string, container: string, attempt: number, createdAt: number, state: ContainerState): ContainerTemplate => ({
  pod,
  container,
  attempt,
  createdAt,
  state,
});

const containerId = (t: ContainerTemplate) => `${t.pod}-${t.container}-${t.attempt}`;

function addContainers(templates: ContainerTemplate[]): void {
  for (const t of templates) {
    runtime.addContainer(`${t.pod}-sandbox-${t.sandboxAttempt ?? 0}`, {
      id: containerId(t),
      metadata: { name: t.container, attempt: t.attempt },
      state: t.state,
      createdAt: t.createdAt,
      labels: labels(t.pod, t.pod, t.node),
    });
  }
}

const now = () => clock.now() * 1e6;
const EXITED: ContainerState = 'CONTAINER_EXITED';
const RUNNING: ContainerState = 'CONTAINER_RUNNING';

describe('ContainerGC.evictContainers (TestContainerGC)', () => {
  const defaultPolicy: GCPolicy = { minAge: HOUR, maxPerPodContainer: 2, maxContainers: 6 };
  const cases: {
    description: string;
    containers: () => ContainerTemplate[];
    policy?: GCPolicy;
    remain: number[];
    evictTerminatingPods?: boolean;
    allSourcesReady?: boolean;
  }[] = [
    {
      description: 'all containers should be removed when max container limit is 0',
      containers: () => [makeGCContainer('foo', 'bar', 0, 0, EXITED)],
      policy: { minAge: MINUTE, maxPerPodContainer: 1, maxContainers: 0 },
      remain: [],
    },
    {
      description: 'max containers should be complied when no max per pod container limit is set',
      containers: () => [4, 3, 2, 1, 0].map((i) => makeGCContainer('foo', 'bar', i, i, EXITED)),
      policy: { minAge: MINUTE, maxPerPodContainer: -1, maxContainers: 4 },
      remain: [0, 1, 2, 3],
    },
    {
      description: 'no containers should be removed if both max container and per pod container limits are not set',
      containers: () => [2, 1, 0].map((i) => makeGCContainer('foo', 'bar', i, i, EXITED)),
      policy: { minAge: MINUTE, maxPerPodContainer: -1, maxContainers: -1 },
      remain: [0, 1, 2],
    },
    {
      description: 'recently started containers should not be removed',
      containers: () => [2, 1, 0].map((i) => makeGCContainer('foo', 'bar', i, now(), EXITED)),
      remain: [0, 1, 2],
    },
    {
      description: 'oldest containers should be removed when per pod container limit exceeded',
      containers: () => [2, 1, 0].map((i) => makeGCContainer('foo', 'bar', i, i, EXITED)),
      remain: [0, 1],
    },
    {
      description: 'running containers should not be removed',
      containers: () => [
        makeGCContainer('foo', 'bar', 2, 2, EXITED),
        makeGCContainer('foo', 'bar', 1, 1, EXITED),
        makeGCContainer('foo', 'bar', 0, 0, RUNNING),
      ],
      remain: [0, 1, 2],
    },
    {
      description: 'no containers should be removed when limits are not exceeded',
      containers: () => [1, 0].map((i) => makeGCContainer('foo', 'bar', i, i, EXITED)),
      remain: [0, 1],
    },
    {
      description: 'max container count should apply per (UID, container) pair',
      containers: () =>
        [
          ['foo', 'bar'],
          ['foo1', 'baz'],
          ['foo2', 'bar'],
        ].flatMap(([pod, name]) => [2, 1, 0].map((i) => makeGCContainer(pod, name, i, i, EXITED))),
      remain: [0, 1, 3, 4, 6, 7],
    },
    {
      description: 'max limit should apply and try to keep from every pod',
      containers: () => [0, 1, 2, 3, 4].flatMap((p) => [1, 0].map((i) => makeGCContainer(`foo${p || ''}`, `bar${p || ''}`, i, i, EXITED))),
      remain: [0, 2, 4, 6, 8],
    },
    {
      description: 'oldest pods should be removed if limit exceeded',
      containers: () => [
        makeGCContainer('foo', 'bar', 2, 2, EXITED),
        makeGCContainer('foo', 'bar', 1, 1, EXITED),
        makeGCContainer('foo1', 'bar1', 2, 2, EXITED),
        makeGCContainer('foo1', 'bar1', 1, 1, EXITED),
        makeGCContainer('foo2', 'bar2', 1, 1, EXITED),
        makeGCContainer('foo3', 'bar3', 0, 0, EXITED),
        makeGCContainer('foo4', 'bar4', 1, 1, EXITED),
        makeGCContainer('foo5', 'bar5', 0, 0, EXITED),
        makeGCContainer('foo6', 'bar6', 2, 2, EXITED),
        makeGCContainer('foo7', 'bar7', 1, 1, EXITED),
      ],
      remain: [0, 2, 4, 6, 8, 9],
    },
    {
      description: 'all non-running containers should be removed when evictTerminatingPods is set',
      containers: () => [
        makeGCContainer('foo', 'bar', 2, 2, EXITED),
        makeGCContainer('foo', 'bar', 1, 1, EXITED),
        makeGCContainer('foo1', 'bar1', 2, 2, EXITED),
        makeGCContainer('foo1', 'bar1', 1, 1, EXITED),
        makeGCContainer('running', 'bar2', 1, 1, EXITED),
        makeGCContainer('foo3', 'bar3', 0, 0, RUNNING),
      ],
      remain: [4, 5],
      evictTerminatingPods: true,
    },
    {
      description: 'containers for deleted pods should be removed',
      containers: () => [
        makeGCContainer('foo', 'bar', 1, 1, EXITED),
        makeGCContainer('foo', 'bar', 0, 0, EXITED),
        // deleted pods still respect MinAge.
        makeGCContainer('deleted', 'bar1', 2, now(), EXITED),
        makeGCContainer('deleted', 'bar1', 1, 1, EXITED),
        makeGCContainer('deleted', 'bar1', 0, 0, EXITED),
      ],
      remain: [0, 1, 2],
    },
    {
      description: 'containers for deleted pods may not be removed if allSourcesReady is set false',
      containers: () => [makeGCContainer('deleted', 'bar1', 0, 0, EXITED)],
      remain: [0],
      evictTerminatingPods: true,
      allSourcesReady: false,
    },
    {
      description: "another node's containers on a shared runtime are left alone",
      containers: () => [0, 1, 2].map((i) => ({ ...makeGCContainer('deleted', 'bar', i, i, EXITED), node: 'node-2' })),
      policy: { minAge: 0, maxPerPodContainer: 0, maxContainers: 0 },
      remain: [0, 1, 2],
    },
    {
      description: "the kubelet's default policy keeps the newest dead instance of each container",
      containers: () => [
        makeGCContainer('foo', 'bar', 2, now(), EXITED),
        makeGCContainer('foo', 'bar', 1, 1, EXITED),
        makeGCContainer('foo', 'baz', 0, 0, EXITED),
      ],
      policy: DEFAULT_GC_POLICY,
      remain: [0, 2],
    },
  ];

  it.each(cases)('$description', async ({ containers, policy, remain, evictTerminatingPods = false, allSourcesReady = true }) => {
    const templates = containers();
    addContainers(templates);
    for (const t of templates) {
      if (t.pod === 'deleted') removed.add(t.pod);
      if (t.pod !== 'running') terminated.add(t.pod);
    }
    await gc().evictContainers(policy ?? defaultPolicy, allSourcesReady, evictTerminatingPods);
    expect([...runtime.containers.keys()].sort()).toEqual(remain.map((i) => containerId(templates[i])).sort());
  });

  it('stops a container in an unknown state before removing it (TestUnknownStateContainerGC)', async () => {
    addContainers([makeGCContainer('foo', 'bar', 0, 0, 'CONTAINER_UNKNOWN')]);
    await gc().evictContainers({ minAge: HOUR, maxPerPodContainer: 0, maxContainers: 0 }, true, false);
    expect(runtime.called.filter((m) => m === 'stopContainer' || m === 'removeContainer')).toEqual(['stopContainer', 'removeContainer']);
    expect(runtime.containers.size).toBe(0);
  });

  it("removes a container's log files with it, rotated ones too, and no other container's", async () => {
    const dir = join(logsDir, 'test-ns_foo_foo', 'bar');
    mkdirSync(dir, { recursive: true });
    for (const name of ['0.log', '0.log.20260101-000000.gz', '0.log.20260101-000010', '1.log']) writeFileSync(join(dir, name), 'x');
    addContainers([makeGCContainer('foo', 'bar', 1, 2, EXITED), makeGCContainer('foo', 'bar', 0, 1, EXITED)]);
    runtime.containers.get('foo-bar-0')!.status.logPath = join(dir, '0.log');
    runtime.containers.get('foo-bar-1')!.status.logPath = join(dir, '1.log');
    const result = await gc().garbageCollect(DEFAULT_GC_POLICY, true);
    expect(result).toEqual({ containers: 1, sandboxes: 0, logDirectories: 0, failures: [] });
    expect(readdirSync(dir)).toEqual(['1.log']);
  });
});

interface SandboxTemplate {
  pod: string;
  attempt: number;
  state: PodSandboxState;
  running: boolean;
  terminating: boolean;
  createdAt: number;
}

const makeGCSandbox = (
  pod: string,
  attempt: number,
  state: PodSandboxState,
  running: boolean,
  terminating: boolean,
  createdAt: number,
) => ({
  pod,
  attempt,
  state,
  running,
  terminating,
  createdAt,
});
const READY: PodSandboxState = 'SANDBOX_READY';
const NOTREADY: PodSandboxState = 'SANDBOX_NOTREADY';
/** Pods by name, with their UIDs (upstream's foo1, foo2 and deleted). */
const UIDS: Record<string, string> = { foo1: '1234', foo2: '5678', deleted: '9012' };
const sandboxId = (s: { pod: string; attempt: number }) => `${s.pod}-sandbox-${s.attempt}`;

describe('ContainerGC.evictSandboxes (TestSandboxGC)', () => {
  const cases: {
    description: string;
    sandboxes: SandboxTemplate[];
    containers?: ContainerTemplate[];
    remain: number[];
    evictTerminatingPods?: boolean;
  }[] = [
    {
      description: 'notready sandboxes without containers for deleted pods should be garbage collected',
      sandboxes: [makeGCSandbox('deleted', 0, NOTREADY, false, false, 0)],
      remain: [],
    },
    {
      description: 'ready sandboxes without containers for deleted pods should not be garbage collected',
      sandboxes: [makeGCSandbox('deleted', 0, READY, false, false, 0)],
      remain: [0],
    },
    {
      description: 'sandboxes for existing pods should not be garbage collected',
      sandboxes: [makeGCSandbox('foo1', 0, READY, true, false, 0), makeGCSandbox('foo2', 0, NOTREADY, true, false, 0)],
      remain: [0, 1],
    },
    {
      description:
        'older exited sandboxes without containers for existing pods should be garbage collected if there are more than one exited sandboxes',
      sandboxes: [makeGCSandbox('foo1', 1, NOTREADY, true, false, 1), makeGCSandbox('foo1', 0, NOTREADY, true, false, 0)],
      remain: [0],
    },
    {
      description:
        'older exited sandboxes with containers for existing pods should not be garbage collected even if there are more than one exited sandboxes',
      sandboxes: [makeGCSandbox('foo1', 1, NOTREADY, true, false, 1), makeGCSandbox('foo1', 0, NOTREADY, true, false, 0)],
      containers: [{ ...makeGCContainer('foo1', 'bar1', 0, 0, EXITED), sandboxAttempt: 0 }],
      remain: [0, 1],
    },
    {
      description: 'non-running sandboxes for existing pods should be garbage collected if evictTerminatingPods is set',
      sandboxes: [makeGCSandbox('foo1', 0, READY, true, true, 0), makeGCSandbox('foo2', 0, NOTREADY, true, true, 0)],
      remain: [0],
      evictTerminatingPods: true,
    },
    {
      description: 'sandbox with containers should not be garbage collected',
      sandboxes: [makeGCSandbox('foo1', 0, NOTREADY, false, false, 0)],
      containers: [makeGCContainer('foo1', 'bar1', 0, 0, EXITED)],
      remain: [0],
    },
    {
      description: 'multiple sandboxes should be handled properly',
      sandboxes: [
        makeGCSandbox('foo1', 1, READY, true, false, 1),
        makeGCSandbox('foo1', 0, NOTREADY, true, false, 0),
        makeGCSandbox('foo2', 1, NOTREADY, true, false, 1),
        makeGCSandbox('foo2', 0, NOTREADY, true, false, 0),
        makeGCSandbox('deleted', 0, NOTREADY, false, true, 0),
      ],
      containers: [{ ...makeGCContainer('foo2', 'bar3', 0, 0, EXITED), sandboxAttempt: 1 }],
      remain: [0, 2],
    },
  ];

  it.each(cases)('$description', async ({ sandboxes, containers = [], remain, evictTerminatingPods = false }) => {
    for (const s of sandboxes) {
      const uid = UIDS[s.pod];
      runtime.addSandbox({
        id: sandboxId(s),
        metadata: { name: s.pod, uid, namespace: 'new', attempt: s.attempt },
        state: s.state,
        createdAt: s.createdAt,
        labels: labels(uid, s.pod),
      });
      if (!s.running && s.pod === 'deleted') removed.add(uid);
      if (s.terminating) terminated.add(uid);
    }
    addContainers(containers);
    await gc().evictSandboxes(evictTerminatingPods);
    expect([...runtime.sandboxes.keys()].sort()).toEqual(remain.map((i) => sandboxId(sandboxes[i])).sort());
  });
});

describe('ContainerGC.evictPodLogsDirectories (TestPodLogDirectoryGC)', () => {
  it('removes the log directories of pods that are gone, once all sources are ready', async () => {
    const names = ['ns_a_123', 'ns_b_456', 'ns_c_789', 'ns_d_012', 'name_namespace_321', 'name_namespace_654'];
    for (const name of names) mkdirSync(join(logsDir, name, 'app'), { recursive: true });
    for (const uid of ['012', '789', '654']) removed.add(uid);

    await gc().evictPodLogsDirectories(false);
    expect(readdirSync(logsDir).sort()).toEqual([...names].sort());

    await gc().evictPodLogsDirectories(true);
    expect(readdirSync(logsDir).sort()).toEqual(['ns_a_123', 'ns_b_456', 'name_namespace_321'].sort());
  });

  it('leaves what the kubelet does not make there: files (static pod manifests), directories of another shape', async () => {
    writeFileSync(join(logsDir, 'web.yaml'), 'kind: Pod\n');
    writeFileSync(join(logsDir, 'ns_file_789'), '');
    mkdirSync(join(logsDir, '789'));
    mkdirSync(join(logsDir, 'a_b_c_789'));
    removed.add('789');
    removed.add('web.yaml');
    await gc().evictPodLogsDirectories(true);
    expect(readdirSync(logsDir).sort()).toEqual(['789', 'a_b_c_789', 'ns_file_789', 'web.yaml']);
  });

  it('finds nothing to do before any pod has logged', async () => {
    rmSync(logsDir, { recursive: true });
    await gc().evictPodLogsDirectories(true);
    expect(existsSync(logsDir)).toBe(false);
  });
});

describe('ContainerGC.garbageCollect', () => {
  it('tries every step and rejects with what could not be listed', async () => {
    runtime.injectError('listContainers', new Error('ListContainers: UNAVAILABLE: connection refused'));
    mkdirSync(join(logsDir, 'test-ns_gone_uid-gone'));
    removed.add('uid-gone');
    await expect(gc().garbageCollect(DEFAULT_GC_POLICY, true)).rejects.toThrow('ListContainers: UNAVAILABLE: connection refused');
    expect(readdirSync(logsDir)).toEqual([]);
  });
});
