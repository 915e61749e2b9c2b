import { checkTaintList } from './taints.js';
import { readFileSync } from 'node:fs';
import { isMap, isScalar, LineCounter, parseDocument, type Pair } from 'yaml';
import { parseByteQuantity } from '../api/quantity.js';
import { type DurationError, parseGoDuration } from './duration.js';
import type { KubeletConfiguration } from './kubelet-config.js';
import { formatSetting, SETTINGS, type SettingType } from './settings.js';

/** A configuration file knode cannot use: the message names the file, the line and the field. */
export class ConfigFileError extends Error {
  override readonly name = 'ConfigFileError';
}

/** The KubeletConfiguration fields knode honours, by name: the settings table's file fields. */
const FIELDS = new Map(SETTINGS.filter((s) => s.file).map((s) => [s.name, s]));

export interface ConfigFileResult {
  values: Partial<KubeletConfiguration>;
  /** One line per field knode does not implement (never silently ignored). */
  warnings: string[];
}

/**
 * Reads a `kubelet.config.k8s.io/v1beta1` KubeletConfiguration (YAML or
 * JSON): the fields knode implements become configuration values, every
 * other field a warning, and a malformed file an error naming line and field.
 */
export function readKubeletConfigFile(path: string): ConfigFileResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigFileError(`${path}: cannot read: ${(err as Error).message}`);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const e = doc.errors[0];
    throw new ConfigFileError(`${path}:${e.linePos?.[0].line ?? '?'}: ${e.message.split('\n')[0]}`);
  }
  if (!isMap(doc.contents)) throw new ConfigFileError(`${path}: expected a KubeletConfiguration object`);
  const at = (pair: Pair) => `${path}:${lines.linePos((pair.key as { range?: [number] }).range?.[0] ?? 0).line}`;
  const values: Partial<KubeletConfiguration> = {};
  const warnings: string[] = [];
  const seen: Record<string, unknown> = {};
  for (const pair of doc.contents.items as Pair[]) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    const value = (pair.value as { toJSON?: () => unknown } | null)?.toJSON?.() ?? null;
    seen[key] = value;
    if (key === 'apiVersion' || key === 'kind') continue;
    const setting = FIELDS.get(key);
    if (!setting) {
      warnings.push(`${at(pair)}: field ${key} is not implemented by knode; it is ignored`);
      continue;
    }
    (values as Record<string, unknown>)[setting.field] = convert(value, setting.type, `${at(pair)}: ${key}`);
  }
  if (seen.kind !== 'KubeletConfiguration')
    throw new ConfigFileError(`${path}: kind must be KubeletConfiguration, got ${JSON.stringify(seen.kind ?? null)}`);
  if (seen.apiVersion !== 'kubelet.config.k8s.io/v1beta1') {
    throw new ConfigFileError(`${path}: apiVersion must be kubelet.config.k8s.io/v1beta1, got ${JSON.stringify(seen.apiVersion ?? null)}`);
  }
  return { values, warnings };
}

/** A file value of the setting's type; anything else is an error naming the line and field. */
function convert(value: unknown, type: SettingType, where: string): unknown {
  switch (type) {
    case 'string':
    case 'path':
    case 'name':
      if (typeof value !== 'string') throw new ConfigFileError(`${where}: expected a string, got ${JSON.stringify(value)}`);
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw new ConfigFileError(`${where}: expected true or false, got ${JSON.stringify(value)}`);
      return value;
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
        throw new ConfigFileError(`${where}: expected a non-negative integer, got ${JSON.stringify(value)}`);
      return value;
    case 'duration':
      if (typeof value !== 'string') throw new ConfigFileError(`${where}: expected a duration such as "20s", got ${JSON.stringify(value)}`);
      try {
        return parseGoDuration(value);
      } catch (err) {
        throw new ConfigFileError(`${where}: ${(err as Error).message}: ${(err as DurationError).hint}`);
      }
    case 'quantity': {
      if (typeof value !== 'string' && typeof value !== 'number')
        throw new ConfigFileError(`${where}: expected a quantity such as "10Mi", got ${JSON.stringify(value)}`);
      const size = parseByteQuantity(value);
      if ('problem' in size) throw new ConfigFileError(`${where}: ${JSON.stringify(value)}: ${size.problem}`);
      return size.bytes;
    }
    case 'strings':
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
        throw new ConfigFileError(`${where}: expected a list of strings, got ${JSON.stringify(value)}`);
      return value;
    case 'headers': {
      const ok =
        value &&
        typeof value === 'object' &&
        !Array.isArray(value) &&
        Object.values(value).every((v) => Array.isArray(v) && v.every((x) => typeof x === 'string'));
      if (!ok) throw new ConfigFileError(`${where}: expected a map of header names to lists of values`);
      return value;
    }
    case 'signals': {
      const ok = value && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((v) => typeof v === 'string');
      if (!ok) throw new ConfigFileError(`${where}: expected a map of eviction signals to strings, such as memory.available: "100Mi"`);
      return value;
    }
    case 'taints':
      try {
        return checkTaintList(value);
      } catch (err) {
        throw new ConfigFileError(`${where}: ${(err as Error).message}`);
      }
    case 'labels':
    case 'enum':
      throw new Error(`${where}: a ${type} setting is not read from a file`);
  }
}

/** The effective configuration as a KubeletConfiguration document (`knode run --print-config`): it can be fed back with --config. */
export function toKubeletConfigurationDocument(config: KubeletConfiguration): Record<string, unknown> {
  const doc: Record<string, unknown> = { apiVersion: 'kubelet.config.k8s.io/v1beta1', kind: 'KubeletConfiguration' };
  for (const setting of FIELDS.values()) {
    const value = config[setting.field];
    if (value === undefined || value === '' || (typeof value === 'object' && Object.keys(value).length === 0)) continue;
    doc[setting.name] = formatSetting(setting, value);
  }
  return doc;
}
