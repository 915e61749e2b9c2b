// Bootstrap tokens, CSRs and certificate renewal, one component at a time:
// fixtures computed by Go (digestedName) and openssl (the CA pin), a fake
// CSR API, and the fake clock.
import 'reflect-metadata';
import { createHmac, webcrypto, X509Certificate } from 'node:crypto';
import { lstatSync, mkdtempSync, readlinkSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import {
  CertificateManager,
  rotationDeadline,
  type CertificateManagerDeps,
} from '../../../../src/engine/cluster/bootstrap/cert-manager.js';
import { CertificateStore } from '../../../../src/engine/cluster/bootstrap/cert-store.js';
import {
  CLIENT_SIGNER,
  CLIENT_USAGES,
  digestedName,
  requestCertificate,
  requestWithKey,
  waitForCertificate,
  type CsrApi,
  type CsrObject,
} from '../../../../src/engine/cluster/bootstrap/csr.js';
import { caCertHash, detachedSignatureValid, parseBootstrapToken, parsePins } from '../../../../src/engine/cluster/bootstrap/token.js';
import { FakeClock } from '../../../../src/util/clock.js';
import { ClusterError } from '../../../../src/engine/cluster/client.js';

const KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgpNj6NWS/iXXD7NhH
EuW6PXk+2eD5AYaVwhRH5eE0f6ihRANCAATZnuMf3Fk7RKPndsrG56K9N6A5S2sU
XeTohsBIZoH1FQU0USXyPoWrviEu3jUwuRQLDogAewGm8lZn3li6oLPv
-----END PRIVATE KEY-----
`;
const CA = `-----BEGIN CERTIFICATE-----
MIIBgTCCASegAwIBAgIUZrvIg8Ajk5AWosVBqptIJS9LPIowCgYIKoZIzj0EAwIw
FTETMBEGA1UEAwwKZml4dHVyZS1jYTAgFw0yNjEyMDIxMTQxNTRaGA8yMTI2MTEw
ODExNDE1NFowFTETMBEGA1UEAwwKZml4dHVyZS1jYTBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABNme4x/cWTtEo+d2ysbnor03oDlLaxRd5OiGwEhmgfUVBTRRJfI+
hau+IS7eNTC5FAsOiAB7AabyVmfeWLqgs++jUzBRMB0GA1UdDgQWBBSlAqh49VS1
3wvVQZhNyBcD5fIkZTAfBgNVHSMEGDAWgBSlAqh49VS13wvVQZhNyBcD5fIkZTAP
BgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gAMEUCIDYxnhyyyzgmlefSTWbV
XzFbJNd5FGZEVHZMGN+Grz2SAiEA3PmtFpafFg2+tFSqwsyblgibgpmaXGoBQO4X
ONobb30=
-----END CERTIFICATE-----
`;
const SUBJECT = { commonName: 'system:node:kn-1', organizations: ['system:nodes'] };

describe('bootstrap tokens and discovery checks', () => {
  it('reads a token as id and secret, and refuses other forms with kubeadm’s text', () => {
    expect(parseBootstrapToken('abcdef.0123456789abcdef')).toEqual({ id: 'abcdef', secret: '0123456789abcdef' });
    expect(() => parseBootstrapToken('ABCDEF.0123456789abcdef')).toThrow(
      'the bootstrap token "ABCDEF.0123456789abcdef" was not of the form "\\A([a-z0-9]{6})\\.([a-z0-9]{16})\\z"',
    );
    expect(() => parseBootstrapToken('abcdef0123456789abcdef')).toThrow(/was not of the form/);
  });

  it('accepts the detached HS256 signature of the token, and nothing else', () => {
    const token = parseBootstrapToken('abcdef.0123456789abcdef');
    const content = 'apiVersion: v1\nkind: Config\n';
    const sign = (header: object, secret: string, body = content) => {
      const h = Buffer.from(JSON.stringify(header)).toString('base64url');
      const mac = createHmac('sha256', secret)
        .update(`${h}.${Buffer.from(body).toString('base64url')}`)
        .digest('base64url');
      return `${h}..${mac}`;
    };
    expect(detachedSignatureValid(sign({ alg: 'HS256', kid: 'abcdef' }, token.secret), content, token)).toBe(true);
    expect(detachedSignatureValid(sign({ alg: 'HS256', kid: 'abcdef' }, 'ffffffffffffffff'), content, token)).toBe(false);
    expect(detachedSignatureValid(sign({ alg: 'HS256', kid: 'zzzzzz' }, token.secret), content, token)).toBe(false);
    expect(detachedSignatureValid(sign({ alg: 'none', kid: 'abcdef' }, token.secret), content, token)).toBe(false);
    expect(detachedSignatureValid(sign({ alg: 'HS256', kid: 'abcdef' }, token.secret, 'other'), content, token)).toBe(false);
    expect(detachedSignatureValid('not-a-jws', content, token)).toBe(false);
  });

  it('pins a CA by the SHA-256 of its public key, as openssl and kubeadm compute it', () => {
    expect(caCertHash(new X509Certificate(CA))).toBe('sha256:bc8a7f432ad241438ef4bfd9919f4c1bb38e1a310ca8a208581462e17aee709d');
  });

  it.each([
    ['SHA256:BC8A7F432AD241438EF4BFD9919F4C1BB38E1A310CA8A208581462E17AEE709D', undefined],
    ['bc8a7f43', 'invalid hash, expected "format:hex-value". Known format(s) are: sha256'],
    ['md5:bc8a', 'unknown hash format "md5". Known format(s) are: sha256'],
    ['sha256:bc8a', 'invalid hash "sha256:bc8a", expected a 32 byte SHA-256 hash, found 2 bytes'],
    [`sha256:${'z'.repeat(64)}`, 'could not decode SHA-256 from hex'],
  ])('reads the pin %s as kubeadm does', (pin, error) => {
    if (error) expect(() => parsePins([pin])).toThrow(`invalid discovery token CA certificate hash: `);
    if (error) expect(() => parsePins([pin])).toThrow(error);
    else expect(parsePins([pin])).toEqual(['sha256:bc8a7f432ad241438ef4bfd9919f4c1bb38e1a310ca8a208581462e17aee709d']);
  });
});

/** A CSR API over one map, whose requests a test approves, denies and signs. */
function fakeCsrApi() {
  const objects = new Map<string, CsrObject>();
  let n = 0;
  const api: CsrApi & { objects: typeof objects; creates: number; failCreate?: ClusterError } = {
    objects,
    creates: 0,
    async create(body) {
      api.creates++;
      if (api.failCreate) throw api.failCreate;
      const b = body as { metadata: { name?: string }; spec: CsrObject['spec'] };
      const name = b.metadata.name ?? `csr-${++n}`;
      if (objects.has(name)) throw new ClusterError(409, 'AlreadyExists', `certificatesigningrequests "${name}" already exists`);
      const object = { metadata: { name, uid: `uid-${name}` }, spec: b.spec, status: {} };
      objects.set(name, object);
      return structuredClone(object);
    },
    async get(name) {
      const object = objects.get(name);
      if (!object) throw new ClusterError(404, 'NotFound', 'not found');
      return structuredClone(object);
    },
  };
  return api;
}

async function certificate(notBefore: number, lifetimeMs: number, cn = 'system:node:kn-1'): Promise<string> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${cn}, O=system:nodes`,
    notBefore: new Date(notBefore),
    notAfter: new Date(notBefore + lifetimeMs),
    keys: keys as never,
    signingAlgorithm: alg,
  });
  return cert.toString('pem');
}

