// After upstream's status_manager_test.go (TestTerminatePod_DefaultUnknownStatus,
// TestTerminatePod_EnsurePodPhaseIsTerminal): the status manager's TerminatePod.
import { describe, expect, it } from 'vitest';
import type { ContainerState, ContainerStatus, Pod, PodPhase } from '../../../../src/engine/api/v1.js';
import { EventStream } from '../../../../src/engine/events.js';
import { BasicStatusManager } from '../../../../src/engine/status/status-manager.js';
import { TERMINATED_UNKNOWN, terminatedPodStatus } from '../../../../src/engine/status/terminate.js';
import { FakeClock } from '../../../../src/util/clock.js';

/** W: waiting; R: running; T<n>: terminated with exit n; L<n>: waiting after a run that exited n; -: no state. */
type Spec = string;

function state(spec: Spec): Partial<ContainerStatus> {
  if (spec === 'W') return { state: { waiting: {} } };
  if (spec === 'R') return { state: { running: {} } };
  if (spec === '-') return {};
  const exitCode = Number(spec.slice(1));
  if (spec.startsWith('T')) return { state: { terminated: { exitCode, reason: 'Test' } } };
  return { state: { waiting: {} }, lastState: { terminated: { exitCode, reason: 'Test' } } };
}

function newPod(inits: Spec[], regular: Spec[], phase: PodPhase, annotations?: Record<string, string>): Pod {
  const statuses = (prefix: string, specs: Spec[]) =>
    specs.map(
      (s, i) => ({ name: `${prefix}${i}`, ready: false, restartCount: 0, image: 'busybox', imageID: '', ...state(s) }) as ContainerStatus,
    );
  return {
    metadata: { name: 'web', namespace: 'default', uid: 'uid-1', ...(annotations ? { annotations } : {}) },
    spec: {
      restartPolicy: 'Never',
      initContainers: inits.length ? inits.map((_, i) => ({ name: `init-${i}`, image: 'busybox' })) : undefined,
      containers: regular.map((_, i) => ({ name: `${i}`, image: 'busybox' })),
    },
    status: { phase, initContainerStatuses: inits.length ? statuses('init-', inits) : undefined, containerStatuses: statuses('', regular) },
  };
}

/** U: terminated with an unknown end; the rest as Spec. */
function shape(s: ContainerState | undefined): string {
  if (s?.terminated?.reason === TERMINATED_UNKNOWN.reason) return 'U';
  if (s?.terminated) return `T${s.terminated.exitCode}`;
  if (s?.waiting) return 'W';
  if (s?.running) return 'R';
  return '-';
}

