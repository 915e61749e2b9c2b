import { Flags } from '@oclif/core';
import { defaultKubeletConfiguration, type KubeletConfiguration } from '../engine/config/kubelet-config.js';
import { UserError } from '../util/user-error.js';

/** Flags that fill the KubeletConfiguration, shared by `run` and `apply`. */
export const kubeletFlags = {
  'node-name': Flags.string({ description: 'Name of this node; static pods are named <pod>-<node-name> [default: the hostname]' }),
  'max-pods': Flags.integer({ description: 'Pods this node admits at most', default: 110 }),
  'sync-frequency': Flags.string({ description: 'How often a running pod is synced again (Go duration)', default: '1m' }),
  'pleg': Flags.string({ description: 'evented: runtime container events trigger relists of the pod (falls back to relist when the runtime has none); relist: relist every --pleg-relist-period only', options: ['evented', 'relist'], default: 'evented' }),
  'pleg-relist-period': Flags.string({ description: 'Period of the full PLEG relist (Go duration)', default: '1s' }),
};

/** Parses a Go duration (`20s`, `1m30s`, `500ms`, `.5s`, `1h`) into milliseconds; negative durations are refused. */
export function parseDuration(text: string, flag: string): number {
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  if (text.startsWith('-')) throw new UserError('usage', `--${flag}: duration "${text}" must not be negative`);
  const body = text.startsWith('+') ? text.slice(1) : text;
  if (body === '0') return 0;
  const re = /(\d+\.?\d*|\.\d+)(ns|us|µs|ms|s|m|h)/g;
  let total = 0;
  let consumed = 0;
  for (const match of body.matchAll(re)) {
    if (match.index !== consumed) break;
    total += Number(match[1]) * units[match[2]];
    consumed += match[0].length;
  }
  if (consumed !== body.length || consumed === 0) {
    throw new UserError('usage', `--${flag}: invalid duration "${text}"`, 'use Go duration syntax, e.g. 20s, 1m30s, 500ms');
  }
  return total;
}

export function kubeletConfigFromFlags(rootDir: string, flags: Record<string, unknown>, extra: Partial<KubeletConfiguration>): KubeletConfiguration {
  return defaultKubeletConfiguration(rootDir, {
    ...(flags['node-name'] ? { nodeName: String(flags['node-name']).toLowerCase() } : {}),
    maxPods: Number(flags['max-pods']),
    syncFrequency: parseDuration(String(flags['sync-frequency']), 'sync-frequency'),
    eventedPleg: flags.pleg !== 'relist',
    plegRelistPeriod: parseDuration(String(flags['pleg-relist-period']), 'pleg-relist-period'),
    ...extra,
  });
}
