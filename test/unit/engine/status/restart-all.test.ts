// The status of a pod restarted in place (RestartAllContainersOnContainerExits),
// sync by sync as the kubelet's generateAPIPodStatus shows it: the trigger's
// exit sets AllContainersRestarting; once the runtime holds none of the pod's
// containers the condition is False and each removed container waits
// (RestartingAllContainers) with a 137 last state and one restart more; the
// pod stays Running and Initialized while its init containers run again.
import { describe, expect, it } from 'vitest';
import { containerInstance } from '../../../helpers/container-instances.js';
import type { Container, ContainerStatus, Pod, PodStatus } from '../../../../src/engine/api/v1.js';
import type { ContainerInstance, RuntimePodStatus } from '../../../../src/engine/container/types.js';
import { generateAPIPodStatus } from '../../../../src/engine/status/generate.js';
import { getPhase } from '../../../../src/engine/status/phase.js';
import { ReasonCache } from '../../../../src/engine/status/reason-cache.js';
import { shouldAllContainersRestart } from '../../../../src/engine/status/restart-all.js';

const NOW = Date.UTC(2024, 0, 2, 3, 4, 5);
const STARTED = Date.UTC(2024, 0, 2, 3, 0, 0);
const FINISHED = Date.UTC(2024, 0, 2, 3, 1, 30);
const REMOVED = 'The container is removed because RestartAllContainers in place';

const c = (name: string, extra: Partial<Container> = {}): Container => ({ name, image: 'busybox:1.36', ...extra });
const trigger = c('trigger', {
  restartPolicy: 'Never',
  restartPolicyRules: [{ action: 'RestartAllContainers', exitCodes: { operator: 'In', values: [42] } }],
});
const spec = { restartPolicy: 'Never' as const, initContainers: [c('setup')], containers: [c('app'), trigger] };
const pod: Pod = { metadata: { name: 'web', namespace: 'default', uid: 'uid-1' }, spec };

const instance = (name: string, state: 'running' | 'exited', over: Partial<ContainerInstance> = {}) =>
  containerInstance(name, state, { started: STARTED, finished: FINISHED }, over);
function runtime(...containers: ContainerInstance[]): RuntimePodStatus {
  const sandbox = { id: 'sb-1', state: 'ready' as const, createdAt: STARTED - 1000, attempt: 0, ip: '10.88.0.5', network: 'POD' as const };
  return { uid: 'uid-1', name: 'web', namespace: 'default', ips: ['10.88.0.5'], sandboxes: [sandbox], containers };
}
const status = (rt: RuntimePodStatus, oldStatus?: PodStatus, p: Pod = pod) =>
  generateAPIPodStatus(p, rt, {
    now: NOW,
    hostIP: '10.0.0.1',
    runtimeName: 'containerd',
    reasons: new ReasonCache(),
    oldStatus,
    podIsTerminal: false,
  });
const condition = (s: PodStatus, type: string) => s.conditions?.find((x) => x.type === type);
const of = (s: PodStatus, name: string): ContainerStatus =>
  [...(s.initContainerStatuses ?? []), ...(s.containerStatuses ?? [])].find((x) => x.name === name)!;

/** Running, the init container done: the pod before the trigger's exit. */
const before = status(runtime(instance('setup', 'exited'), instance('app', 'running'), instance('trigger', 'running')));
/** The trigger exited 42. */
const triggered = status(
  runtime(instance('setup', 'exited'), instance('app', 'running'), instance('trigger', 'exited', { exitCode: 42 })),
  before,
);
/** Every container removed, the sandbox kept. */
const cleaned = status(runtime(), triggered);
/** The init container runs again, its restart count from its logs. */
const rerun = status(runtime(instance('setup', 'running', { id: 'setup-2', restartCount: 1 })), cleaned);

