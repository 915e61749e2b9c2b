// kubeadm join's file discovery (--discovery-file): a kubeconfig from a file
// or an https:// URL names the cluster and may carry credentials. Its CA and
// credentials are embedded, and cluster-info is read through it once to prove
// that the TLS connection can be trusted (kubeadm's ValidateConfigInfo).
import { existsSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import type { Clock } from '../../../util/clock.js';
import { formatGoDuration } from '../../config/duration.js';
import { readCapped } from '../../config/bounded-read.js';
import { ClusterError, toClusterError } from '../client.js';
import type { DiscoveredCluster } from './discovery.js';

/** kubeadm's constants.DiscoveryRetryInterval. */
const RETRY_INTERVAL_MS = 5_000;
/** Where Go's crypto/x509 looks for the host's CA bundle on Linux, after $SSL_CERT_FILE. */
const HOST_CA_BUNDLES = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/ca-bundle.pem',
  '/etc/pki/tls/cacert.pem',
  '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
  '/etc/ssl/cert.pem',
];

type Entry = Record<string, unknown>;
interface Kubeconfig {
  clusters?: { name: string; cluster?: Entry }[];
  users?: { name: string; user?: Entry }[];
  contexts?: { name: string; context?: { cluster?: string; user?: string } }[];
  'current-context'?: string;
  [key: string]: unknown;
}

export interface FileDiscoveryOptions {
  /** A kubeconfig's path, or an https:// URL to fetch it from (verified with the host's CA bundle). */
  source: string;
  timeoutMs: number;
  clock: Clock;
  onRetry?: (message: string) => void;
  onWarning?: (message: string) => void;
}

export interface FileDiscovered extends Omit<DiscoveredCluster, 'caPem'> {
  /** The cluster's CA (PEM); undefined when the kubeconfig has none and the host's bundle is trusted. */
  caPem: string | undefined;
  /** The kubeconfig with its CA and credentials embedded: the bootstrap kubeconfig when it has credentials. */
  kubeconfig: string;
  hasCredentials: boolean;
}

/** Reads and validates the discovery kubeconfig as kubeadm's file and https discovery do; throws with kubeadm's texts. */
export async function discoverFromFile(options: FileDiscoveryOptions): Promise<FileDiscovered> {
  const { text, base } = await readSource(options.source);
  const config = (parse(text) as Kubeconfig | null) ?? {};
  if (!config.clusters?.length) throw new Error('the provided kubeconfig file must have at least one Cluster defined');
  const cluster = currentCluster(config);
  const server = cluster.server;
  if (typeof server !== 'string' || !server) throw new Error(`invalid configuration: no server found for cluster "${clusterName(config)}"`);
  embedFile(cluster, 'certificate-authority', 'certificate-authority-data', base);
  const user = currentUser(config);
  const hasCredentials = user !== undefined && hasAuthenticationCredentials(user);
  if (user && hasCredentials) {
    embedFile(user, 'client-certificate', 'client-certificate-data', base);
    embedFile(user, 'client-key', 'client-key-data', base);
    if (typeof user.tokenFile === 'string') {
      user.token = readFileSync(absolute(user.tokenFile, base), 'utf8').trim();
      delete user.tokenFile;
    }
  }
  const info = await readClusterInfo(cluster, hasCredentials ? user : undefined, options);
  const refreshed = info && refreshedCluster(info);
  if (refreshed) {
    if (refreshed.server && refreshed.server !== server)
      options.onWarning?.(
        `the API Server endpoint "${server}" in use is different from the endpoint "${refreshed.server}" which defined in the cluster-info ConfigMap`,
      );
    if (!cluster['certificate-authority-data'] && refreshed.caData) cluster['certificate-authority-data'] = refreshed.caData;
  }
  const caData = cluster['certificate-authority-data'];
  return {
    server,
    caPem: typeof caData === 'string' ? Buffer.from(caData, 'base64').toString('utf8') : undefined,
    kubeconfig: stringify(config),
    hasCredentials,
  };
}

/** The host's CA bundle as Go finds it, for the https:// form; Node's own roots when there is none. */
export function hostCABundle(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const file = env.SSL_CERT_FILE || HOST_CA_BUNDLES.find((f) => existsSync(f));
  return file ? readFileSync(file, 'utf8') : undefined;
}

async function readSource(source: string): Promise<{ text: string; base: string | undefined }> {
  if (/^https:\/\//i.test(source)) return { text: await fetchDiscoveryFile(source), base: undefined };
  const path = resolve(source);
  return { text: readFileSync(path, 'utf8'), base: dirname(path) };
}

function fetchDiscoveryFile(url: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const ca = hostCABundle();
    const req = request(url, { timeout: 10_000, ...(ca ? { ca } : {}) }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`error trying to fetch discovery kubeconfig over HTTPS from ${url}, received status ${res.statusCode}`));
        return;
      }
      readCapped(res, undefined, 'discovery kubeconfig').then(resolvePromise, reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 10s')));
    req.on('error', (err) => reject(new Error(`Get "${url}": ${err.message}`)));
    req.end();
  });
}

