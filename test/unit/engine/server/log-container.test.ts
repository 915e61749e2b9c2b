import { describe, expect, it } from 'vitest';
import type { ContainerStatus, Pod } from '../../../../src/engine/api/v1.js';
import { logInstance } from '../../../../src/engine/server/log-container.js';

const pod = (status: Partial<ContainerStatus>): Pod =>
  ({
    metadata: { name: 'web' },
    spec: { containers: [{ name: 'app' }] },
    status: { containerStatuses: [{ name: 'app', ready: false, restartCount: 0, image: '', imageID: '', ...status }] },
  }) as Pod;
const ended = (id: string) => ({ terminated: { exitCode: 3, containerID: `containerd://${id}` } });

describe("logInstance: the kubelet's pick of the run whose log to read", () => {
  it('reads the running instance, or the last termination with --previous', () => {
    const running = pod({ containerID: 'containerd://c2', state: { running: {} }, lastState: ended('c1') });
    expect(logInstance(running, 'app', false)).toEqual({ containerID: 'containerd://c2' });
    expect(logInstance(running, 'app', true)).toEqual({ containerID: 'containerd://c1' });
  });

  it('reads the run that just ended while the container waits out its back-off, either way', () => {
    const backOff = pod({ state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: ended('c3') });
    expect(logInstance(backOff, 'app', false)).toEqual({ containerID: 'containerd://c3' });
    expect(logInstance(backOff, 'app', true)).toEqual({ containerID: 'containerd://c3' });
  });

  it("says in the kubelet's words why there is no log", () => {
    expect(logInstance(pod({ state: { running: {} }, containerID: 'x://c1' }), 'app', true)).toEqual({
      error: 'previous terminated container "app" in pod "web" not found',
    });
    expect(logInstance(pod({ state: { waiting: { reason: 'ErrImagePull' } } }), 'app', false)).toEqual({
      error: `container "app" in pod "web" is waiting to start: image can't be pulled`,
    });
    expect(logInstance(pod({ state: { waiting: { reason: 'ContainerCreating' } } }), 'app', false)).toEqual({
      error: 'container "app" in pod "web" is waiting to start: ContainerCreating',
    });
    expect(logInstance(pod({ state: { terminated: { exitCode: 0 } } }), 'app', false)).toEqual({
      error: 'container "app" in pod "web" is terminated',
    });
    expect(logInstance(pod({}), 'side', false)).toEqual({ error: 'container "side" in pod "web" is not available' });
  });
});