describe('certificate signing requests', () => {
  it('names the bootstrap request as the kubelet does (digest computed by Go)', async () => {
    const request = await requestWithKey(SUBJECT, KEY);
    expect(digestedName(request.publicKeyDer, SUBJECT, CLIENT_USAGES)).toBe('node-csr-Na7v6Z8m1M6vzLObzqTsmAfmExlodf7-iEFlfKc8TM8');
  });

  it('reuses its own request after a restart, and refuses another one under the name', async () => {
    const api = fakeCsrApi();
    const first = await requestWithKey(SUBJECT, KEY);
    const name = digestedName(first.publicKeyDer, SUBJECT, CLIENT_USAGES);
    const created = await requestCertificate(api, { name, csrPem: first.csrPem, signerName: CLIENT_SIGNER, usages: CLIENT_USAGES });
    const again = await requestWithKey(SUBJECT, KEY);
    expect(again.csrPem).not.toBe(first.csrPem);
    expect(await requestCertificate(api, { name, csrPem: again.csrPem, signerName: CLIENT_SIGNER, usages: CLIENT_USAGES })).toEqual(
      created,
    );
    const other = await requestWithKey({ ...SUBJECT, commonName: 'system:node:kn-2' }, KEY);
    await expect(requestCertificate(api, { name, csrPem: other.csrPem, signerName: CLIENT_SIGNER, usages: CLIENT_USAGES })).rejects.toThrow(
      /retrieved csr is not compatible/,
    );
  });

  it('says what is missing when the apiserver refuses the request', async () => {
    const api = fakeCsrApi();
    const { csrPem } = await requestWithKey(SUBJECT, KEY);
    const request = { csrPem, signerName: CLIENT_SIGNER, usages: CLIENT_USAGES };
    api.failCreate = new ClusterError(401, 'Unauthorized', 'create certificatesigningrequest: 401 Unauthorized: Unauthorized');
    await expect(requestCertificate(api, request)).rejects.toThrow(/bootstrap token expired or was deleted/);
    api.failCreate = new ClusterError(
      403,
      'Forbidden',
      'create certificatesigningrequest: 403 Forbidden: User "system:bootstrap:abcdef" cannot create resource',
    );
    await expect(requestCertificate(api, request)).rejects.toThrow(/bind the ClusterRole system:node-bootstrapper/);
  });

  it('waits for approval and signature; denied, failed and unanswered requests are named', async () => {
    const clock = new FakeClock();
    const api = fakeCsrApi();
    const { csrPem } = await requestWithKey(SUBJECT, KEY);
    const request = { csrPem, signerName: CLIENT_SIGNER, usages: CLIENT_USAGES };
    const wait = async (name: string) => {
      const settled = waitForCertificate(api, name, `uid-${name}`, { timeoutMs: 60_000, clock, pollMs: 1_000 }).then(
        (cert) => ({ cert }),
        (err: Error) => ({ error: err.message }),
      );
      return settled;
    };
    const pem = await certificate(clock.now(), 3_600_000);

    const signed = await requestCertificate(api, request);
    const signedWait = wait(signed.name);
    await clock.advance(5_000);
    api.objects.get(signed.name)!.status = {
      conditions: [{ type: 'Approved', status: 'True' }],
      certificate: Buffer.from(pem).toString('base64'),
    };
    await clock.advance(1_000);
    expect(await signedWait).toEqual({ cert: pem });

    const denied = await requestCertificate(api, request);
    const deniedWait = wait(denied.name);
    api.objects.get(denied.name)!.status = { conditions: [{ type: 'Denied', status: 'True', reason: 'NoWay', message: 'not you' }] };
    await clock.advance(1_000);
    expect(await deniedWait).toEqual({ error: 'certificate signing request is denied, reason: NoWay, message: not you' });

    const pending = await requestCertificate(api, request);
    const pendingWait = wait(pending.name);
    await clock.advance(61_000);
    expect(((await pendingWait) as { error: string }).error).toMatch(
      new RegExp(
        `^certificate signing request ${pending.name} was not approved within 60s: nothing approved it.*kubectl certificate approve ${pending.name}$`,
      ),
    );

    const unsigned = await requestCertificate(api, request);
    const unsignedWait = wait(unsigned.name);
    api.objects.get(unsigned.name)!.status = { conditions: [{ type: 'Approved', status: 'True' }] };
    await clock.advance(61_000);
    expect(((await unsignedWait) as { error: string }).error).toMatch(
      /was approved but not signed within 60s: no signer for kubernetes.io\/kube-apiserver-client-kubelet/,
    );
  });
});

