import { parseTaints } from '../engine/config/taints.js';
import { Flags } from '@oclif/core';
import { resolve } from 'node:path';
import { parseByteQuantity } from '../engine/api/quantity.js';
import { readKubeletConfigFile } from '../engine/config/config-file.js';
import { DurationError, formatGoDuration, parseGoDuration } from '../engine/config/duration.js';
import {
  containerLogProblem,
  defaultKubeletConfiguration,
  imageGCProblem,
  type KubeletConfiguration,
} from '../engine/config/kubelet-config.js';
import { defaultText, type Setting, type SettingCommand, settingFor, SETTINGS } from '../engine/config/settings.js';
import { parseThresholdConfig } from '../engine/eviction/thresholds.js';
import { SysctlAllowlist } from '../engine/sysctl-allowlist.js';
import { UserError } from '../util/user-error.js';
import { compareStrings } from '../util/compare.js';

/** A setting's description in --help: the table's, ending in its default. */
function flagDescription(setting: Setting): string {
  const shown = defaultText(setting);
  return shown === undefined ? setting.description : `${setting.description} [default: ${shown}]`;
}

/** A setting's oclif flag: the flag of its type, with its description and default. */
function settingFlag(setting: Setting, helpGroup?: string) {
  const description = flagDescription(setting);
  switch (setting.type) {
    case 'int':
      return Flags.integer({ description, helpGroup });
    case 'bool':
      return Flags.boolean({ description, helpGroup, allowNo: setting.allowNo ?? false });
    case 'enum':
      return Flags.string({ description, helpGroup, options: Object.keys(setting.options ?? {}) });
    case 'headers':
      return Flags.string({ description, helpGroup, multiple: true });
    default:
      return Flags.string({ description, helpGroup });
  }
}

/** A command's setting flags, in name order (the order of shell completions and the usage line). */
function flagsOf(command: SettingCommand, helpGroup?: string) {
  const settings = SETTINGS.filter((s) => s.flag && s.commands.includes(command)).sort((a, b) => compareStrings(a.flag!, b.flag!));
  return Object.fromEntries(settings.map((s) => [s.flag!, settingFlag(s, helpGroup)]));
}

/** The global flags that are settings (the table's `all` rows), typed for the commands that read them. */
export const globalSettingFlags = {
  'root-dir': Flags.string({ description: flagDescription(settingFor('rootDir')), helpGroup: 'GLOBAL' }),
  'runtime-endpoint': Flags.string({ description: flagDescription(settingFor('containerRuntimeEndpoint')), helpGroup: 'GLOBAL' }),
};

/**
 * The flags of a command that fill the KubeletConfiguration, made from the
 * settings table (src/engine/config/settings.ts), with --config. None has an
 * oclif default: what is not given comes from --config, then from the
 * kubelet's defaults, so a flag always wins over the file.
 */
export function kubeletFlags(command: 'run' | 'apply' | 'delete') {
  return {
    config: Flags.string({ description: 'A kubelet.config.k8s.io/v1beta1 KubeletConfiguration file (YAML or JSON); flags override it' }),
    ...flagsOf(command),
  };
}

/** A Go duration flag in milliseconds; a bad one is a usage error naming the flag. */
export function parseDuration(text: string, flag: string): number {
  try {
    return parseGoDuration(text);
  } catch (err) {
    if (!(err instanceof DurationError)) throw err;
    throw new UserError('usage', `--${flag}: ${err.message}`, err.hint);
  }
}

const LABEL_KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

/** Labels in the kubernetes.io and k8s.io namespaces a kubelet may set on its own Node (the kubelet's allowed set). */
const ALLOWED_KUBERNETES_LABELS = new Set([
  'kubernetes.io/hostname',
  'kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/instance-type',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'node.kubernetes.io/instance-type',
]);

function isAllowedNodeLabel(key: string): boolean {
  const slash = key.indexOf('/');
  if (slash < 0) return true;
  const prefix = key.slice(0, slash);
  const kubernetes = (ns: string) => prefix === ns || prefix.endsWith(`.${ns}`);
  if (!kubernetes('kubernetes.io') && !kubernetes('k8s.io')) return true;
  return ALLOWED_KUBERNETES_LABELS.has(key) || kubernetes('kubelet.kubernetes.io') || kubernetes('node.kubernetes.io');
}

/** --node-labels 'k=v,k2=v2' as the kubelet reads it; a bad label is a usage error naming it. */
export function parseNodeLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const item of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const eq = item.indexOf('=');
    const key = eq < 0 ? item : item.slice(0, eq);
    const value = eq < 0 ? '' : item.slice(eq + 1);
    if (eq < 0 || !LABEL_KEY.test(key) || !LABEL_VALUE.test(value)) {
      throw new UserError(
        'usage',
        `--node-labels: "${item}" is not a valid label`,
        "write key=value pairs separated by commas, e.g. --node-labels 'tier=edge,zone=lab'",
      );
    }
    if (!isAllowedNodeLabel(key)) {
      throw new UserError(
        'usage',
        `--node-labels: "${key}" is in the kubernetes.io/k8s.io namespace, where a node may only set its own labels: the apiserver's NodeRestriction admission would refuse the Node ("is not allowed to set the following labels: ${key}")`,
        'use your own prefix (example.com/tier=edge), or *.kubelet.kubernetes.io/ and *.node.kubernetes.io/',
      );
    }
    labels[key] = value;
  }
  return labels;
}

