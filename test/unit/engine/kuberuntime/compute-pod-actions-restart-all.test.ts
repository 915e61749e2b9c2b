// computePodActions for a restart in place (RestartAllContainersOnContainerExits):
// the rows of upstream's TestComputePodActionsWithRestartAllContainers, in
// knode's form. Marked by the pod's AllContainersRestarting condition, a sync
// removes every instance of every container, the victims first (regular, then
// init), then those that triggered it; it starts nothing.
import { describe, expect, it } from 'vitest';
import type { Container, ContainerRestartRule, Pod, PodSpec } from '../../../../src/engine/api/v1.js';
import type { ContainerInstance, ContainerRuntimeState } from '../../../../src/engine/container/types.js';
import { computePodActions } from '../../../../src/engine/kuberuntime/compute-pod-actions.js';
import { hashContainer } from '../../../../src/engine/kuberuntime/labels.js';
import { containerInstance, webPodRuntime } from '../../../helpers/container-instances.js';

const T0 = Date.UTC(2024, 0, 2, 3, 4, 5);
const all42: ContainerRestartRule = { action: 'RestartAllContainers', exitCodes: { operator: 'In', values: [42] } };
const ctr = (name: string, over: Partial<Container> = {}): Container => ({ name, image: `busybox:${name}`, ...over });

const trigger = ctr('trigger', { restartPolicy: 'Never', restartPolicyRules: [all42] });
const app = ctr('app');
const setup = ctr('setup');
const sidecar = ctr('sidecar', { restartPolicy: 'Always' });

const pod = (spec: Partial<PodSpec> & Pick<PodSpec, 'containers'>): Pod => ({
  metadata: { name: 'web', namespace: 'default', uid: 'uid-1' },
  spec,
});
function instance(spec: Container, state: ContainerRuntimeState, exitCode = 0, n = 1): ContainerInstance {
  return containerInstance(
    spec.name,
    state,
    { started: T0, finished: T0 + 5000 },
    { id: `${spec.name}-${n}`, exitCode, hash: hashContainer(spec) },
  );
}
const runtime = (containers: ContainerInstance[], sandboxReady = true) => webPodRuntime(T0, containers, sandboxReady);

const reset = (id: string, kill = false) => ({ id, kill });

describe('computePodActions for a restart in place', () => {
  it.each([
    {
      name: 'the trigger exited 42, the others ran: regular victims, init victims, then the trigger; the live ones killed',
      pod: pod({ initContainers: [setup, sidecar], containers: [app, trigger] }),
      status: runtime([instance(setup, 'exited'), instance(sidecar, 'running'), instance(app, 'running'), instance(trigger, 'exited', 42)]),
      resets: [reset('app-1', true), reset('setup-1'), reset('sidecar-1', true), reset('trigger-1')],
    },
    {
      name: 'every instance of a container, not only the newest',
      pod: pod({ containers: [app, trigger] }),
      status: runtime([instance(app, 'running', 0, 2), instance(app, 'exited', 1, 1), instance(trigger, 'exited', 42)]),
      resets: [reset('app-2', true), reset('app-1'), reset('trigger-1')],
    },
    {
      name: 'an init container that triggered it goes last, after the regular trigger',
      pod: pod({ initContainers: [ctr('setup', { restartPolicy: 'Never', restartPolicyRules: [all42] })], containers: [app, trigger] }),
      status: runtime([instance(setup, 'exited', 42), instance(app, 'created'), instance(trigger, 'exited', 42)]),
      resets: [reset('app-1', true), reset('trigger-1'), reset('setup-1')],
    },
    {
      name: 'an exit its rule does not match: a victim like the rest',
      pod: pod({ containers: [trigger, app] }),
      status: runtime([instance(trigger, 'exited', 3), instance(app, 'exited', 0)]),
      resets: [reset('trigger-1'), reset('app-1')],
    },
    {
      name: 'nothing left in the runtime: nothing to do, nothing started',
      pod: pod({ initContainers: [setup], containers: [trigger] }),
      status: runtime([]),
      resets: [],
    },
  ])('$name', ({ pod: p, status, resets }) => {
    const actions = computePodActions(p, status, { restartAllContainers: true });
    expect(actions.containersToReset.map((r) => ({ id: r.id, kill: r.kill }))).toEqual(resets);
    expect(actions.containersToReset.every((r) => status.containers.some((c) => c.id === r.id && c.name === r.container.name))).toBe(true);
    expect(actions).toMatchObject({ killPod: false, createSandbox: false, initContainersToStart: [], containersToStart: [] });
    expect(actions.containersToKill.size).toBe(0);
  });

  it('keeps the sandbox; a dead one is still replaced (the kill of the pod wins)', () => {
    const p = pod({ containers: [app, trigger] });
    const dead = runtime([instance(app, 'running'), instance(trigger, 'exited', 42)], false);
    expect(computePodActions(p, dead, { restartAllContainers: true })).toMatchObject({ killPod: true, createSandbox: true });
  });

  it('without the mark, the trigger restarts alone by its rule, and nothing is reset', () => {
    const p = pod({ containers: [app, trigger] });
    const actions = computePodActions(p, runtime([instance(app, 'running'), instance(trigger, 'exited', 42)]));
    expect(actions.containersToReset).toEqual([]);
    expect(actions.containersToStart).toEqual([1]);
  });

  it('after the reset, from an empty runtime: init containers first, in a kept sandbox', () => {
    const p = pod({ initContainers: [setup], containers: [app, trigger] });
    expect(computePodActions(p, runtime([]))).toMatchObject({ createSandbox: false, initContainersToStart: [0], containersToStart: [] });
  });
});
