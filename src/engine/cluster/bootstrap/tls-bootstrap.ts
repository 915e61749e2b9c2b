// The kubelet's TLS bootstrap (pkg/kubelet/certificate/bootstrap
// LoadClientCert): when --kubeconfig is missing or its certificate expired,
// use --bootstrap-kubeconfig to ask the cluster for a client certificate
// through a CertificateSigningRequest, keep it in the certificate store, and
// write a kubeconfig that names the store's current pair.
import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import type { Clock } from '../../../util/clock.js';
import { makeDirectory, writeFileAtomic } from '../../../util/atomic-file.js';
import { CertificateStore } from './cert-store.js';
import {
  CLIENT_SIGNER,
  CLIENT_USAGES,
  csrApi,
  digestedName,
  requestCertificate,
  requestWithKey,
  newRequest,
  waitForCertificate,
} from './csr.js';
import { certificatesOf } from './token.js';

/** The store of a node's client certificates under its certificate directory. */
export const clientStore = (certDir: string) => new CertificateStore(certDir, 'kubelet-client');

/** The subject of a node's client certificate. */
export const nodeClientSubject = (nodeName: string) => ({ commonName: `system:node:${nodeName}`, organizations: ['system:nodes'] });

export interface BootstrapOptions {
  kubeconfigPath: string;
  bootstrapKubeconfigPath: string;
  certDir: string;
  nodeName: string;
  /** How long to wait for the request to be approved and signed. */
  timeoutMs: number;
  clock: Clock;
  log: (message: string) => void;
}

interface KubeconfigFile {
  clusters?: { name: string; cluster: Record<string, unknown> }[];
  users?: { name: string; user: Record<string, unknown> }[];
  contexts?: { name: string; context: { cluster: string; user: string } }[];
  'current-context'?: string;
}

function readKubeconfig(path: string): KubeconfigFile {
  return (parse(readFileSync(path, 'utf8')) as KubeconfigFile | null) ?? {};
}

/** The current context's cluster and user, with relative file paths made absolute. */
function currentEntries(path: string): { cluster: Record<string, unknown>; user: Record<string, unknown> } {
  const config = readKubeconfig(path);
  const context = config.contexts?.find((c) => c.name === config['current-context'])?.context;
  const cluster = config.clusters?.find((c) => c.name === context?.cluster)?.cluster;
  const user = config.users?.find((u) => u.name === context?.user)?.user;
  if (!cluster || !user) throw new Error(`${path}: no current context with a cluster and a user`);
  const absolute = (value: unknown) => (typeof value === 'string' && !isAbsolute(value) ? resolve(dirname(path), value) : value);
  for (const key of ['certificate-authority']) if (cluster[key]) cluster[key] = absolute(cluster[key]);
  for (const key of ['client-certificate', 'client-key', 'tokenFile']) if (user[key]) user[key] = absolute(user[key]);
  return { cluster, user };
}

/** The client certificate a kubeconfig's current user shows, if it has one that can be read. */
export function kubeconfigClientCert(path: string): { certPem: string; keyPem: string } | undefined {
  try {
    const { user } = currentEntries(path);
    const read = (file: unknown, data: unknown) =>
      typeof data === 'string'
        ? Buffer.from(data, 'base64').toString('utf8')
        : typeof file === 'string'
          ? readFileSync(file, 'utf8')
          : undefined;
    const certPem = read(user['client-certificate'], user['client-certificate-data']);
    const keyPem = read(user['client-key'], user['client-key-data']);
    return certPem && keyPem ? { certPem, keyPem } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the kubeconfig has a client certificate that has not expired (isClientConfigStillValid). */
export function clientConfigStillValid(path: string, now: number): boolean {
  if (!existsSync(path)) return false;
  const pair = kubeconfigClientCert(path);
  if (!pair) return false;
  const cert = certificatesOf(pair.certPem)[0];
  return cert !== undefined && Date.parse(cert.validTo) > now && Date.parse(cert.validFrom) <= now + 60_000;
}

/**
 * Writes the node's kubeconfig as the kubelet does after bootstrapping: the
 * bootstrap kubeconfig's cluster, and the store's current pair as the user's
 * certificate and key (read again on each new connection, so a rotated pair
 * is used without a restart).
 */
export function writeNodeKubeconfig(kubeconfigPath: string, clusterFrom: string, pairPath: string): void {
  const { cluster } = currentEntries(clusterFrom);
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'default-cluster', cluster }],
    contexts: [{ name: 'default-context', context: { cluster: 'default-cluster', namespace: 'default', user: 'default-auth' } }],
    'current-context': 'default-context',
    users: [{ name: 'default-auth', user: { 'client-certificate': pairPath, 'client-key': pairPath } }],
  };
  makeDirectory(dirname(kubeconfigPath), 0o755);
  writeFileAtomic(kubeconfigPath, stringify(config), 0o600);
}

/**
 * LoadClientCert: nothing to do while the kubeconfig's certificate is valid;
 * else a still valid pair in the store is reused; else a key is made (kept as
 * kubelet-client.key.tmp, 0600, so a restart asks again with the same key and
 * finds its own request) and a certificate requested with the bootstrap
 * credentials. Says what it did.
 */
export async function loadClientCert(options: BootstrapOptions): Promise<'valid' | 'reused' | 'bootstrapped'> {
  const { kubeconfigPath, bootstrapKubeconfigPath, certDir, nodeName, clock } = options;
  if (clientConfigStillValid(kubeconfigPath, clock.now())) return 'valid';
  if (!existsSync(bootstrapKubeconfigPath))
    throw new Error(`unable to load bootstrap kubeconfig: ${bootstrapKubeconfigPath}: no such file`);
  const store = clientStore(certDir);
  const stored = store.current();
  if (stored && Date.parse(stored.cert.validTo) > clock.now()) {
    options.log(`the current client certificate is still valid (until ${stored.cert.validTo}); writing ${kubeconfigPath}`);
    writeNodeKubeconfig(kubeconfigPath, bootstrapKubeconfigPath, store.currentPath);
    return 'reused';
  }
  makeDirectory(certDir, 0o755);
  const keyPath = join(certDir, 'kubelet-client.key.tmp');
  const subject = nodeClientSubject(nodeName);
  const request = existsSync(keyPath) ? await requestWithKey(subject, readFileSync(keyPath, 'utf8')) : await newRequest(subject);
  if (!existsSync(keyPath)) writeFileAtomic(keyPath, request.keyPem, 0o600);
  const k8s = await import('../client-node.js');
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(bootstrapKubeconfigPath);
  const api = await csrApi(kc);
  const name = digestedName(request.publicKeyDer, subject, CLIENT_USAGES);
  const created = await requestCertificate(api, { name, csrPem: request.csrPem, signerName: CLIENT_SIGNER, usages: CLIENT_USAGES });
  options.log(`certificate signing request ${created.name} created (signer ${CLIENT_SIGNER}); waiting for it to be approved and signed`);
  const certPem = await waitForCertificate(api, created.name, created.uid, { timeoutMs: options.timeoutMs, clock });
  const cert = store.update(certPem, request.keyPem);
  rmSync(keyPath, { force: true });
  writeNodeKubeconfig(kubeconfigPath, bootstrapKubeconfigPath, store.currentPath);
  options.log(`client certificate ${subjectOf(cert)} issued, valid until ${cert.validTo}; wrote ${kubeconfigPath}`);
  return 'bootstrapped';
}

const subjectOf = (cert: X509Certificate) => cert.subject.replace(/\n/g, ', ');
