// The kubelet's pruneInitContainersBeforeStart (TestPruneInitContainers in
// kuberuntime_manager_test.go): of each init container only its newest dead
// instance stays; running ones and regular containers are left to the GC.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../../src/engine/api/v1.js';
import type { ContainerInstance } from '../../../../src/engine/container/types.js';
import { initContainersToPrune } from '../../../../src/engine/kuberuntime/container-gc.js';

const pod: Pod = {
  metadata: { uid: 'u1', name: 'web', namespace: 'default' },
  spec: {
    initContainers: [
      { name: 'init1', image: 'busybox' },
      { name: 'init2', image: 'busybox' },
    ],
    containers: [{ name: 'main', image: 'busybox' }],
  },
};

/** An instance as the pod's status lists it: newest first. */
const instance = (id: string, name: string, state: ContainerInstance['state']) => ({ id, name, state }) as ContainerInstance;

describe('initContainersToPrune', () => {
  it('keeps the newest dead instance of each init container', () => {
    const containers = [
      instance('i1-3', 'init1', 'exited'),
      instance('i1-2', 'init1', 'exited'),
      instance('i1-1', 'init1', 'unknown'),
      instance('i2-1', 'init2', 'exited'),
    ];
    expect(initContainersToPrune(pod, containers)).toEqual(['i1-2', 'i1-1']);
  });

  it('leaves running instances and regular containers alone', () => {
    const containers = [
      instance('i1-3', 'init1', 'running'),
      instance('i1-2', 'init1', 'exited'),
      instance('m-2', 'main', 'exited'),
      instance('m-1', 'main', 'exited'),
      instance('old-1', 'renamed', 'exited'),
      instance('old-0', 'renamed', 'exited'),
    ];
    expect(initContainersToPrune(pod, containers)).toEqual([]);
  });
});
