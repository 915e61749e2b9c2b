// The runtime manager's container removal: the container deletor and a
// removed pod's cleanup may ask for the same dead container at once, and the
// runtime must be asked once (containerd refuses a second removal of a
// container being removed).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RuntimeManager } from '../../../../src/engine/kuberuntime/runtime-manager.js';
import { FakeRuntimeService } from '../../../helpers/fake-runtime-service.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function setUp() {
  dir = mkdtempSync(join(tmpdir(), 'knode-remove-'));
  const runtime = new FakeRuntimeService();
  runtime.addSandbox({ id: 's1' });
  runtime.addContainer('s1', { id: 'c1', state: 'CONTAINER_EXITED' });
  const manager = RuntimeManager.standalone(runtime, { nodeName: 'n1', rootDir: dir, podLogsDir: join(dir, 'pods') });
  return { runtime, manager };
}

describe('RuntimeManager.removeContainer', () => {
  it('joins a removal of the same container under way instead of asking again', async () => {
    const { runtime, manager } = setUp();
    let release = () => {};
    runtime.beforeCall('removeContainer', () => new Promise<void>((resolve) => (release = resolve)));
    const first = manager.removeContainer('c1');
    const second = manager.removeContainer('c1');
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await Promise.all([first, second]);
    expect(runtime.calls('removeContainer')).toHaveLength(1);
    expect(runtime.containers.has('c1')).toBe(false);
  });

  it('does not ask again for a container it removed, and removes another at once', async () => {
    const { runtime, manager } = setUp();
    runtime.addContainer('s1', { id: 'c2', state: 'CONTAINER_EXITED' });
    await Promise.all([manager.removeContainer('c1'), manager.removeContainer('c2')]);
    await manager.removeContainer('c1');
    expect(runtime.calls('removeContainer').map(([id]) => id)).toEqual(['c1', 'c2']);
    expect(runtime.calls('containerStatus').map(([id]) => id)).toEqual(['c1', 'c2']);
  });

  it('gives each caller the failure of the removal they joined, and the next one asks again', async () => {
    const { runtime, manager } = setUp();
    runtime.injectError('removeContainer', new Error('runtime busy'));
    const both = await Promise.allSettled([manager.removeContainer('c1'), manager.removeContainer('c1')]);
    expect(both.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await manager.removeContainer('c1');
    expect(runtime.calls('removeContainer')).toHaveLength(2);
    expect(runtime.containers.has('c1')).toBe(false);
  });
});
