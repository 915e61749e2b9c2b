// kubeadm join's token discovery: read cluster-info from kube-public without
// trusting the apiserver yet, check the bootstrapsigner's JWS for the token,
// pin the CA by its public-key hash, read cluster-info again over TLS verified
// with that CA, and make the bootstrap kubeconfig the TLS bootstrap uses.
import { request } from 'node:https';
import { parse, stringify } from 'yaml';
import type { Clock } from '../../../util/clock.js';
import { caCertHash, certificatesOf, detachedSignatureValid, parseBootstrapToken, type BootstrapToken } from './token.js';

const CLUSTER_INFO_PATH = '/api/v1/namespaces/kube-public/configmaps/cluster-info';
/** kubeadm's constants.DiscoveryRetryInterval. */
const RETRY_INTERVAL_MS = 5_000;

export interface DiscoveryOptions {
  /** `host:port` as kubeadm takes it, or an https:// URL. */
  apiserver: string;
  token: string;
  /** --discovery-token-ca-cert-hash values, already parsed (sha256:<hex>). */
  caCertHashes: string[];
  unsafeSkipCAVerification: boolean;
  timeoutMs: number;
  clock: Clock;
  /** Said on each failed try that will be retried. */
  onRetry?: (message: string) => void;
}

export interface DiscoveredCluster {
  /** The apiserver's URL as cluster-info gives it. */
  server: string;
  /** The cluster's CA bundle (PEM). */
  caPem: string;
}

/** A failure no retry can mend (a wrong pin, a bad signature). */
class DiscoveryError extends Error {}

/** Discovers and validates the cluster as kubeadm's RetrieveValidatedConfigInfo does; throws with kubeadm's texts. */
export async function discoverCluster(options: DiscoveryOptions): Promise<DiscoveredCluster> {
  const token = parseBootstrapToken(options.token);
  if (options.caCertHashes.length === 0 && !options.unsafeSkipCAVerification)
    throw new Error(
      'using token-based discovery without caCertHashes can be unsafe. Set unsafeSkipCAVerification as true in your kubeadm config file or pass --discovery-token-unsafe-skip-ca-verification flag to continue',
    );
  const endpoint = options.apiserver.startsWith('https://') ? options.apiserver : `https://${options.apiserver}`;
  const deadline = options.clock.now() + options.timeoutMs;
  let last: string;
  for (;;) {
    try {
      return await discoverOnce(endpoint, token, options);
    } catch (err) {
      if (err instanceof DiscoveryError)
        throw new Error(`couldn't validate the identity of the API Server: ${err.message}`, { cause: err });
      last = (err as Error).message;
    }
    if (options.clock.now() + RETRY_INTERVAL_MS > deadline) throw new Error(`couldn't validate the identity of the API Server: ${last}`);
    options.onRetry?.(last);
    await options.clock.sleep(RETRY_INTERVAL_MS);
  }
}

async function discoverOnce(endpoint: string, token: BootstrapToken, options: DiscoveryOptions): Promise<DiscoveredCluster> {
  const insecure = await getClusterInfo(endpoint, undefined);
  const kubeconfig = insecure['kubeconfig'];
  if (kubeconfig === undefined)
    throw new DiscoveryError(
      `there is no kubeconfig key in the cluster-info ConfigMap. This API Server isn't set up for token bootstrapping, can't connect`,
    );
  const signature = insecure[`jws-kubeconfig-${token.id}`];
  // Retried: the bootstrapsigner signs a new token a moment after it is made.
  if (signature === undefined) throw new Error(`could not find a JWS signature in the cluster-info ConfigMap for token ID "${token.id}"`);
  if (!detachedSignatureValid(signature, kubeconfig, token))
    throw new DiscoveryError(`failed to verify JWS signature of received cluster info object, can't trust this API Server`);
  const cluster = clusterOf(kubeconfig);
  if (!options.unsafeSkipCAVerification) {
    const certs = certificatesOf(cluster.caPem);
    const hashes = certs.map(caCertHash);
    if (!hashes.some((hash) => options.caCertHashes.includes(hash)))
      throw new DiscoveryError(
        `cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "${hashes.join(':')}" are pinned`,
      );
  }
  // Now the CA is trusted: read it again over a verified connection, and it must not have changed.
  const secure = await getClusterInfo(endpoint, cluster.caPem);
  if (secure['kubeconfig'] !== kubeconfig)
    throw new DiscoveryError(`the second kubeconfig from the cluster-info ConfigMap (using validated TLS) was different from the first`);
  return cluster;
}

/** The server and CA of cluster-info's kubeconfig (its first cluster, as kubeadm takes it). */
function clusterOf(kubeconfig: string): DiscoveredCluster {
  const config = parse(kubeconfig) as {
    clusters?: { cluster?: { server?: string; 'certificate-authority-data'?: string } }[];
  } | null;
  const cluster = config?.clusters?.[0]?.cluster;
  if (!cluster?.server || !cluster['certificate-authority-data'])
    throw new DiscoveryError(
      `malformed kubeconfig in the cluster-info ConfigMap: no cluster with a server and a certificate-authority-data`,
    );
  return { server: cluster.server, caPem: Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8') };
}

/** cluster-info's data; anonymous, TLS unverified unless `ca` is given. */
function getClusterInfo(endpoint: string, ca: string | undefined): Promise<Record<string, string>> {
  const url = new URL(CLUSTER_INFO_PATH, endpoint);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'GET', headers: { Accept: 'application/json' }, timeout: 10_000, ...(ca ? { ca } : { rejectUnauthorized: false }) },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => {
          if (res.statusCode !== 200) {
            let detail = body.trim();
            try {
              detail = (JSON.parse(body) as { message?: string }).message ?? detail;
            } catch {
              // not a Status
            }
            reject(new Error(`failed to request the cluster-info ConfigMap from ${url.host}: ${res.statusCode}: ${detail}`));
            return;
          }
          try {
            resolve((JSON.parse(body) as { data?: Record<string, string> }).data ?? {});
          } catch (err) {
            reject(new Error(`the cluster-info ConfigMap from ${url.host} is not JSON: ${(err as Error).message}`));
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 10s')));
    req.on('error', (err) => reject(new Error(`failed to request the cluster-info ConfigMap from ${url.host}: ${err.message}`)));
    req.end();
  });
}

/** The bootstrap kubeconfig kubeadm writes (bootstrap-kubelet.conf): the cluster, and the token as the user. */
export function bootstrapKubeconfig(cluster: { server: string; caPem?: string }, token: string): string {
  const ca = cluster.caPem === undefined ? {} : { 'certificate-authority-data': Buffer.from(cluster.caPem).toString('base64') };
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kubernetes', cluster: { server: cluster.server, ...ca } }],
    users: [{ name: 'tls-bootstrap-token-user', user: { token } }],
    contexts: [{ name: 'tls-bootstrap-token-user@kubernetes', context: { cluster: 'kubernetes', user: 'tls-bootstrap-token-user' } }],
    'current-context': 'tls-bootstrap-token-user@kubernetes',
  });
}
