import { describe, expect, it } from 'vitest';
import type { ImageService, RuntimeService } from '../../../src/cri/runtime-service.js';
import { instrumentRuntime, operationType } from '../../../src/engine/metrics.js';

type Runtime = RuntimeService & ImageService;

describe('instrumentRuntime', () => {
  it('reports each call by its CRI name, failed or not, through one wrapper per method', async () => {
    const seen: [string, boolean][] = [];
    const target = {
      listPodSandbox: () => Promise.resolve([]),
      removePodSandbox: () => Promise.reject(new Error('gone')),
      version: 'not a method',
    };
    const rt = instrumentRuntime(target as unknown as Runtime, (method, ms, failed) => {
      expect(ms).toBeGreaterThanOrEqual(0);
      seen.push([method, failed]);
    });
    await rt.listPodSandbox();
    await expect(rt.removePodSandbox('x')).rejects.toThrow('gone');
    expect(seen).toEqual([
      ['ListPodSandbox', false],
      ['RemovePodSandbox', true],
    ]);
    expect(rt.listPodSandbox).toBe(rt.listPodSandbox);
    expect((rt as unknown as typeof target).version).toBe('not a method');
  });

  it('times a method put in place of another, not the one it replaced', async () => {
    const seen: string[] = [];
    const target = { listContainers: () => Promise.resolve(['old']) };
    const rt = instrumentRuntime(target as unknown as Runtime, (method) => void seen.push(method));
    const before = rt.listContainers;
    target.listContainers = () => Promise.resolve(['new']);
    expect(rt.listContainers).not.toBe(before);
    expect(await rt.listContainers()).toEqual(['new']);
    expect(seen).toEqual(['ListContainers']);
  });
});

describe('operationType', () => {
  it('labels CRI methods as the kubelet does, the same each time', () => {
    expect(operationType('RunPodSandbox')).toBe('run_podsandbox');
    expect(operationType('PodSandboxStatus')).toBe('podsandbox_status');
    expect(operationType('ListContainers')).toBe('list_containers');
    expect(operationType('RunPodSandbox')).toBe('run_podsandbox');
  });
});