describe('the status of a pod restarted in place', () => {
  it('before: the condition False, no reason', () => {
    expect(condition(before, 'AllContainersRestarting')).toMatchObject({ status: 'False' });
    expect(condition(before, 'AllContainersRestarting')).not.toHaveProperty('reason');
  });

  it('the trigger exited with its code: AllContainersRestarting True, the pod still Running', () => {
    expect(condition(triggered, 'AllContainersRestarting')).toMatchObject({
      status: 'True',
      reason: 'RestartAllContainersStarted',
      message: 'container exited with restart policy rule',
    });
    expect(triggered.phase).toBe('Running');
    expect(of(triggered, 'trigger').state?.terminated?.exitCode).toBe(42);
  });

  it('every container removed: the condition False, each waits with a 137 last state and one restart more', () => {
    expect(condition(cleaned, 'AllContainersRestarting')).toMatchObject({ status: 'False' });
    expect(condition(cleaned, 'AllContainersRestarting')).not.toHaveProperty('reason');
    for (const name of ['setup', 'app', 'trigger']) {
      expect(of(cleaned, name), name).toMatchObject({
        state: { waiting: { reason: 'RestartingAllContainers', message: REMOVED } },
        lastState: { terminated: { exitCode: 137, reason: 'RestartingAllContainers', message: REMOVED } },
        restartCount: 1,
      });
    }
    // A terminated one keeps the rest of its old status (its container id), as the kubelet copies it.
    expect(of(cleaned, 'trigger').containerID).toBe('containerd://trigger-1');
    expect(cleaned.phase).toBe('Running');
    expect(condition(cleaned, 'Initialized')).toMatchObject({ status: 'True' });
  });

  it('the init container again: running, its restart count kept, its last state the restart; the others still waiting', () => {
    expect(of(rerun, 'setup')).toMatchObject({
      state: { running: {} },
      lastState: { terminated: { exitCode: 137, reason: 'RestartingAllContainers' } },
      restartCount: 1,
    });
    expect(of(rerun, 'app')).toMatchObject({
      state: { waiting: { reason: 'PodInitializing' } },
      lastState: { terminated: { reason: 'RestartingAllContainers' } },
      restartCount: 1,
    });
    expect(rerun.phase).toBe('Running');
    expect(condition(rerun, 'Initialized')).toMatchObject({ status: 'True' });
    expect(condition(rerun, 'AllContainersRestarting')).toMatchObject({ status: 'False' });
    expect(shouldAllContainersRestart(pod, runtime(), rerun)).toBe(false);
  });

  it('a terminal phase gives its reason; a pod without the action has no condition', () => {
    const done = generateAPIPodStatus(pod, runtime(instance('setup', 'exited'), instance('app', 'exited'), instance('trigger', 'exited')), {
      now: NOW,
      hostIP: '10.0.0.1',
      runtimeName: 'containerd',
      reasons: new ReasonCache(),
      podIsTerminal: true,
    });
    expect(done.phase).toBe('Succeeded');
    expect(condition(done, 'AllContainersRestarting')).toMatchObject({ status: 'False', reason: 'PodCompleted' });
    const plain: Pod = { ...pod, spec: { ...spec, containers: [c('app')] } };
    expect(condition(status(runtime(instance('app', 'running')), undefined, plain), 'AllContainersRestarting')).toBeUndefined();
  });

  it('phase: a container removed for the restart counts as restarting, even under its own Never', () => {
    const waiting = (name: string): ContainerStatus => ({
      name,
      state: { waiting: { reason: 'RestartingAllContainers' } },
      lastState: { terminated: { exitCode: 137, reason: 'RestartingAllContainers' } },
      ready: false,
      restartCount: 1,
      image: 'busybox:1.36',
      imageID: '',
    });
    expect(getPhase(pod, [waiting('setup'), waiting('app'), waiting('trigger')], false)).toBe('Running');
    const failed = { ...waiting('setup'), lastState: { terminated: { exitCode: 137, reason: 'Error' } } };
    expect(getPhase(pod, [failed, waiting('app'), waiting('trigger')], false)).toBe('Failed');
  });
});