describe('terminatedPodStatus', () => {
  it.each([
    { name: 'a failed pod stays failed', inits: [], regular: ['T2'], phase: 'Failed', want: [[], ['T2']], wantPhase: 'Failed' },
    { name: 'a running pod fails', inits: [], regular: ['R'], phase: 'Running', want: [[], ['U']], wantPhase: 'Failed' },
    { name: 'a pending pod fails', inits: [], regular: ['W'], phase: 'Pending', want: [[], ['U']], wantPhase: 'Failed' },
    { name: 'a succeeded pod stays succeeded', inits: [], regular: ['T0'], phase: 'Succeeded', want: [[], ['T0']], wantPhase: 'Succeeded' },
    { name: 'last termination state set', inits: [], regular: ['L2'], phase: 'Running', want: [[], ['U']], wantPhase: 'Failed' },
    { name: 'no previous state', inits: [], regular: ['W'], phase: 'Running', want: [[], ['U']], wantPhase: 'Failed' },
    {
      name: 'uninitialized pod defaults the first init container',
      inits: ['W'],
      regular: ['W'],
      phase: 'Pending',
      want: [['U'], ['W']],
      wantPhase: 'Failed',
    },
    {
      name: 'uninitialized pod defaults only the first init container',
      inits: ['W', 'W'],
      regular: ['W'],
      phase: 'Pending',
      want: [['U', 'W'], ['W']],
      wantPhase: 'Failed',
    },
    {
      name: 'uninitialized pod defaults gaps',
      inits: ['W', 'W', 'T1', 'W'],
      regular: ['W'],
      phase: 'Pending',
      want: [['U', 'U', 'T1', 'W'], ['W']],
      wantPhase: 'Failed',
    },
    {
      name: 'failed last container is uninitialized',
      inits: ['W', 'W', 'T1'],
      regular: ['W'],
      phase: 'Pending',
      want: [['U', 'U', 'T1'], ['W']],
      wantPhase: 'Failed',
    },
    {
      name: 'successful last container is initialized',
      inits: ['W', 'W', 'T0'],
      regular: ['W'],
      phase: 'Running',
      want: [['U', 'U', 'T0'], ['U']],
      wantPhase: 'Failed',
    },
    {
      name: 'successful last previous container is initialized, its state overwritten',
      inits: ['W', 'W', 'L0'],
      regular: ['W'],
      phase: 'Running',
      want: [['U', 'U', 'U'], ['U']],
      wantPhase: 'Failed',
    },
    {
      name: 'running container proves initialization',
      inits: ['W'],
      regular: ['R'],
      phase: 'Running',
      want: [['U'], ['U']],
      wantPhase: 'Failed',
    },
    {
      name: 'evidence of terminated container proves initialization',
      inits: ['W'],
      regular: ['T0'],
      phase: 'Running',
      want: [['U'], ['T0']],
      wantPhase: 'Failed',
    },
    {
      name: 'evidence of previously terminated container proves initialization',
      inits: ['W'],
      regular: ['-'],
      phase: 'Running',
      want: [['U'], ['U']],
      wantPhase: 'Failed',
    },
  ])('$name', ({ inits, regular, phase, want, wantPhase }) => {
    const pod = newPod(inits, regular, phase as PodPhase);
    const status = terminatedPodStatus(pod, undefined);
    expect([(status.initContainerStatuses ?? []).map((c) => shape(c.state)), status.containerStatuses!.map((c) => shape(c.state))]).toEqual(
      want,
    );
    expect(status.phase).toBe(wantPhase);
    // The pod given is left as it was.
    expect(pod.status!.phase).toBe(phase);
  });

  it('keeps what it does not terminate: the last state, the restart count, the image', () => {
    const pod = newPod([], ['L2'], 'Running');
    pod.status!.containerStatuses![0].restartCount = 3;
    const [c] = terminatedPodStatus(pod, undefined).containerStatuses!;
    expect(c).toMatchObject({
      restartCount: 3,
      image: 'busybox',
      lastState: { terminated: { exitCode: 2 } },
      state: { terminated: TERMINATED_UNKNOWN },
    });
  });

  it("starts from the status manager's status, not the pod's", () => {
    const pod = newPod([], ['R'], 'Running');
    const cached = newPod([], ['T137'], 'Failed').status!;
    const status = terminatedPodStatus(pod, cached);
    expect(status.containerStatuses!.map((c) => shape(c.state))).toEqual(['T137']);
    expect(status.phase).toBe('Failed');
  });

  it("leaves a static pod's phase alone (kubernetes#116484)", () => {
    const pod = newPod([], ['R'], 'Running', { 'kubernetes.io/config.source': 'file' });
    const status = terminatedPodStatus(pod, undefined);
    expect(status.phase).toBe('Running');
    expect(status.containerStatuses!.map((c) => shape(c.state))).toEqual(['U']);
  });
});

describe('BasicStatusManager.terminatePod', () => {
  it('writes the terminated status as a new version and reports the failure', async () => {
    const clock = new FakeClock();
    const events = new EventStream(() => clock.now());
    const seen: string[] = [];
    events.subscribe((e) => seen.push(`${e.type}:${e.type === 'StatusChanged' ? e.detail.version : ''}`));
    const manager = new BasicStatusManager(events);
    const pod = newPod([], ['R'], 'Running');
    manager.setPodStatus(pod, pod.status!);
    await clock.advance(1000);
    manager.terminatePod(pod);
    const status = manager.getPodStatus('uid-1')!;
    expect(status.phase).toBe('Failed');
    expect(status.containerStatuses![0].state).toEqual({ terminated: TERMINATED_UNKNOWN });
    expect(seen.filter((s) => s.startsWith('StatusChanged') || s.startsWith('PodFailed'))).toEqual([
      'StatusChanged:1',
      'StatusChanged:2',
      'PodFailed:',
    ]);
    // Once more changes nothing.
    manager.terminatePod(pod);
    expect(seen.filter((s) => s.startsWith('StatusChanged'))).toHaveLength(2);
  });
});
