// The node's client credentials towards its cluster: the TLS bootstrap
// (--bootstrap-kubeconfig), the certificate store its connections read, and
// the renewal of the client certificate (rotateCertificates).
import type { KubeConfig } from '@kubernetes/client-node';
import { CertificateManager, type CertificateManagerDeps } from '../engine/cluster/bootstrap/cert-manager.js';
import { CertificateStore } from '../engine/cluster/bootstrap/cert-store.js';
import { CLIENT_SIGNER, CLIENT_USAGES, csrApi, SERVING_SIGNER, SERVING_USAGES } from '../engine/cluster/bootstrap/csr.js';
import { clientStore, kubeconfigClientCert, loadClientCert, nodeClientSubject } from '../engine/cluster/bootstrap/tls-bootstrap.js';
import { certificatesOf } from '../engine/cluster/bootstrap/token.js';
import { loadKubeConfig } from '../engine/cluster/client.js';
import type { KubeletConfiguration } from '../engine/config/kubelet-config.js';
import type { Kubelet } from '../engine/kubelet.js';
import { keepingAlive, type Clock } from '../util/clock.js';
import { UserError } from '../util/user-error.js';

/** How long the TLS bootstrap waits for its request to be approved and signed (the kubelet's hour). */
const BOOTSTRAP_WAIT_MS = 3_600_000;

/**
 * Before the node connects: with --bootstrap-kubeconfig, a --kubeconfig that
 * is missing or expired is made by the TLS bootstrap. A failure is a usage
 * error that says what is missing.
 */
export async function bootstrapCredentials(config: KubeletConfiguration, clock: Clock, log: (message: string) => void): Promise<void> {
  if (!config.kubeconfig || !config.bootstrapKubeconfig || config.kubeconfig === 'default') return;
  try {
    await keepingAlive(
      loadClientCert({
        kubeconfigPath: config.kubeconfig,
        bootstrapKubeconfigPath: config.bootstrapKubeconfig,
        certDir: config.certDirectory,
        nodeName: config.nodeName,
        timeoutMs: BOOTSTRAP_WAIT_MS,
        clock,
        log,
      }),
    );
  } catch (err) {
    throw new UserError('usage', `TLS bootstrap with --bootstrap-kubeconfig ${config.bootstrapKubeconfig}: ${(err as Error).message}`);
  }
}

/**
 * The kubeconfig the node connects with. With rotateCertificates and a client
 * certificate, its user's certificate and key are the store's current pair,
 * read on each new connection, so a renewal takes effect without a restart.
 * The kubeconfig's own pair seeds the store when the store has none that is
 * valid, or one that expires sooner (an admin gave the node a new one).
 */
export async function nodeKubeConfig(config: KubeletConfiguration, clock: Clock): Promise<{ kc: KubeConfig; rotates: boolean }> {
  const path = config.kubeconfig!;
  const kc = await loadKubeConfig(path);
  if (!config.rotateCertificates || path === 'default') return { kc, rotates: false };
  const pair = kubeconfigClientCert(path);
  if (!pair) return { kc, rotates: false };
  const store = clientStore(config.certDirectory);
  const stored = store.current();
  const seed = certificatesOf(pair.certPem)[0];
  const storedValid = stored && Date.parse(stored.cert.validTo) > clock.now();
  if (
    !storedValid ||
    (seed && stored.cert.fingerprint256 !== seed.fingerprint256 && Date.parse(seed.validTo) > Date.parse(stored.cert.validTo))
  )
    store.update(pair.certPem, pair.keyPem, new Date(clock.now()));
  useStorePair(kc, store.currentPath);
  return { kc, rotates: true };
}

function useStorePair(kc: KubeConfig, pairPath: string): void {
  const current = kc.getCurrentUser()!;
  const users = kc.users.map((u) =>
    u.name === current.name ? { ...u, certFile: pairPath, keyFile: pairPath, certData: undefined, keyData: undefined } : u,
  );
  (kc as { users: typeof users }).users = users;
}

/**
 * Renews the client certificate through the cluster; events and metrics on
 * the kubelet's. On each renewal the open connections are closed
 * (`closeConnections`), as the kubelet's transport does, so that none goes
 * on with the old certificate.
 */
export function startClientRotation(kubelet: Kubelet, config: KubeletConfiguration, closeConnections: () => number): CertificateManager {
  return startRotation(
    kubelet,
    config,
    'client',
    {
      store: clientStore(config.certDirectory),
      subject: nodeClientSubject(config.nodeName),
      signerName: CLIENT_SIGNER,
      usages: CLIENT_USAGES,
    },
    closeConnections,
  );
}

/** The store of the kubelet API's cluster-signed serving certificates. */
export const servingStore = (config: KubeletConfiguration) => new CertificateStore(config.certDirectory, 'kubelet-server');

/** The serving pair the cluster signed, while it is valid (serverTLSBootstrap). */
export function signedServingPair(config: KubeletConfiguration, clock: Clock): string | undefined {
  const current = servingStore(config).current();
  return current && Date.parse(current.cert.validTo) > clock.now() ? current.pem : undefined;
}

/**
 * serverTLSBootstrap: the kubelet API's certificate requested from the
 * cluster (signer kubernetes.io/kubelet-serving, the node's name and address
 * as SANs), served once signed and renewed as the client one is; until an
 * admin approves it, the self-signed one is served.
 */
export function startServingRotation(kubelet: Kubelet, config: KubeletConfiguration, use: (pair: string) => void): CertificateManager {
  return startRotation(
    kubelet,
    config,
    'server',
    {
      store: servingStore(config),
      subject: { ...nodeClientSubject(config.nodeName), dnsNames: [config.nodeName], ipAddresses: [kubelet.hostIP] },
      signerName: SERVING_SIGNER,
      usages: SERVING_USAGES,
    },
    (pair) => {
      use(pair);
      return undefined;
    },
  );
}

function startRotation(
  kubelet: Kubelet,
  config: KubeletConfiguration,
  kind: 'client' | 'server',
  what: Pick<CertificateManagerDeps, 'store' | 'subject' | 'signerName' | 'usages'>,
  /** Puts the new pair to use; returns how many connections it closed, if it closes any. */
  use: (pair: string) => number | undefined,
): CertificateManager {
  const named = kind === 'client' ? 'client certificate' : 'serving certificate';
  const manager = new CertificateManager({
    ...what,
    kind,
    clock: kubelet.clock,
    registry: kubelet.metrics.registry,
    api: async () => csrApi((await nodeKubeConfig(config, kubelet.clock)).kc),
    onRotated: (cert) => {
      const subject = cert.subject.replace(/\n/g, ', ');
      const closedConnections = use(what.store.current()!.pem);
      const closed = closedConnections === undefined ? '' : `; ${closedConnections} open connection(s) closed to start using it`;
      kubelet.events.emit({
        type: 'CertificateRotated',
        pod: '',
        uid: '',
        message: `${named} issued: ${subject}, valid until ${cert.validTo}${closed}`,
        detail: { kind, subject, notAfter: cert.validTo, ...(closedConnections === undefined ? {} : { closedConnections }) },
      });
    },
    onFailure: (message) =>
      kubelet.events.emit({
        type: 'CertificateRenewFailed',
        pod: '',
        uid: '',
        message: `${named} request failed: ${message}`,
        detail: { kind },
      }),
  });
  manager.start();
  return manager;
}
