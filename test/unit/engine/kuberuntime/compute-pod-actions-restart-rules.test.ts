// computePodActions when containers carry their own restartPolicy and
// restartPolicyRules (ContainerRestartRules): the rows of upstream's
// TestComputePodActionsWithContainerRestartRules, and more, in knode's form.
import { describe, expect, it } from 'vitest';
import type { Container, ContainerRestartRule, Pod, PodSpec } from '../../../../src/engine/api/v1.js';
import type { ContainerInstance, ContainerRuntimeState, RuntimePodStatus } from '../../../../src/engine/container/types.js';
import { computePodActions, type ComputeContext } from '../../../../src/engine/kuberuntime/compute-pod-actions.js';
import { hashContainer } from '../../../../src/engine/kuberuntime/labels.js';
import { containerInstance, webPodRuntime } from '../../../helpers/container-instances.js';

const T0 = Date.UTC(2024, 0, 2, 3, 4, 5);
const on42: ContainerRestartRule = { action: 'Restart', exitCodes: { operator: 'In', values: [42] } };
const ctr = (name: string, over: Partial<Container> = {}): Container => ({ name, image: `busybox:${name}`, ...over });

const app = ctr('app');
const never = ctr('once', { restartPolicy: 'Never' });
const never42 = ctr('once', { restartPolicy: 'Never', restartPolicyRules: [on42] });
const onFailure = ctr('once', { restartPolicy: 'OnFailure' });
const always = ctr('once', { restartPolicy: 'Always' });

const pod = (spec: Partial<PodSpec> & Pick<PodSpec, 'containers'>): Pod => ({
  metadata: { name: 'web', namespace: 'default', uid: 'uid-1' },
  spec,
});
function instance(spec: Container, state: ContainerRuntimeState, exitCode = 0): ContainerInstance {
  return containerInstance(spec.name, state, { started: T0, finished: T0 + 5000 }, { exitCode, hash: hashContainer(spec) });
}
const running = (spec: Container) => instance(spec, 'running');
const exited = (spec: Container, exitCode: number) => instance(spec, 'exited', exitCode);
const runtime = (containers: ContainerInstance[], sandboxReady = true) => webPodRuntime(T0, containers, sandboxReady);
const failLiveness: ComputeContext = { probeFailed: (id) => (id === 'once-1' ? 'Container once failed liveness probe' : undefined) };

interface Row {
  name: string;
  pod: Pod;
  status: RuntimePodStatus;
  ctx?: ComputeContext;
  want: { killPod?: boolean; createSandbox?: boolean; initContainersToStart?: number[]; containersToStart?: number[]; killed?: string[] };
}

