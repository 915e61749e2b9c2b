// Certificate signing requests as the kubelet makes them (client-go's
// util/certificate/csr): a new key, a PKCS#10 request, a
// CertificateSigningRequest object, and the wait until it is approved and
// signed. @peculiar/x509 writes the request; node:crypto makes the keys.
import { createHash, createPrivateKey, webcrypto } from 'node:crypto';
import type * as X509 from '@peculiar/x509';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Clock } from '../../../util/clock.js';
import { ClusterError, toClusterError } from '../client.js';

type KeyPair = webcrypto.CryptoKeyPair;

let loaded: Promise<typeof X509> | undefined;

/**
 * @peculiar/x509, loaded when a request is first made or compared: with its
 * dependencies it adds about 15 MiB to a process, which a node that never
 * bootstraps or rotates a certificate (standalone) should not carry.
 */
function x509(): Promise<typeof X509> {
  loaded ??= (async () => {
    await import('reflect-metadata');
    const lib = await import('@peculiar/x509');
    lib.cryptoProvider.set(webcrypto as unknown as Parameters<typeof lib.cryptoProvider.set>[0]);
    return lib;
  })();
  return loaded;
}

/** The signer of a kubelet's client certificate (certificatesv1.KubeAPIServerClientKubeletSignerName). */
export const CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client-kubelet';
/** The signer of a kubelet's serving certificate. */
export const SERVING_SIGNER = 'kubernetes.io/kubelet-serving';
/** The usages of an ECDSA key's client certificate (DefaultKubeletClientGetUsages). */
export const CLIENT_USAGES = ['digital signature', 'client auth'];
/** The usages of an ECDSA key's serving certificate. */
export const SERVING_USAGES = ['digital signature', 'server auth'];

export interface NewRequest {
  /** The new private key (PEM, "EC PRIVATE KEY" as the kubelet writes it). */
  keyPem: string;
  /** The PKCS#10 request (PEM). */
  csrPem: string;
  /** The public key (DER SubjectPublicKeyInfo), for the request's name. */
  publicKeyDer: Buffer;
}

export interface Subject {
  commonName: string;
  organizations: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
}

/** A new P-256 key and a request for `subject` signed with it. */
export async function newRequest(subject: Subject): Promise<NewRequest> {
  const keys = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  return requestFor(subject, keys);
}

/** A request for `subject` signed with an existing key (PEM). */
export async function requestWithKey(subject: Subject, keyPem: string): Promise<NewRequest> {
  const key = createPrivateKey(keyPem);
  const jwk = key.export({ format: 'jwk' });
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256' };
  const privateKey = await webcrypto.subtle.importKey('jwk', jwk, algorithm, true, ['sign']);
  const { d: _d, ...publicJwk } = jwk;
  const publicKey = await webcrypto.subtle.importKey('jwk', { ...publicJwk, key_ops: ['verify'] }, algorithm, true, ['verify']);
  return requestFor(subject, { privateKey, publicKey } as KeyPair);
}

