import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { kubeletConfigFromFlags } from '../../../../src/cli/kubelet-flags.js';
import { readKubeletConfigFile, toKubeletConfigurationDocument } from '../../../../src/engine/config/config-file.js';
import { formatGoDuration } from '../../../../src/engine/config/duration.js';
import { defaultKubeletConfiguration } from '../../../../src/engine/config/kubelet-config.js';

const dir = mkdtempSync(join(tmpdir(), 'knode-config-'));
let n = 0;
function file(text: string, ext = 'yaml'): string {
  const path = join(dir, `${n++}.${ext}`);
  writeFileSync(path, text);
  return path;
}
const HEAD = 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n';

describe('readKubeletConfigFile', () => {
  it('reads the fields knode implements, durations in Go syntax', () => {
    const path = file(
      `${HEAD}staticPodPath: /etc/pods\nstaticPodURL: http://x/pods\nstaticPodURLHeader:\n  Authorization: ["Bearer t"]\nsyncFrequency: 1m30s\nfileCheckFrequency: 5s\nhttpCheckFrequency: 500ms\nmaxPods: 42\naddress: 127.0.0.2\nreadOnlyPort: 0\ncontainerRuntimeEndpoint: unix:///run/containerd/containerd.sock\nruntimeRequestTimeout: 3m\n`,
    );
    expect(readKubeletConfigFile(path)).toEqual({
      values: {
        staticPodPath: '/etc/pods',
        staticPodURL: 'http://x/pods',
        staticPodURLHeader: { Authorization: ['Bearer t'] },
        syncFrequency: 90_000,
        fileCheckFrequency: 5_000,
        httpCheckFrequency: 500,
        maxPods: 42,
        address: '127.0.0.2',
        readOnlyPort: 0,
        containerRuntimeEndpoint: 'unix:///run/containerd/containerd.sock',
        runtimeRequestTimeout: 180_000,
      },
      warnings: [],
    });
  });

  it('reads the handler switches as booleans, and refuses anything else there', () => {
    expect(readKubeletConfigFile(file(`${HEAD}enableProfilingHandler: true\nenableSystemLogHandler: false\n`)).values).toEqual({
      enableProfilingHandler: true,
      enableSystemLogHandler: false,
    });
    const path = file(`${HEAD}enableProfilingHandler: "yes"\n`);
    expect(() => readKubeletConfigFile(path)).toThrow(`${path}:3: enableProfilingHandler: expected true or false, got "yes"`);
  });

  it('reads seccompDefault, and --seccomp-default / --no-seccomp-default over it; off by default', () => {
    const path = file(`${HEAD}seccompDefault: true\n`);
    expect(readKubeletConfigFile(path).values).toEqual({ seccompDefault: true });
    expect(kubeletConfigFromFlags('/r', {}, {}).seccompDefault).toBe(false);
    expect(kubeletConfigFromFlags('/r', { config: path }, {}).seccompDefault).toBe(true);
    expect(kubeletConfigFromFlags('/r', { config: path, 'seccomp-default': false }, {}).seccompDefault).toBe(false);
  });

  it('reads allowedUnsafeSysctls as a list of strings, and --allowed-unsafe-sysctls over it; a pattern the kubelet refuses is a usage error', () => {
    const path = file(`${HEAD}allowedUnsafeSysctls: ["kernel.msg*", "fs.mqueue.*"]\n`);
    expect(readKubeletConfigFile(path).values).toEqual({ allowedUnsafeSysctls: ['kernel.msg*', 'fs.mqueue.*'] });
    expect(kubeletConfigFromFlags('/r', { config: path }, {}).allowedUnsafeSysctls).toEqual(['kernel.msg*', 'fs.mqueue.*']);
    expect(
      kubeletConfigFromFlags('/r', { config: path, 'allowed-unsafe-sysctls': 'kernel.sem, net.core.somaxconn' }, {}).allowedUnsafeSysctls,
    ).toEqual(['kernel.sem', 'net.core.somaxconn']);
    expect(() => kubeletConfigFromFlags('/r', { 'allowed-unsafe-sysctls': 'vm.swappiness' }, {})).toThrow(
      '--allowed-unsafe-sysctls: the sysctls "vm.swappiness" are not known to be namespaced',
    );
    const notList = file(`${HEAD}allowedUnsafeSysctls: kernel.sem\n`);
    expect(() => readKubeletConfigFile(notList)).toThrow(
      `${notList}:3: allowedUnsafeSysctls: expected a list of strings, got "kernel.sem"`,
    );
  });

  it("reads the drain's shutdownGracePeriod and its critical pods' part (none by default), and refuses a part larger than the whole", () => {
    const path = file(`${HEAD}shutdownGracePeriod: 30s\nshutdownGracePeriodCriticalPods: 10s\n`);
    expect(readKubeletConfigFile(path).values).toEqual({ shutdownGracePeriod: 30_000, shutdownGracePeriodCriticalPods: 10_000 });
    expect(kubeletConfigFromFlags('/r', {}, {})).toMatchObject({ shutdownGracePeriod: 0, shutdownGracePeriodCriticalPods: 0 });
    const larger = file(`${HEAD}shutdownGracePeriod: 5s\nshutdownGracePeriodCriticalPods: 10s\n`);
    expect(() => kubeletConfigFromFlags('/r', { config: larger }, {})).toThrow(
      `${larger}: shutdownGracePeriodCriticalPods (10s) must be at most shutdownGracePeriod (5s)`,
    );
  });

  it("reads the container log settings with the kubelet's defaults, sizes as quantities, and refuses what its validation refuses", () => {
    expect(kubeletConfigFromFlags('/r', {}, {})).toMatchObject({
      containerLogMaxSize: 10 * 1024 * 1024,
      containerLogMaxFiles: 5,
      containerLogMonitorInterval: 10_000,
      containerLogMaxWorkers: 1,
    });
    const path = file(
      `${HEAD}containerLogMaxSize: 2Ki\ncontainerLogMaxFiles: 3\ncontainerLogMonitorInterval: 3s\ncontainerLogMaxWorkers: 2\n`,
    );
    expect(readKubeletConfigFile(path)).toEqual({
      values: { containerLogMaxSize: 2048, containerLogMaxFiles: 3, containerLogMonitorInterval: 3_000, containerLogMaxWorkers: 2 },
      warnings: [],
    });
    expect(kubeletConfigFromFlags('/r', { config: path, 'container-log-max-size': '1M' }, {}).containerLogMaxSize).toBe(1_000_000);
    expect(kubeletConfigFromFlags('/r', { 'container-log-max-size': '-1' }, {}).containerLogMaxSize).toBe(-1);
    expect(toKubeletConfigurationDocument(kubeletConfigFromFlags('/r', { config: path }, {}))).toMatchObject({
      containerLogMaxSize: '2Ki',
    });
    expect(() => kubeletConfigFromFlags('/r', { 'container-log-max-size': '10 MB' }, {})).toThrow(
      '--container-log-max-size 10 MB: quantities must match',
    );
    const bad = file(`${HEAD}containerLogMaxSize: [1]\n`);
    expect(() => readKubeletConfigFile(bad)).toThrow(`${bad}:3: containerLogMaxSize: expected a quantity such as "10Mi", got [1]`);
    expect(() => kubeletConfigFromFlags('/r', { 'container-log-max-files': 1 }, {})).toThrow(
      'invalid configuration: containerLogMaxFiles must be greater than 1',
    );
    expect(() => kubeletConfigFromFlags('/r', { 'container-log-monitor-interval': '1s' }, {})).toThrow(
      'invalid configuration: containerLogMonitorInterval must be a positive time duration greater than or equal to 3s',
    );
    expect(() => kubeletConfigFromFlags('/r', { 'container-log-max-workers': 0 }, {})).toThrow(
      'invalid configuration: containerLogMaxWorkers must be greater than or equal to 1',
    );
  });

  it("reads the image garbage collection settings with the kubelet's defaults, and refuses what its validation refuses", () => {
    expect(kubeletConfigFromFlags('/r', {}, {})).toMatchObject({
      imageGCHighThresholdPercent: 85,
      imageGCLowThresholdPercent: 80,
      imageMinimumGCAge: 120_000,
      imageMaximumGCAge: 0,
    });
    const path = file(
      `${HEAD}imageGCHighThresholdPercent: 90\nimageGCLowThresholdPercent: 50\nimageMinimumGCAge: 1m\nimageMaximumGCAge: 24h\n`,
    );
    expect(readKubeletConfigFile(path)).toEqual({
      values: { imageGCHighThresholdPercent: 90, imageGCLowThresholdPercent: 50, imageMinimumGCAge: 60_000, imageMaximumGCAge: 86_400_000 },
      warnings: [],
    });
    expect(toKubeletConfigurationDocument(kubeletConfigFromFlags('/r', { config: path, 'image-gc-high-threshold': 95 }, {}))).toMatchObject(
      {
        imageGCHighThresholdPercent: 95,
        imageMaximumGCAge: '24h',
      },
    );
    expect(() => kubeletConfigFromFlags('/r', { 'image-gc-high-threshold': 101 }, {})).toThrow(
      'invalid configuration: imageGCHighThresholdPercent (--image-gc-high-threshold) 101 must be between 0 and 100, inclusive',
    );
    expect(() => kubeletConfigFromFlags('/r', { 'image-gc-low-threshold': 101, 'image-gc-high-threshold': 100 }, {})).toThrow(
      'invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) 101 must be between 0 and 100, inclusive',
    );
    expect(() => kubeletConfigFromFlags('/r', { 'image-gc-low-threshold': 0, 'image-gc-high-threshold': 0 }, {})).toThrow(
      'invalid configuration: imageGCLowThresholdPercent (--image-gc-low-threshold) 0 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 0',
    );
    const ages = file(`${HEAD}imageMinimumGCAge: 5m\nimageMaximumGCAge: 5m\n`);
    expect(() => kubeletConfigFromFlags('/r', { config: ages }, {})).toThrow(
      'invalid configuration: imageMaximumGCAge 5m must be greater than imageMinimumGCAge 5m',
    );
  });

  it('reads JSON too', () => {
    const path = file(JSON.stringify({ apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration', maxPods: 7 }), 'json');
    expect(readKubeletConfigFile(path).values).toEqual({ maxPods: 7 });
  });

  it('warns, with its line, about every field it does not implement', () => {
    const path = file(`${HEAD}maxPods: 3\ncpuManagerPolicy:\n  name: static\ncgroupDriver: systemd\n`);
    expect(readKubeletConfigFile(path).warnings).toEqual([
      `${path}:4: field cpuManagerPolicy is not implemented by knode; it is ignored`,
      `${path}:6: field cgroupDriver is not implemented by knode; it is ignored`,
    ]);
  });

  it('reads the eviction maps, and refuses one whose values are not strings', () => {
    const ok = file(
      `${HEAD}evictionHard:\n  memory.available: 1Gi\n  nodefs.available: "5%"\nevictionSoftGracePeriod:\n  memory.available: 1m30s\n`,
    );
    expect(readKubeletConfigFile(ok).values).toEqual({
      evictionHard: { 'memory.available': '1Gi', 'nodefs.available': '5%' },
      evictionSoftGracePeriod: { 'memory.available': '1m30s' },
    });
    const bad = file(`${HEAD}evictionHard:\n  - memory.available<1Gi\n`);
    expect(() => readKubeletConfigFile(bad)).toThrow(/:3: evictionHard: expected a map of eviction signals to strings/);
  });

  it.each([
    [`${HEAD}maxPods: many\n`, ':3: maxPods: expected a non-negative integer, got "many"'],
    [`${HEAD}syncFrequency: 30\n`, ':3: syncFrequency: expected a duration such as "20s", got 30'],
    [`${HEAD}\nfileCheckFrequency: 5 seconds\n`, ':4: fileCheckFrequency: invalid duration "5 seconds"'],
    [`${HEAD}staticPodURLHeader:\n  X: single\n`, ':3: staticPodURLHeader: expected a map of header names to lists of values'],
    [`${HEAD}maxPods: [1\n`, ':4: '],
    ['apiVersion: v1\nkind: KubeletConfiguration\n', ': apiVersion must be kubelet.config.k8s.io/v1beta1, got "v1"'],
    ['apiVersion: kubelet.config.k8s.io/v1beta1\nkind: Pod\n', ': kind must be KubeletConfiguration, got "Pod"'],
    ['- a list\n', ': expected a KubeletConfiguration object'],
  ])('refuses %j naming the line and field', (text, message) => {
    const path = file(text);
    expect(() => readKubeletConfigFile(path)).toThrowError(`${path}${message}`);
  });

  it('names a file it cannot read', () => {
    expect(() => readKubeletConfigFile(join(dir, 'absent.yaml'))).toThrowError(/absent\.yaml: cannot read/);
  });
});

describe('the effective configuration', () => {
  it('takes the kubelet defaults, then the file, then the flags, then what the command decides', () => {
    const path = file(`${HEAD}maxPods: 50\nsyncFrequency: 30s\nfileCheckFrequency: 10s\nstaticPodPath: /from/file\n`);
    const warnings: string[] = [];
    const config = kubeletConfigFromFlags(
      '/root/dir',
      { config: path, 'max-pods': 20, 'file-check-frequency': '2s' },
      { staticPodPath: undefined, runOnce: true },
      (w) => warnings.push(w),
    );
    expect(config).toMatchObject({
      maxPods: 20,
      syncFrequency: 30_000,
      fileCheckFrequency: 2_000,
      httpCheckFrequency: 20_000,
      staticPodPath: '/from/file',
      runOnce: true,
      rootDir: '/root/dir',
    });
    expect(warnings).toEqual([]);
  });

  it('prints back as a document that reads in again to the same values', () => {
    const config = defaultKubeletConfiguration('/r', { staticPodPath: '/p', syncFrequency: 90_000, maxPods: 12 });
    const path = file(JSON.stringify(toKubeletConfigurationDocument(config)), 'json');
    const { values } = readKubeletConfigFile(path);
    expect(values).toMatchObject({
      staticPodPath: '/p',
      syncFrequency: 90_000,
      maxPods: 12,
      fileCheckFrequency: 20_000,
      readOnlyPort: 10255,
    });
  });

  it.each([
    [0, '0s'],
    [500, '500ms'],
    [1_000, '1s'],
    [20_000, '20s'],
    [60_000, '1m'],
    [90_000, '1m30s'],
    [3_600_000, '1h'],
    [3_690_000, '1h1m30s'],
    [1_500, '1.5s'],
  ])('formats %i ms as %s', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
  });
});
