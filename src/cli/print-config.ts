import { stringify } from 'yaml';
import { toKubeletConfigurationDocument } from '../engine/config/config-file.js';
import type { KubeletConfiguration } from '../engine/config/kubelet-config.js';
import { formatSetting, SETTINGS } from '../engine/config/settings.js';

/**
 * The effective configuration as `knode run --print-config` shows it: a
 * KubeletConfiguration document that --config reads back, then knode's own
 * settings (the table's non-file ones) as comments.
 */
export function printConfig(config: KubeletConfiguration): string {
  const knode = Object.fromEntries(SETTINGS.filter((s) => !s.file && !s.unprinted).map((s) => [s.name, formatSetting(s, config[s.field])]));
  const comments = stringify({ knode })
    .trimEnd()
    .split('\n')
    .map((l) => `# ${l}`)
    .join('\n');
  return `${stringify(toKubeletConfigurationDocument(config)).trimEnd()}\n${comments}`;
}