async function requestFor(subject: Subject, keys: KeyPair): Promise<NewRequest> {
  const lib = await x509();
  const names = [...subject.organizations.map((o) => ({ O: [o] })), { CN: [subject.commonName] }];
  const sans: X509.JsonGeneralName[] = [
    ...(subject.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
    ...(subject.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value })),
  ];
  const csr = await lib.Pkcs10CertificateRequestGenerator.create({
    name: names,
    keys,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: sans.length ? [new lib.SubjectAlternativeNameExtension(sans)] : [],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const keyPem = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({ type: 'sec1', format: 'pem' }) as string;
  const publicKeyDer = Buffer.from(await webcrypto.subtle.exportKey('spki', keys.publicKey));
  return { keyPem, csrPem: csr.toString('pem'), publicKeyDer };
}

/**
 * The name the kubelet gives its bootstrap request, so that a restart
 * mid-bootstrap finds its own request again: `node-csr-` and a SHA-512/256
 * digest of the public key, the subject and the usages (bootstrap.go digestedName).
 */
export function digestedName(publicKeyDer: Buffer, subject: Subject, usages: string[]): string {
  const hash = createHash('sha512-256');
  const write = (data: Buffer | string) => hash.update(Buffer.from(data).toString('base64url')).update('|');
  write(publicKeyDer);
  write(subject.commonName);
  for (const o of subject.organizations) write(o);
  for (const u of usages) write(u);
  return `node-csr-${hash.digest('base64url')}`;
}

/** A CertificateSigningRequest as the node reads it back. */
export interface CsrObject {
  metadata: { name: string; uid: string };
  spec: { request: string; signerName: string };
  status?: { certificate?: string; conditions?: { type: string; status?: string; reason?: string; message?: string }[] };
}

/** The CSR calls the node makes: create, and read one back. */
export interface CsrApi {
  create(body: object): Promise<CsrObject>;
  get(name: string): Promise<CsrObject>;
}

/** The CSR API of the cluster this kubeconfig reaches; failures are ClusterErrors. */
export async function csrApi(kc: KubeConfig): Promise<CsrApi> {
  const { kubeconfigRequests } = await import('../json-requests.js');
  const json = await kubeconfigRequests(kc);
  const server = kc.getCurrentCluster()?.server ?? '';
  const collection = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
  const call = async (what: string, request: () => Promise<unknown>): Promise<CsrObject> => {
    try {
      return (await request()) as CsrObject;
    } catch (err) {
      throw toClusterError(what, server, err);
    }
  };
  return {
    create: (body) => call('create certificatesigningrequest', () => json('POST', collection, { body })),
    get: (name) => call(`get certificatesigningrequest ${name}`, () => json('GET', `${collection}/${encodeURIComponent(name)}`)),
  };
}

export interface CertificateRequest {
  /** A fixed name (the bootstrap's digest); none: the apiserver names it csr-XXXXX. */
  name?: string;
  csrPem: string;
  signerName: string;
  usages: string[];
}

/** Whether a stored request (base64 PEM, as the API has it) asks for the same subject and key as `csrPem`. */
async function sameRequest(stored: string, csrPem: string): Promise<boolean> {
  const lib = await x509();
  try {
    const a = new lib.Pkcs10CertificateRequest(Buffer.from(stored, 'base64').toString('utf8'));
    const b = new lib.Pkcs10CertificateRequest(csrPem);
    return a.subject === b.subject && Buffer.from(a.publicKey.rawData).equals(Buffer.from(b.publicKey.rawData));
  } catch {
    return false;
  }
}

/**
 * Creates the request (RequestCertificate): a fixed name already taken by the
 * same request is reused. Returns its name and uid.
 */
export async function requestCertificate(api: CsrApi, request: CertificateRequest): Promise<{ name: string; uid: string }> {
  const body = {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: request.name ? { name: request.name } : { generateName: 'csr-' },
    spec: { request: Buffer.from(request.csrPem).toString('base64'), signerName: request.signerName, usages: request.usages },
  };
  try {
    const created = await api.create(body);
    return { name: created.metadata.name, uid: created.metadata.uid };
  } catch (err) {
    if (!ClusterError.conflict(err) || !request.name) throw explainCreate(err);
    const existing = await api.get(request.name);
    if (!(await sameRequest(existing.spec.request, request.csrPem)) || existing.spec.signerName !== request.signerName)
      throw new Error(`retrieved csr is not compatible: csr ${request.name} exists with another subject, key or signer`, { cause: err });
    return { name: existing.metadata.name, uid: existing.metadata.uid };
  }
}

function explainCreate(err: unknown): Error {
  if (!(err instanceof ClusterError)) return err as Error;
  if (err.status === 401)
    return new Error(
      `the apiserver refused the bootstrap credentials (401 Unauthorized): the bootstrap token expired or was deleted; make a new one on the control plane (kubeadm token create --print-join-command)`,
    );
  if (err.status === 403)
    return new Error(
      `these credentials may not create CertificateSigningRequests (${err.message}); bind the ClusterRole system:node-bootstrapper to the bootstrap token's group, as kubeadm's ClusterRoleBinding kubeadm:kubelet-bootstrap binds it to system:bootstrappers:kubeadm:default-node-token`,
    );
  return new Error(`cannot create a certificate signing request: ${err.message}`);
}

export interface WaitOptions {
  timeoutMs: number;
  clock: Clock;
  /** How often the request is read again. */
  pollMs?: number;
  signal?: AbortSignal;
}

/**
 * The signed certificate (PEM) once the request is approved and signed
 * (WaitForCertificate, by polling); its texts for a denied or failed request,
 * and on timeout a message naming what did not happen.
 */
export async function waitForCertificate(api: CsrApi, name: string, uid: string, options: WaitOptions): Promise<string> {
  const deadline = options.clock.now() + options.timeoutMs;
  let csr: CsrObject | undefined;
  for (;;) {
    try {
      csr = await api.get(name);
    } catch (err) {
      if (ClusterError.notFound(err)) throw new Error(`csr "${name}" was deleted`, { cause: err });
      // an apiserver that does not answer: try again until the deadline
    }
    if (csr) {
      if (csr.metadata.uid !== uid) throw new Error(`csr "${name}" changed UIDs`);
      for (const c of csr.status?.conditions ?? []) {
        if (c.type === 'Denied' && c.status !== 'False')
          throw new Error(`certificate signing request is denied, reason: ${c.reason ?? ''}, message: ${c.message ?? ''}`);
        if (c.type === 'Failed' && c.status !== 'False')
          throw new Error(`certificate signing request failed, reason: ${c.reason ?? ''}, message: ${c.message ?? ''}`);
      }
      if (csr.status?.certificate) return Buffer.from(csr.status.certificate, 'base64').toString('utf8');
    }
    if (options.clock.now() >= deadline) throw new Error(notSigned(name, csr, options.timeoutMs));
    await options.clock.sleep(options.pollMs ?? 500, options.signal);
  }
}

function notSigned(name: string, csr: CsrObject | undefined, timeoutMs: number): string {
  const within = `within ${Math.round(timeoutMs / 1000)}s`;
  const approved = csr?.status?.conditions?.some((c) => c.type === 'Approved' && c.status !== 'False');
  if (approved)
    return `certificate signing request ${name} was approved but not signed ${within}: no signer for ${csr!.spec.signerName} is running (kube-controller-manager's csrsigning controller, with --cluster-signing-cert-file and --cluster-signing-key-file)`;
  return `certificate signing request ${name} was not approved ${within}: nothing approved it. kube-controller-manager's csrapproving controller approves a node's request when the requester may create certificatesigningrequests/nodeclient (kubeadm binds ClusterRole system:certificates.k8s.io:certificatesigningrequests:nodeclient to group system:bootstrappers:kubeadm:default-node-token, and .../selfnodeclient to system:nodes for renewals); or approve it by hand: kubectl certificate approve ${name}`;
}
