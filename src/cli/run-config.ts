import type { KubeletConfiguration } from '../engine/config/kubelet-config.js';
import { isLoopback } from '../engine/server/node-server.js';
import { UserError } from '../util/user-error.js';

/** What `knode run` needs of its configuration: a pod source, and a loopback read-only API unless --allow-remote. */
export function checkRunConfig(config: KubeletConfiguration, allowRemote: boolean): void {
  if (!config.staticPodPath && !config.staticPodURL && !config.kubeconfig) {
    throw new UserError(
      'usage',
      'knode run needs at least one pod source',
      'give --static-dir DIR, --manifest-url URL and/or --kubeconfig FILE (or staticPodPath/staticPodURL in --config)',
    );
  }
  if (!isLoopback(config.address) && !allowRemote) {
    throw new UserError(
      'usage',
      `--address ${config.address} is not a loopback address`,
      'the read-only API shows every pod and its logs without authentication; add --allow-remote if you mean it',
    );
  }
}
