import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ImageService, RuntimeService } from '../../../../src/cri/runtime-service.js';
import type { Pod } from '../../../../src/engine/api/v1.js';
import { emptyPodStatus } from '../../../../src/engine/container/types.js';
import { EventStream } from '../../../../src/engine/events.js';
import { RuntimeManager } from '../../../../src/engine/kuberuntime/runtime-manager.js';
import { FakeRuntimeService, type FakeMethod } from '../../../helpers/fake-runtime-service.js';

const pod: Pod = {
  metadata: { uid: 'u1', name: 'web', namespace: 'default' },
  spec: { containers: [{ name: 'main', image: 'busybox:1.36', imagePullPolicy: 'IfNotPresent' }] },
};

/** The fake runtime, holding the pod's image; `during[method]` runs as that call begins. */
function recordingRuntime(during: { [M in FakeMethod]?: () => void } = {}) {
  const runtime = new FakeRuntimeService();
  runtime.addImage('busybox:1.36');
  for (const method of Object.keys(during) as FakeMethod[]) runtime.beforeCall(method, during[method]);
  return { runtime, calls: runtime.called };
}

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function manager(runtime: RuntimeService & ImageService): RuntimeManager {
  dir = mkdtempSync(join(tmpdir(), 'knode-abort-'));
  return RuntimeManager.standalone(runtime, { nodeName: 'n1', rootDir: dir, podLogsDir: join(dir, 'pods') });
}

describe('SyncPod when the pod is killed during it', () => {
  it('creates nothing when the kill came before it began', async () => {
    const { runtime, calls } = recordingRuntime();
    const killed = new AbortController();
    killed.abort();
    await manager(runtime).syncPod(pod, emptyPodStatus('u1', 'web', 'default'), {}, new Map(), killed.signal);
    expect(calls).toEqual([]);
  });

  it('starts no container once the kill came while the sandbox was made', async () => {
    const killed = new AbortController();
    const { runtime, calls } = recordingRuntime({ runPodSandbox: () => killed.abort() });
    const result = await manager(runtime).syncPod(pod, emptyPodStatus('u1', 'web', 'default'), {}, new Map(), killed.signal);
    expect(calls).toEqual(['runPodSandbox', 'podSandboxStatus']);
    expect(result.results.map((r) => r.action)).toEqual(['CreatePodSandbox']);
  });

  it('does not start a container it created when the kill came meanwhile, and calls that no failure', async () => {
    const killed = new AbortController();
    const { runtime, calls } = recordingRuntime({ createContainer: () => killed.abort() });
    const result = await manager(runtime).syncPod(pod, emptyPodStatus('u1', 'web', 'default'), {}, new Map(), killed.signal);
    expect(calls).toContain('createContainer');
    expect(calls).not.toContain('startContainer');
    expect(result.results.map((r) => r.action)).toEqual(['CreatePodSandbox']);
    expect(result.error()).toBeUndefined();
  });

  it('cancels a StartContainer under way when the kill comes, and calls that no failure', async () => {
    const killed = new AbortController();
    let startSignal: AbortSignal | undefined;
    const { runtime } = recordingRuntime();
    runtime.respond('startContainer', (_id, signal) => {
      // As a client whose call the runtime had not answered: it fails once the call is cancelled.
      startSignal = signal;
      killed.abort();
      if (startSignal?.aborted) throw new Error('StartContainer: CANCELLED: Cancelled on client');
    });
    const events: string[] = [];
    const stream = new EventStream(() => 0);
    stream.subscribe((e) => events.push(e.type));
    dir = mkdtempSync(join(tmpdir(), 'knode-abort-'));
    const m = RuntimeManager.standalone(runtime, { nodeName: 'n1', rootDir: dir, podLogsDir: join(dir, 'pods') }, stream);
    const result = await m.syncPod(pod, emptyPodStatus('u1', 'web', 'default'), {}, new Map(), killed.signal);
    expect(startSignal).toBe(killed.signal);
    expect(result.error()).toBeUndefined();
    expect(events).not.toContain('ContainerFailed');
  });

  it('makes the sandbox and starts the container when nothing is killed', async () => {
    const { runtime, calls } = recordingRuntime();
    await manager(runtime).syncPod(pod, emptyPodStatus('u1', 'web', 'default'), {}, new Map(), new AbortController().signal);
    expect(calls).toContain('createContainer');
    expect(calls).toContain('startContainer');
  });
});
