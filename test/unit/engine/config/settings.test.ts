import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { globalSettingFlags, kubeletFlags } from '../../../../src/cli/kubelet-flags.js';
import { printConfig } from '../../../../src/cli/print-config.js';
import { defaultKubeletConfiguration } from '../../../../src/engine/config/kubelet-config.js';
import { defaultText, SETTINGS } from '../../../../src/engine/config/settings.js';

describe('the settings table', () => {
  it('gives the kubelet defaults knode has always used', () => {
    expect(defaultKubeletConfiguration('/r')).toStrictEqual({
      nodeName: hostname().toLowerCase(),
      rootDir: '/r',
      staticPodURLHeader: {},
      fileCheckFrequency: 20_000,
      httpCheckFrequency: 20_000,
      syncFrequency: 60_000,
      maxPods: 110,
      maxParallelSandboxStarts: 4,
      allowedUnsafeSysctls: [],
      seccompDefault: false,
      runtimeRequestTimeout: 120_000,
      containerRuntimeEndpoint: '',
      address: '127.0.0.1',
      readOnlyPort: 10255,
      port: 10250,
      clusterDomain: 'cluster.local',
      clusterDNS: [],
      resolvConf: '/etc/resolv.conf',
      nodeLabels: {},
      nodeStatusUpdateFrequency: 10_000,
      nodeStatusReportFrequency: 300_000,
      nodeLeaseDurationSeconds: 40,
      certDirectory: '/r/pki',
      rotateCertificates: true,
      serverTLSBootstrap: false,
      registerWithTaints: [],
      enableProfilingHandler: false,
      enableSystemLogHandler: true,
      shutdownGracePeriod: 0,
      shutdownGracePeriodCriticalPods: 0,
      containerLogMaxSize: 10 * 1024 * 1024,
      containerLogMaxFiles: 5,
      containerLogMonitorInterval: 10_000,
      containerLogMaxWorkers: 1,
      imageGCHighThresholdPercent: 85,
      imageGCLowThresholdPercent: 80,
      imageMinimumGCAge: 120_000,
      imageMaximumGCAge: 0,
      evictionHard: {
        'memory.available': '100Mi',
        'nodefs.available': '10%',
        'nodefs.inodesFree': '5%',
        'imagefs.available': '15%',
        'imagefs.inodesFree': '5%',
      },
      evictionSoft: {},
      evictionSoftGracePeriod: {},
      evictionMinimumReclaim: {},
      evictionPressureTransitionPeriod: 300_000,
      evictionMaxPodGracePeriod: 0,
      mergeDefaultEvictionSettings: false,
      nodeLogDir: '/var/log',
      plegRelistPeriod: 1_000,
      eventedPleg: true,
      plegEventedRelistPeriod: 30_000,
      plegRelistThreshold: 180_000,
      podLogsDir: '/r/pods',
      runOnce: false,
    });
  });

  it('hands out a fresh list or map each time', () => {
    const a = defaultKubeletConfiguration('/r');
    a.allowedUnsafeSysctls.push('kernel.sem');
    a.staticPodURLHeader.X = ['y'];
    expect(defaultKubeletConfiguration('/r')).toMatchObject({ allowedUnsafeSysctls: [], staticPodURLHeader: {} });
  });

  it('names each field, name and flag once', () => {
    for (const key of ['field', 'name', 'flag'] as const) {
      const values = SETTINGS.map((s) => s[key]).filter(Boolean);
      expect(new Set(values).size, key).toBe(values.length);
    }
  });

  it('makes the flags of run, apply and delete, and the global ones', () => {
    for (const command of ['run', 'apply', 'delete'] as const) {
      const expected = SETTINGS.filter((s) => s.flag && s.commands.includes(command)).map((s) => s.flag);
      expect(Object.keys(kubeletFlags(command)).sort()).toEqual(['config', ...expected].sort());
    }
    expect(Object.keys(globalSettingFlags).sort()).toEqual(
      SETTINGS.filter((s) => s.commands.includes('all'))
        .map((s) => s.flag)
        .sort(),
    );
    const run = kubeletFlags('run') as Record<string, { description?: string }>;
    expect(run['sync-frequency'].description).toBe('How often a running pod is synced again (Go duration) [default: 1m]');
    expect(run.pleg.description).toMatch(/\[default: evented\]$/);
  });

  it('shows defaults as --help and the docs write them', () => {
    const shown = Object.fromEntries(SETTINGS.map((s) => [s.name, defaultText(s)]));
    expect(shown).toMatchObject({
      syncFrequency: '1m',
      maxPods: '110',
      seccompDefault: 'off',
      pleg: 'evented',
      nodeName: 'the hostname',
      staticPodPath: undefined,
      allowedUnsafeSysctls: undefined,
    });
  });
});

describe('printConfig', () => {
  it('prints the file fields as a document, then the knode settings as comments', () => {
    const config = defaultKubeletConfiguration('/r', { nodeName: 'n1', eventedPleg: false, staticPodPath: '/p' });
    const text = printConfig(config);
    expect(text.split('\n').slice(0, 4)).toEqual([
      'apiVersion: kubelet.config.k8s.io/v1beta1',
      'kind: KubeletConfiguration',
      'staticPodPath: /p',
      'syncFrequency: 1m',
    ]);
    expect(text.slice(text.indexOf('# knode:'))).toBe(
      [
        '# knode:',
        '#   nodeName: n1',
        '#   rootDir: /r',
        '#   podLogsDir: /r/pods',
        '#   nodeLogDir: /var/log',
        '#   pleg: relist',
        '#   plegRelistPeriod: 1s',
        '#   plegEventedRelistPeriod: 30s',
        '#   plegRelistThreshold: 3m',
        '#   maxParallelSandboxStarts: 4',
      ].join('\n'),
    );
  });
});
