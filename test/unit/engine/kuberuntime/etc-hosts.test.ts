import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../../src/engine/api/v1.js';
import { hostsFileContent, makeHostsMount, podHostnameAndDomain } from '../../../../src/engine/kuberuntime/etc-hosts.js';

const pod = (spec: Partial<Pod['spec']> = {}): Pod => ({
  metadata: { name: 'web-node1', namespace: 'default', uid: 'u1' },
  spec: { containers: [{ name: 'main', image: 'busybox' }], ...spec },
});

describe('the kubelet-managed /etc/hosts', () => {
  it('names the pod IPs after the pod hostname, with localhost and the IPv6 names first', () => {
    expect(hostsFileContent(pod({ hostname: 'web-1' }), ['10.88.0.5', 'fd00::5'])).toBe(
      [
        '# Kubernetes-managed hosts file.',
        '127.0.0.1\tlocalhost',
        '::1\tlocalhost ip6-localhost ip6-loopback',
        'fe00::0\tip6-localnet',
        'fe00::0\tip6-mcastprefix',
        'fe00::1\tip6-allnodes',
        'fe00::2\tip6-allrouters',
        '10.88.0.5\tweb-1',
        'fd00::5\tweb-1',
        '',
      ].join('\n'),
    );
    expect(hostsFileContent(pod(), ['10.88.0.5'])).toContain('10.88.0.5\tweb-node1\n');
  });

  // managedHostsFileContent's lines for the pod IPs, with GeneratePodHostNameAndDomain's name and domain.
  const HEAD = [
    '# Kubernetes-managed hosts file.',
    '127.0.0.1\tlocalhost',
    '::1\tlocalhost ip6-localhost ip6-loopback',
    'fe00::0\tip6-localnet',
    'fe00::0\tip6-mcastprefix',
    'fe00::1\tip6-allnodes',
    'fe00::2\tip6-allrouters',
  ].join('\n');
  it.each<[string, Partial<Pod['spec']>, string | undefined, string[]]>([
    ['hostname alone', { hostname: 'web-1' }, 'cluster.local', ['10.88.0.5\tweb-1']],
    [
      'subdomain alone: the pod name',
      { subdomain: 'svc1' },
      'cluster.local',
      ['10.88.0.5\tweb-node1.svc1.default.svc.cluster.local\tweb-node1'],
    ],
    [
      'hostname and subdomain',
      { hostname: 'web-1', subdomain: 'svc1' },
      'cluster.local',
      ['10.88.0.5\tweb-1.svc1.default.svc.cluster.local\tweb-1'],
    ],
    [
      'no clusterDomain: the name ends in svc.',
      { hostname: 'web-1', subdomain: 'svc1' },
      undefined,
      ['10.88.0.5\tweb-1.svc1.default.svc.\tweb-1'],
    ],
    ['an empty clusterDomain as none', { hostname: 'web-1', subdomain: 'svc1' }, '', ['10.88.0.5\tweb-1.svc1.default.svc.\tweb-1']],
    ['empty hostname: the pod name', { hostname: '', subdomain: 'svc1' }, 'k', ['10.88.0.5\tweb-node1.svc1.default.svc.k\tweb-node1']],
  ])('writes the pod IP lines as the kubelet: %s', (_, spec, clusterDomain, lines) => {
    expect(hostsFileContent(pod(spec), ['10.88.0.5'], { clusterDomain })).toBe(`${HEAD}\n${lines.join('\n')}\n`);
  });

  it('names every pod IP with the FQDN, and puts the aliases after', () => {
    const p = pod({ hostname: 'db-0', subdomain: 'db', hostAliases: [{ ip: '10.1.2.3', hostnames: ['x'] }] });
    expect(hostsFileContent(p, ['10.88.0.5', 'fd00::5'], { clusterDomain: 'cluster.local' })).toBe(
      `${HEAD}\n10.88.0.5\tdb-0.db.default.svc.cluster.local\tdb-0\nfd00::5\tdb-0.db.default.svc.cluster.local\tdb-0\n` +
        '\n# Entries added by HostAliases.\n10.1.2.3\tx\n',
    );
  });

  it('cuts a hostname over 63 characters, then drops the trailing - and .', () => {
    const long = `${'a'.repeat(61)}-.b`;
    expect(podHostnameAndDomain({ ...pod(), metadata: { name: long, namespace: 'ns' } })).toEqual({ hostname: 'a'.repeat(61), domain: '' });
    expect(podHostnameAndDomain(pod({ subdomain: 's' }), 'c.l')).toEqual({ hostname: 'web-node1', domain: 's.default.svc.c.l' });
  });

  it("copies the node's hosts file for a host-network pod, then adds the aliases", () => {
    const nodeHosts = join(mkdtempSync(join(tmpdir(), 'knode-hosts-')), 'hosts');
    writeFileSync(nodeHosts, '127.0.0.1 localhost\n10.0.0.2 vm\n');
    expect(
      hostsFileContent(pod({ hostNetwork: true, hostAliases: [{ ip: '10.1.2.3', hostnames: ['db', 'db.internal'] }] }), ['10.0.0.2'], {
        nodeHosts,
      }),
    ).toBe(
      '# Kubernetes-managed hosts file (host network).\n127.0.0.1 localhost\n10.0.0.2 vm\n\n# Entries added by HostAliases.\n10.1.2.3\tdb\tdb.internal\n',
    );
  });

  it('writes the file once, and mounts it unless the pod has no IP yet or the container mounts its own', () => {
    const root = mkdtempSync(join(tmpdir(), 'knode-hosts-'));
    const p = pod();
    expect(makeHostsMount(root, p, p.spec.containers[0], [])).toBeUndefined();
    const mount = makeHostsMount(root, p, p.spec.containers[0], ['10.88.0.5'])!;
    expect(mount).toEqual({ containerPath: '/etc/hosts', hostPath: join(root, 'kubelet', 'pods', 'u1', 'etc-hosts'), readonly: false });
    makeHostsMount(root, p, p.spec.containers[0], ['10.88.0.9']);
    expect(readFileSync(mount.hostPath!, 'utf8')).toContain('10.88.0.5\tweb-node1');
    expect(
      makeHostsMount(root, p, { name: 'own', image: 'x', volumeMounts: [{ name: 'h', mountPath: '/etc/hosts' }] }, ['10.88.0.5']),
    ).toBeUndefined();
  });

  it('mounts the file of a host-network pod that has no IP (a standalone node reports none)', () => {
    const root = mkdtempSync(join(tmpdir(), 'knode-hosts-'));
    const hostNet = pod({ hostNetwork: true, hostAliases: [{ ip: '10.1.2.3', hostnames: ['db'] }] });
    const mount = makeHostsMount(root, hostNet, hostNet.spec.containers[0], [])!;
    expect(readFileSync(mount.hostPath!, 'utf8')).toMatch(/^# Kubernetes-managed hosts file \(host network\)\.\n[\s\S]*10\.1\.2\.3\tdb\n$/);
  });
});