/**
 * The one KubeletConfiguration the engine gets: the kubelet's defaults, then
 * the --config file, then the flags given, then what the command itself
 * decides (`extra`; undefined entries there change nothing).
 */
export function kubeletConfigFromFlags(
  rootDir: string,
  flags: Record<string, unknown>,
  extra: Partial<KubeletConfiguration>,
  warn: (message: string) => void = () => {},
): KubeletConfiguration {
  let fromFile: Partial<KubeletConfiguration> = {};
  if (typeof flags.config === 'string') {
    try {
      const file = readKubeletConfigFile(flags.config);
      fromFile = file.values;
      for (const w of file.warnings) warn(w);
    } catch (err) {
      throw new UserError('usage', (err as Error).message, 'see the fields knode reads in docs/configuration.md');
    }
  }
  const fromFlags: Record<string, unknown> = {};
  for (const setting of SETTINGS) {
    if (setting.flag && flags[setting.flag] !== undefined) fromFlags[setting.field] = flagValue(setting, flags[setting.flag]);
  }
  const decided = Object.fromEntries(Object.entries(extra).filter(([, v]) => v !== undefined));
  const config = defaultKubeletConfiguration(rootDir, { ...fromFile, ...(fromFlags as Partial<KubeletConfiguration>), ...decided });
  try {
    new SysctlAllowlist(config.allowedUnsafeSysctls);
  } catch (err) {
    throw new UserError(
      'usage',
      `--allowed-unsafe-sysctls: ${(err as Error).message}`,
      "give sysctl names or prefixes ending in '*' of a namespaced group: kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*, net.*",
    );
  }
  const logProblem = containerLogProblem(config);
  if (logProblem) throw new UserError('usage', `invalid configuration: ${logProblem}`, 'see containerLog* in docs/configuration.md');
  try {
    parseThresholdConfig(config);
  } catch (err) {
    throw new UserError('usage', `invalid configuration: eviction: ${(err as Error).message}`, 'see eviction* in docs/configuration.md');
  }
  const imageProblem = imageGCProblem(config);
  if (imageProblem)
    throw new UserError('usage', `invalid configuration: ${imageProblem}`, 'see imageGC* and image*GCAge in docs/configuration.md');
  if (config.shutdownGracePeriodCriticalPods > config.shutdownGracePeriod) {
    throw new UserError(
      'usage',
      `${flags.config}: shutdownGracePeriodCriticalPods (${formatGoDuration(config.shutdownGracePeriodCriticalPods)}) must be at most shutdownGracePeriod (${formatGoDuration(config.shutdownGracePeriod)})`,
      "the critical pods' time is the last part of the drain's whole time",
    );
  }
  return config;
}

/** A flag's value as the setting's type reads it; a bad one is a usage error naming the flag. */
function flagValue(setting: Setting, value: unknown): unknown {
  const flag = setting.flag!;
  switch (setting.type) {
    case 'duration':
      return parseDuration(String(value), flag);
    case 'quantity': {
      const size = parseByteQuantity(String(value));
      if ('problem' in size)
        throw new UserError('usage', `--${flag} ${String(value)}: ${size.problem}`, 'give a size such as 10Mi or 512Ki');
      return size.bytes;
    }
    case 'int':
      return Number(value);
    case 'bool':
      return Boolean(value);
    case 'path':
      return resolve(String(value));
    case 'name':
      return String(value).toLowerCase();
    case 'strings':
      return String(value)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    case 'labels':
      return parseNodeLabels(String(value));
    case 'signals':
      return parseSignals(String(value), setting.separator ?? '=', flag);
    case 'headers':
      return parseHeaders(value as string[], flag);
    case 'taints':
      try {
        return parseTaints(String(value));
      } catch (err) {
        throw new UserError(
          'usage',
          `--${flag}: ${(err as Error).message}`,
          "write key=value:Effect pairs separated by commas, e.g. --register-with-taints 'dedicated=edge:NoSchedule'",
        );
      }
    case 'enum':
      return setting.options?.[String(value)];
    case 'string':
      return String(value);
  }
}

/** 'memory.available<100Mi,nodefs.available<10%' (or with '=') as a map of signals to values. */
function parseSignals(text: string, separator: string, flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const at = part.indexOf(separator);
    if (at <= 0)
      throw new UserError(
        'usage',
        `--${flag} "${part}": expected 'signal${separator}value'`,
        `for example memory.available${separator}${separator === '<' ? '100Mi' : '1m30s'}`,
      );
    out[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  return out;
}

/** 'Name: value' flags as a map of header names to their values. */
function parseHeaders(values: string[], flag: string): Record<string, string[]> {
  const headers: Record<string, string[]> = {};
  for (const h of values) {
    const colon = h.indexOf(':');
    if (colon <= 0) throw new UserError('usage', `--${flag} "${h}": expected 'Name: value'`);
    const name = h.slice(0, colon).trim();
    (headers[name] ??= []).push(h.slice(colon + 1).trim());
  }
  return headers;
}