/** A client certificate manager over the store, the fake CSR API and the fake clock. */
function clientManager(store: CertificateStore, api: CsrApi, clock: FakeClock, more: Partial<CertificateManagerDeps>): CertificateManager {
  return new CertificateManager({
    store,
    subject: SUBJECT,
    signerName: CLIENT_SIGNER,
    usages: CLIENT_USAGES,
    api: async () => api,
    clock,
    kind: 'client',
    ...more,
  });
}

describe('the certificate store and the certificate manager', () => {
  it('writes each pair whole (0600) and switches the current symlink', async () => {
    const store = new CertificateStore(mkdtempSync(join(tmpdir(), 'knode-pki-')), 'kubelet-client');
    expect(store.current()).toBeUndefined();
    const first = await certificate(Date.UTC(2026, 0, 1), 3_600_000);
    store.update(first, KEY, new Date(2026, 0, 1, 10, 0, 0));
    expect(readlinkSync(store.currentPath)).toBe('kubelet-client-2026-01-01-10-00-00.pem');
    expect(statSync(join(store.dir, 'kubelet-client-2026-01-01-10-00-00.pem')).mode & 0o777).toBe(0o600);
    const second = await certificate(Date.UTC(2026, 0, 1), 7_200_000);
    store.update(second, KEY, new Date(2026, 0, 1, 11, 0, 0));
    expect(lstatSync(store.currentPath).isSymbolicLink()).toBe(true);
    expect(readlinkSync(store.currentPath)).toBe('kubelet-client-2026-01-01-11-00-00.pem');
    expect(store.current()!.cert.toString()).toBe(new X509Certificate(second).toString());
    expect(store.current()!.pem).toContain('PRIVATE KEY');
  });

  it('renews at 70–90 % of the lifetime, backs off on failure and counts the errors', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const store = new CertificateStore(mkdtempSync(join(tmpdir(), 'knode-pki-')), 'kubelet-client');
    const start = clock.now();
    store.update(await certificate(start, 100_000), KEY, new Date(start));
    expect(rotationDeadline(store.current()!.cert, 0)).toBe(start + 70_000);
    expect(rotationDeadline(store.current()!.cert, 0.999)).toBeCloseTo(start + 89_980, -1);
    const api = fakeCsrApi();
    const registry = new Registry();
    const rotated: string[] = [];
    const failures: string[] = [];
    const manager = clientManager(store, api, clock, {
      random: () => 0.5,
      registry,
      waitTimeoutMs: 10_000,
      onRotated: (cert) => rotated.push(cert.validTo),
      onFailure: (message) => failures.push(message),
    });
    manager.start();
    await clock.advance(79_000);
    expect(api.creates).toBe(0);
    // At 80 s: a request that nothing approves fails after the wait, then again after 2 s.
    // The key is made by webcrypto, off the fake clock: wait for the request it leads to.
    await clock.advance(1_000);
    await vi.waitFor(() => expect(api.creates).toBe(1));
    await clock.advance(10_500);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/was not approved within 10s/);
    expect(await registry.getSingleMetricAsString('kubelet_certificate_manager_client_expiration_renew_errors')).toMatch(/ 1$/m);
    await clock.advance(2_000);
    await vi.waitFor(() => expect(api.creates).toBe(2));
    // This one is signed: the store's current pair changes, and the next deadline follows the new certificate.
    const renewed = await certificate(clock.now(), 100_000);
    const name = [...api.objects.keys()].at(-1)!;
    api.objects.get(name)!.status = {
      conditions: [{ type: 'Approved', status: 'True' }],
      certificate: Buffer.from(renewed).toString('base64'),
    };
    await clock.advance(500);
    expect(rotated).toEqual([new X509Certificate(renewed).validTo]);
    expect(store.current()!.cert.validTo).toBe(new X509Certificate(renewed).validTo);
    const ttl = await registry.getSingleMetricAsString('kubelet_certificate_manager_client_ttl_seconds');
    expect(Number(/ ([\d.]+)$/m.exec(ttl)![1])).toBeGreaterThan(90);
    manager.stop();
    expect(clock.pending).toBe(0);
  });

  it('waits out a year-long certificate in steps, instead of a timer that would overflow and fire at once', async () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 1));
    const store = new CertificateStore(mkdtempSync(join(tmpdir(), 'knode-pki-')), 'kubelet-client');
    const year = 365 * 86_400_000;
    store.update(await certificate(clock.now(), year), KEY, new Date(clock.now()));
    const api = fakeCsrApi();
    const manager = clientManager(store, api, clock, { random: () => 0 });
    manager.start();
    await clock.advance(0.69 * year);
    expect(api.creates).toBe(0);
    expect(clock.pending).toBe(1);
    await clock.advance(0.02 * year);
    await vi.waitFor(() => expect(api.creates).toBe(1));
    manager.stop();
  });
});
