// `knode join`'s discovery, as kubeadm join's: by token (an apiserver and a
// pinned CA) or by file (a kubeconfig, local or from an https:// URL); then
// the bootstrap kubeconfig the TLS bootstrap uses, and the CA the kubelet API
// trusts for the apiserver's client certificate.
import { join } from 'node:path';
import { bootstrapKubeconfig, discoverCluster } from '../engine/cluster/bootstrap/discovery.js';
import { discoverFromFile } from '../engine/cluster/bootstrap/file-discovery.js';
import type { KubeletConfiguration } from '../engine/config/kubelet-config.js';
import { makeDirectory, writeFileAtomic } from '../util/atomic-file.js';
import { keepingAlive, type Clock } from '../util/clock.js';
import { UserError } from '../util/user-error.js';

export interface JoinDiscovery {
  /** The apiserver (host:port) for token discovery. */
  apiserver?: string;
  /** --discovery-file: a kubeconfig's path or https:// URL. */
  file?: string;
  /** --token: for discovery and the TLS bootstrap, unless the two below are given. */
  token?: string;
  tlsBootstrapToken?: string;
  caCertHashes: string[];
  unsafeSkipCAVerification: boolean;
  timeoutMs: number;
}

/** kubeadm's ValidateDiscovery for what the command line gave, as a usage error in its words. */
export function checkDiscovery(d: JoinDiscovery): void {
  const invalid = (message: string) => new UserError('usage', `discovery: Invalid value: "": ${message}`);
  if (!d.apiserver && !d.file) throw invalid('bootstrapToken or file must be set');
  if (d.apiserver && d.file) throw invalid('bootstrapToken and file cannot both be set');
  if (d.apiserver && !d.token)
    throw new UserError('usage', 'discovery.bootstrapToken.token: Invalid value: "": the bootstrap token is invalid');
}

/**
 * Discovers the cluster, then writes `<root>/bootstrap-kubelet.conf` (0600)
 * into config.bootstrapKubeconfig and the cluster's CA as the client CA,
 * unless the configuration names them. Failures are usage errors in kubeadm's words.
 */
export async function discoverForJoin(d: JoinDiscovery, config: KubeletConfiguration, rootDir: string, clock: Clock): Promise<void> {
  const say = (message: string) => process.stderr.write(`knode: ${message}\n`);
  const onRetry = (message: string) => say(`discovery: ${message}; retrying`);
  const where = d.file ?? d.apiserver!;
  let server: string;
  let caPem: string | undefined;
  let bootstrap: string;
  try {
    if (d.file) {
      const found = await keepingAlive(
        discoverFromFile({ source: d.file, timeoutMs: d.timeoutMs, clock, onRetry, onWarning: (m) => say(`discovery: ${m}`) }),
      );
      ({ server, caPem } = found);
      const token = d.tlsBootstrapToken ?? d.token;
      if (token) bootstrap = bootstrapKubeconfig(found, token);
      else if (found.hasCredentials) bootstrap = found.kubeconfig;
      else
        throw new Error(
          'could not find authentication credentials for the TLS bootstrap process. Please use Token discovery, a discovery file with embedded authentication credentials or a discovery file without authentication credentials but with the TLSBootstrapToken flag',
        );
      say(`discovery: ${server} from ${d.file}${found.caPem ? ', its CA embedded' : ''}`);
    } else {
      const found = await keepingAlive(
        discoverCluster({
          apiserver: d.apiserver!,
          token: d.token!,
          caCertHashes: d.caCertHashes,
          unsafeSkipCAVerification: d.unsafeSkipCAVerification,
          timeoutMs: d.timeoutMs,
          clock,
          onRetry,
        }),
      );
      ({ server, caPem } = found);
      bootstrap = bootstrapKubeconfig(found, d.tlsBootstrapToken ?? d.token!);
      say(`discovery: cluster-info of ${server} is signed for the token${d.caCertHashes.length ? ' and its CA is pinned' : ''}`);
    }
  } catch (err) {
    const message = (err as Error).message;
    const hint = message.includes('could not find a JWS signature')
      ? 'the token id is invalid for this cluster or it has expired. Use "kubeadm token create" on the control-plane node to create a new valid token'
      : undefined;
    throw new UserError('usage', `join ${where}: ${message}`, hint);
  }
  makeDirectory(rootDir, 0o755);
  config.bootstrapKubeconfig ??= join(rootDir, 'bootstrap-kubelet.conf');
  config.kubeconfig ??= join(rootDir, 'kubelet.conf');
  writeFileAtomic(config.bootstrapKubeconfig, bootstrap, 0o600);
  // The apiserver's client certificate (for logs, exec) is signed by the cluster's CA, as kubeadm configures clientCAFile.
  if (!config.clientCAFile && caPem) {
    makeDirectory(config.certDirectory, 0o755);
    config.clientCAFile = join(config.certDirectory, 'ca.crt');
    writeFileAtomic(config.clientCAFile, caPem, 0o644);
  }
}