/** kubeadm's GetClusterFromKubeConfig: an unnamed cluster, else the current context's. */
function currentCluster(config: Kubeconfig): Entry {
  const unnamed = config.clusters?.find((c) => c.name === '')?.cluster;
  if (unnamed) return unnamed;
  const name = clusterName(config);
  const cluster = config.clusters?.find((c) => c.name === name)?.cluster;
  if (name === undefined || !cluster)
    throw new Error(
      `the provided kubeconfig file is malformed: failed to get cluster for current context ${config['current-context'] ?? ''}`,
    );
  return cluster;
}

function clusterName(config: Kubeconfig): string | undefined {
  return config.contexts?.find((c) => c.name === config['current-context'])?.context?.cluster;
}

function currentUser(config: Kubeconfig): Entry | undefined {
  const name = config.contexts?.find((c) => c.name === config['current-context'])?.context?.user;
  return config.users?.find((u) => u.name === name)?.user;
}

/** kubeadm's HasAuthenticationCredentials: a token, a client certificate and key, or a plugin. */
export function hasAuthenticationCredentials(user: Entry): boolean {
  const has = (key: string) => user[key] !== undefined && user[key] !== '';
  return (
    has('token') ||
    has('tokenFile') ||
    ((has('client-certificate') || has('client-certificate-data')) && (has('client-key') || has('client-key-data'))) ||
    has('exec') ||
    has('auth-provider')
  );
}

function absolute(path: string, base: string | undefined): string {
  if (isAbsolute(path)) return path;
  if (!base) throw new Error(`the discovery kubeconfig names the relative file ${path}, which has no meaning for a URL`);
  return resolve(base, path);
}

/** Replaces a file reference by the file's content, base64 (EnsureCertificateAuthorityIsEmbedded and its kin). */
function embedFile(entry: Entry, fileKey: string, dataKey: string, base: string | undefined): void {
  const file = entry[fileKey];
  if (typeof file !== 'string' || !file) return;
  entry[dataKey] = readFileSync(absolute(file, base)).toString('base64');
  delete entry[fileKey];
}

/**
 * cluster-info through the discovery kubeconfig, retried until the timeout;
 * undefined when the cluster does not let this client read it (403), which
 * kubeadm takes as proof enough that TLS can be trusted.
 */
async function readClusterInfo(cluster: Entry, user: Entry | undefined, options: FileDiscoveryOptions): Promise<Entry | undefined> {
  const k8s = await import('../client-node.js');
  const kc = new k8s.KubeConfig();
  // The chosen cluster and user under names of its own: the file's may be empty, or have no context.
  kc.loadFromString(
    stringify({
      clusters: [{ name: 'discovery', cluster }],
      users: [{ name: 'discovery', user: user ?? {} }],
      contexts: [{ name: 'discovery', context: { cluster: 'discovery', user: 'discovery' } }],
      'current-context': 'discovery',
    }),
  );
  const server = cluster.server as string;
  const { kubeconfigRequests } = await import('../json-requests.js');
  const json = await kubeconfigRequests(kc);
  const deadline = options.clock.now() + options.timeoutMs;
  for (;;) {
    let last: ClusterError;
    try {
      const map = (await json('GET', '/api/v1/namespaces/kube-public/configmaps/cluster-info')) as { data?: Entry };
      return map.data ?? {};
    } catch (err) {
      last = toClusterError('get the cluster-info ConfigMap', server, err);
      if (last.status === 403) {
        options.onWarning?.(
          `Could not access the cluster-info ConfigMap for refreshing the cluster-info information, but the TLS cert is valid so proceeding...`,
        );
        return undefined;
      }
    }
    if (options.clock.now() + RETRY_INTERVAL_MS > deadline)
      throw new Error(`Abort reading the cluster-info ConfigMap after timeout of ${formatGoDuration(options.timeoutMs)}: ${last.message}`);
    options.onRetry?.(last.message);
    await options.clock.sleep(RETRY_INTERVAL_MS);
  }
}

/** The server and CA of the kubeconfig cluster-info holds, when it holds one that parses. */
function refreshedCluster(data: Entry): { server?: string; caData?: string } | undefined {
  const text = data['kubeconfig'];
  if (typeof text !== 'string' || !text) return undefined;
  try {
    const config = (parse(text) as Kubeconfig | null) ?? {};
    const cluster = config.clusters?.find((c) => c.name === '')?.cluster ?? config.clusters?.[0]?.cluster;
    const server = cluster?.server;
    const caData = cluster?.['certificate-authority-data'];
    return { server: typeof server === 'string' ? server : undefined, caData: typeof caData === 'string' ? caData : undefined };
  } catch {
    return undefined;
  }
}
