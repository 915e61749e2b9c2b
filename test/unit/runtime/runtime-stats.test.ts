import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ContainerConfig__Output } from '../../../src/cri/gen/runtime/v1/ContainerConfig.js';
import type { PodSandboxConfig__Output } from '../../../src/cri/gen/runtime/v1/PodSandboxConfig.js';
import { EmbeddedRuntime } from '../../../src/runtime/runtime.js';
import { RuntimeState } from '../../../src/runtime/state.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function runtime(): Promise<EmbeddedRuntime> {
  const dir = mkdtempSync(join(tmpdir(), 'knode-rt-stats-'));
  dirs.push(dir);
  const rt = await EmbeddedRuntime.start({ dir, cgroupRoot: join(dir, 'no-cgroups') });
  rt.images.pull('busybox:1.36');
  return rt;
}

function sandbox(rt: EmbeddedRuntime, name: string): Promise<string> {
  const config = {
    metadata: { name, uid: `uid-${name}`, namespace: 'default', attempt: 0 },
    labels: {},
    annotations: {},
    linux: { securityContext: { namespaceOptions: { network: 'NODE', pid: 'CONTAINER' } } },
  };
  return rt.sandboxes.run(config as unknown as PodSandboxConfig__Output, '');
}

function container(rt: EmbeddedRuntime, sandboxId: string, name: string): string {
  const config = {
    metadata: { name, attempt: 0 },
    image: { image: 'busybox:1.36' },
    command: ['sleep', '60'],
    args: [],
    envs: [],
    mounts: [],
    devices: [],
    labels: {},
    annotations: {},
    workingDir: '',
    logPath: '',
  };
  return rt.containers.create(sandboxId, config as unknown as ContainerConfig__Output);
}

describe('embedded runtime: pod sandbox stats', () => {
  it('gives each sandbox the stats of its own containers only', async () => {
    const rt = await runtime();
    const empty = await sandbox(rt, 'empty');
    const one = await sandbox(rt, 'one');
    const two = await sandbox(rt, 'two');
    const a = container(rt, one, 'a');
    const b = container(rt, two, 'b');
    const c = container(rt, two, 'c');
    const byId = new Map(rt.podSandboxStats(null).map((s) => [s.attributes?.id, (s.linux?.containers ?? []).map((x) => x.attributes?.id)]));
    expect(byId).toEqual(
      new Map([
        [empty, []],
        [one, [a]],
        [two, [b, c]],
      ]),
    );
    expect(rt.podSandboxStats({ id: two, labelSelector: {} } as never).map((s) => s.linux?.containers?.length)).toEqual([2]);
  });

  // A thousand sandboxes and containers, each saved to disk: seconds on a busy machine.
  it('looks each container up a bounded number of times, however many sandboxes there are', { timeout: 60_000 }, async () => {
    const rt = await runtime();
    for (let i = 0; i < 1000; i++) container(rt, await sandbox(rt, `p${i}`), 'main');
    const lookups = vi.spyOn(rt.state.containers, 'get');
    const stats = rt.podSandboxStats(null);
    expect(stats).toHaveLength(1000);
    expect(stats.every((s) => s.linux?.containers?.length === 1)).toBe(true);
    // Matching every container against every sandbox was a million lookups here, and seconds a call at 6,000 pods.
    expect(lookups.mock.calls.length).toBeLessThanOrEqual(3 * 1000);
  });
});

describe('embedded runtime state: containers by sandbox', () => {
  it("finds a sandbox's containers after saves, deletes and a reload from disk", async () => {
    const rt = await runtime();
    const one = await sandbox(rt, 'one');
    const two = await sandbox(rt, 'two');
    const a = container(rt, one, 'a');
    const b = container(rt, two, 'b');
    const c = container(rt, two, 'c');
    expect(rt.state.containersOf(two).map((x) => x.id)).toEqual([b, c]);
    rt.state.saveContainer({ ...rt.state.containers.get(b)!, state: 'CONTAINER_EXITED' });
    await rt.state.deleteContainer(c);
    expect(rt.state.containersOf(two).map((x) => x.id)).toEqual([b]);
    const reloaded = new RuntimeState(join(rt.options.dir, 'state'), () => {});
    expect(reloaded.containersOf(one).map((x) => x.id)).toEqual([a]);
    expect(reloaded.containersOf(two).map((x) => x.id)).toEqual([b]);
    expect(reloaded.containersOf('no-such-sandbox')).toEqual([]);
  });
});