const rows: Row[] = [
  // Regular containers: its own policy and rules win over the pod's.
  {
    name: 'container Never under pod Always exited 1, another running: not started again',
    pod: pod({ restartPolicy: 'Always', containers: [never, app] }),
    status: runtime([exited(never, 1), running(app)]),
    want: {},
  },
  {
    name: 'container Never under pod Always, the only one, exited: kill the pod',
    pod: pod({ restartPolicy: 'Always', containers: [never] }),
    status: runtime([exited(never, 1)]),
    want: { killPod: true },
  },
  {
    name: 'a rule In [42] matches exit 42: started again',
    pod: pod({ restartPolicy: 'Always', containers: [never42, app] }),
    status: runtime([exited(never42, 42), running(app)]),
    want: { containersToStart: [0] },
  },
  {
    name: 'a rule In [42] does not match exit 1: the container policy Never',
    pod: pod({ restartPolicy: 'Always', containers: [never42, app] }),
    status: runtime([exited(never42, 1), running(app)]),
    want: {},
  },
  {
    name: 'a rule restarts under pod Never too',
    pod: pod({ restartPolicy: 'Never', containers: [never42] }),
    status: runtime([exited(never42, 42)]),
    want: { containersToStart: [0] },
  },
  {
    name: 'container OnFailure under pod Never exited 1: started again',
    pod: pod({ restartPolicy: 'Never', containers: [onFailure] }),
    status: runtime([exited(onFailure, 1)]),
    want: { containersToStart: [0] },
  },
  {
    name: 'container OnFailure under pod Always exited 0: done',
    pod: pod({ restartPolicy: 'Always', containers: [onFailure] }),
    status: runtime([exited(onFailure, 0)]),
    want: { killPod: true },
  },
  {
    name: 'container Always under pod Never exited 0: started again',
    pod: pod({ restartPolicy: 'Never', containers: [always] }),
    status: runtime([exited(always, 0)]),
    want: { containersToStart: [0] },
  },
  // A running container that fails its liveness probe: its policy without the rules (no exit code yet).
  {
    name: 'liveness failed, container Never under pod Always: killed, not started again',
    pod: pod({ restartPolicy: 'Always', containers: [never42, app] }),
    status: runtime([running(never42), running(app)]),
    ctx: failLiveness,
    want: { killed: ['once-1'] },
  },
  {
    name: 'liveness failed, container Always under pod Never: killed and started again',
    pod: pod({ restartPolicy: 'Never', containers: [always, app] }),
    status: runtime([running(always), running(app)]),
    ctx: failLiveness,
    want: { containersToStart: [0], killed: ['once-1'] },
  },
  // A new sandbox: containers whose own OnFailure is satisfied are not started again.
  {
    name: 'sandbox gone under pod Always: the container OnFailure that succeeded stays done',
    pod: pod({ restartPolicy: 'Always', containers: [onFailure, app] }),
    status: runtime([exited(onFailure, 0), exited(app, 1)], false),
    want: { killPod: true, createSandbox: true, containersToStart: [1] },
  },
  {
    name: 'sandbox gone under pod OnFailure: a container Always that succeeded starts again',
    pod: pod({ restartPolicy: 'OnFailure', containers: [always, app] }),
    status: runtime([exited(always, 0), exited(app, 1)], false),
    want: { killPod: true, createSandbox: true, containersToStart: [0, 1] },
  },
  // Init containers.
  {
    name: 'init container Never under pod Always failed: kill the pod',
    pod: pod({ restartPolicy: 'Always', initContainers: [never], containers: [app] }),
    status: runtime([exited(never, 1)]),
    want: { killPod: true },
  },
  {
    name: 'init container OnFailure under pod Never failed: started again',
    pod: pod({ restartPolicy: 'Never', initContainers: [onFailure], containers: [app] }),
    status: runtime([exited(onFailure, 1)]),
    want: { initContainersToStart: [0] },
  },
  {
    name: 'init container Never with a rule In [42] under pod Never, exit 42: started again',
    pod: pod({ restartPolicy: 'Never', initContainers: [never42], containers: [app] }),
    status: runtime([exited(never42, 42)]),
    want: { initContainersToStart: [0] },
  },
  {
    name: 'init container Never with a rule In [42], exit 3: kill the pod',
    pod: pod({ restartPolicy: 'Always', initContainers: [never42], containers: [app] }),
    status: runtime([exited(never42, 3)]),
    want: { killPod: true },
  },
  {
    name: 'init container OnFailure in unknown state under pod Never: killed and started again',
    pod: pod({ restartPolicy: 'Never', initContainers: [onFailure], containers: [app] }),
    status: runtime([instance(onFailure, 'unknown')]),
    want: { initContainersToStart: [0], killed: ['once-1'] },
  },
  {
    name: 'init container Never in unknown state under pod Always: kill the pod',
    pod: pod({ restartPolicy: 'Always', initContainers: [never], containers: [app] }),
    status: runtime([instance(never, 'unknown')]),
    want: { killPod: true, killed: ['once-1'] },
  },
];

describe('computePodActions with container restart policies and rules', () => {
  it.each(rows.map((row) => [row.name, row] as const))('%s', (_name, { pod: p, status, ctx, want }) => {
    const actions = computePodActions(p, status, ctx);
    expect({
      killPod: actions.killPod,
      createSandbox: actions.createSandbox,
      initContainersToStart: actions.initContainersToStart,
      containersToStart: actions.containersToStart,
      killed: [...actions.containersToKill.keys()],
    }).toEqual({ killPod: false, createSandbox: false, initContainersToStart: [], containersToStart: [], killed: [], ...want });
  });
});
