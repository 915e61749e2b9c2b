// kubeadm's file discovery, one component: the kubeconfig's checks, its
// embedding of files, and the cluster-info retry on the fake clock. The real
// path (a discovery file over https, then a join) is in test/e2e/cluster.test.ts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { checkDiscovery, type JoinDiscovery } from '../../../../src/cli/join-discovery.js';
import { discoverFromFile, hasAuthenticationCredentials, hostCABundle } from '../../../../src/engine/cluster/bootstrap/file-discovery.js';
import { FakeClock } from '../../../../src/util/clock.js';

function kubeconfigFile(config: object): string {
  const dir = mkdtempSync(join(tmpdir(), 'knode-discovery-'));
  writeFileSync(join(dir, 'ca.crt'), 'CA PEM\n');
  writeFileSync(join(dir, 'token'), 'abcdef.0123456789abcdef\n');
  const file = join(dir, 'discovery.conf');
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'Config', ...config }));
  return file;
}

/** A server that refuses connections: nothing listens on port 1 here. */
const refused = 'https://127.0.0.1:1';

describe('file discovery (kubeadm join --discovery-file)', () => {
  it('refuses a kubeconfig without clusters, or whose current context names none, in kubeadm words', async () => {
    const clock = new FakeClock();
    const none = kubeconfigFile({ clusters: [] });
    await expect(discoverFromFile({ source: none, timeoutMs: 1000, clock })).rejects.toThrow(
      'the provided kubeconfig file must have at least one Cluster defined',
    );
    const lost = kubeconfigFile({ clusters: [{ name: 'a', cluster: { server: refused } }], 'current-context': 'gone' });
    await expect(discoverFromFile({ source: lost, timeoutMs: 1000, clock })).rejects.toThrow(
      'the provided kubeconfig file is malformed: failed to get cluster for current context gone',
    );
    const serverless = kubeconfigFile({ clusters: [{ name: '', cluster: {} }] });
    await expect(discoverFromFile({ source: serverless, timeoutMs: 1000, clock })).rejects.toThrow('no server found for cluster');
  });

  it('retries cluster-info every 5 s until the timeout, then names the last error', async () => {
    const clock = new FakeClock();
    const file = kubeconfigFile({ clusters: [{ name: '', cluster: { server: refused, 'certificate-authority': 'ca.crt' } }] });
    const retries: string[] = [];
    const found = discoverFromFile({ source: file, timeoutMs: 7_000, clock, onRetry: (m) => retries.push(m) });
    const failed = expect(found).rejects.toThrow(
      /^Abort reading the cluster-info ConfigMap after timeout of 7s: get the cluster-info ConfigMap: https:\/\/127\.0\.0\.1:1: /,
    );
    await vi.waitFor(() => expect(clock.pending).toBe(1), { timeout: 10_000 });
    await clock.advance(5_000);
    await failed;
    expect(retries).toHaveLength(1);
  });

  it('knows credentials as kubeadm does: a token or token file, a certificate with its key, a plugin', () => {
    expect(hasAuthenticationCredentials({})).toBe(false);
    expect(hasAuthenticationCredentials({ token: 'x' })).toBe(true);
    expect(hasAuthenticationCredentials({ tokenFile: '/t' })).toBe(true);
    expect(hasAuthenticationCredentials({ 'client-certificate-data': 'x' })).toBe(false);
    expect(hasAuthenticationCredentials({ 'client-certificate-data': 'x', 'client-key': '/k' })).toBe(true);
    expect(hasAuthenticationCredentials({ exec: { command: 'x' } })).toBe(true);
  });

  it('takes the host CA bundle from SSL_CERT_FILE first, as Go does', () => {
    const file = kubeconfigFile({});
    expect(hostCABundle({ SSL_CERT_FILE: file })).toContain('"kind":"Config"');
  });

  it('checks the discovery choice as kubeadm ValidateDiscovery does', () => {
    const base: JoinDiscovery = { caCertHashes: [], unsafeSkipCAVerification: false, timeoutMs: 1000 };
    expect(() => checkDiscovery(base)).toThrow('discovery: Invalid value: "": bootstrapToken or file must be set');
    expect(() => checkDiscovery({ ...base, apiserver: 'h:6443', file: 'f' })).toThrow('bootstrapToken and file cannot both be set');
    expect(() => checkDiscovery({ ...base, apiserver: 'h:6443' })).toThrow('the bootstrap token is invalid');
    expect(() => checkDiscovery({ ...base, file: 'f' })).not.toThrow();
  });
});
