// Table tests after upstream's pod_container_deletor_test.go (TestGetContainersToDeleteInPodWithFilter,
// TestGetContainersToDeleteInPod, TestGetContainersToDeleteInPodWithNoMatch), and the deletor's queue.
import { describe, expect, it } from 'vitest';
import type { ContainerInstance, RuntimePodStatus } from '../../../../src/engine/container/types.js';
import { emptyPodStatus } from '../../../../src/engine/container/types.js';
import {
  CONTAINER_DELETOR_BUFFER_LIMIT,
  ContainerDeletor,
  containersToDeleteInPod,
} from '../../../../src/engine/kuberuntime/container-deletor.js';
import { containerInstance } from '../../../helpers/container-instances.js';

/** Container ID named NAME, made at CREATED_AT (only its state and age matter to the deletor). */
const instance = (id: string, name: string, createdAt: number, state: ContainerInstance['state']): ContainerInstance =>
  containerInstance(name, state, { started: createdAt + 500, finished: createdAt + 1000 }, { id, createdAt });

/** Upstream's pod: foo (1) and bar (2, 3, 4) exited, one second apart; bar (5) running. */
function pod(): RuntimePodStatus {
  return {
    ...emptyPodStatus('uid-1', 'p', 'default'),
    containers: [
      instance('1', 'foo', 0, 'exited'),
      instance('2', 'bar', 1000, 'exited'),
      instance('3', 'bar', 2000, 'exited'),
      instance('4', 'bar', 3000, 'exited'),
      instance('5', 'bar', 4000, 'running'),
    ],
  };
}

const ids = (list: ContainerInstance[]) => list.map((c) => c.id);

describe('containersToDeleteInPod', () => {
  it.each([
    { filter: '4', keep: 0, want: ['4', '3', '2'] },
    { filter: '4', keep: 1, want: ['3', '2'] },
    { filter: '4', keep: 2, want: ['2'] },
    { filter: '', keep: 0, want: ['4', '3', '2', '1'] },
    { filter: '', keep: 1, want: ['3', '2', '1'] },
    { filter: '', keep: 2, want: ['2', '1'] },
    { filter: 'abc', keep: 0, want: [] },
    { filter: 'abc', keep: 1, want: [] },
    { filter: '4', keep: 3, want: [] },
  ])('filter "$filter", keeping $keep: $want', ({ filter, keep, want }) => {
    expect(ids(containersToDeleteInPod(filter, pod(), keep))).toEqual(want);
  });

  it('leaves the status it is given in its order', () => {
    const status = pod();
    containersToDeleteInPod('', status, 0);
    expect(ids(status.containers)).toEqual(['1', '2', '3', '4', '5']);
  });
});

describe('ContainerDeletor', () => {
  it('removes the dead instances beyond the kept ones of the container that died', async () => {
    const removed: string[] = [];
    const deletor = new ContainerDeletor({ removeContainer: async (id) => void removed.push(id) }, 1);
    deletor.deleteContainersInPod('4', pod(), false);
    await deletor.idle();
    expect(removed).toEqual(['3', '2']);
  });

  it('removes every dead container of the pod when its content may go, whatever died', async () => {
    const removed: string[] = [];
    const deletor = new ContainerDeletor({ removeContainer: async (id) => void removed.push(id) }, 1);
    deletor.deleteContainersInPod('abc', pod(), true);
    await deletor.idle();
    expect(removed).toEqual(['4', '3', '2', '1']);
  });

  it('reports a failed removal and goes on with the next', async () => {
    const removed: string[] = [];
    const failed: string[] = [];
    const deletor = new ContainerDeletor(
      {
        removeContainer: async (id) => {
          if (id === '3') throw new Error('container is in use');
          removed.push(id);
        },
        onError: (id, err) => failed.push(`${id}: ${err.message}`),
      },
      1,
    );
    expect(() => deletor.deleteContainersInPod('', pod(), true)).not.toThrow();
    await deletor.idle();
    expect(removed).toEqual(['4', '2', '1']);
    expect(failed).toEqual(['3: container is in use']);
  });

  /** A deletor whose removals wait until released, with what it removed and dropped. */
  function gatedDeletor(keep: number) {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const removed: string[] = [];
    const dropped: string[] = [];
    const deletor = new ContainerDeletor(
      {
        removeContainer: async (id) => {
          await gate;
          removed.push(id);
        },
        onDropped: (id) => dropped.push(id),
      },
      keep,
    );
    return { deletor, removed, dropped, release };
  }

  it('queues a container waiting to be removed once, however many deaths of its pod name it', async () => {
    const { deletor, removed, dropped, release } = gatedDeletor(1);
    // The sandbox's death and each container's, of a pod whose content goes: each names all four.
    for (let i = 0; i < CONTAINER_DELETOR_BUFFER_LIMIT; i++) deletor.deleteContainersInPod('', pod(), true);
    release();
    await deletor.idle();
    expect(removed).toEqual(['4', '3', '2', '1']);
    expect(dropped).toEqual([]);
    // Removed, it may be named again (a runtime that failed to remove it is asked once more).
    deletor.deleteContainersInPod('', pod(), true);
    await deletor.idle();
    expect(removed).toEqual(['4', '3', '2', '1', '4', '3', '2', '1']);
  });

  it('drops removals beyond its buffer while one is under way', async () => {
    const { deletor, removed, dropped, release } = gatedDeletor(0);
    const many: RuntimePodStatus = {
      ...emptyPodStatus('uid-2'),
      containers: Array.from({ length: CONTAINER_DELETOR_BUFFER_LIMIT + 3 }, (_, i) => instance(`c${i}`, `n${i}`, i, 'exited')),
    };
    deletor.deleteContainersInPod('', many, true);
    release();
    await deletor.idle();
    expect(removed).toHaveLength(CONTAINER_DELETOR_BUFFER_LIMIT);
    expect(dropped).toHaveLength(3);
  });
});
