import { stringify } from 'yaml';
import { toKubeletConfigurationDocument } from '../engine/config/config-file.js';
import { formatGoDuration } from '../engine/config/duration.js';
import type { KubeletConfiguration } from '../engine/config/kubelet-config.js';

/**
 * The effective configuration as `knode run --print-config` shows it: a
 * KubeletConfiguration document that --config reads back, then knode's own
 * settings as comments.
 */
export function printConfig(config: KubeletConfiguration): string {
  const knode = {
    nodeName: config.nodeName,
    rootDir: config.rootDir,
    podLogsDir: config.podLogsDir,
    nodeLogDir: config.nodeLogDir,
    pleg: config.eventedPleg ? 'evented' : 'relist',
    plegRelistPeriod: formatGoDuration(config.plegRelistPeriod),
    plegEventedRelistPeriod: formatGoDuration(config.plegEventedRelistPeriod),
    plegRelistThreshold: formatGoDuration(config.plegRelistThreshold),
  };
  const comments = stringify({ knode })
    .trimEnd()
    .split('\n')
    .map((l) => `# ${l}`)
    .join('\n');
  return `${stringify(toKubeletConfigurationDocument(config)).trimEnd()}\n${comments}`;
}
