// The kubelet's DNS configurer: each dnsPolicy, the merge of spec.dnsConfig,
// the resolver's limits and the fallback when the node has no clusterDNS.
// Cases and texts are those of pkg/kubelet/network/dns/dns_test.go (v1.37.2).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Pod, PodSpec } from '../../../../src/engine/api/v1.js';
import { EventStream, type LifecycleEvent } from '../../../../src/engine/events.js';
import { DnsConfigurer, parseClusterDNS, parseResolvConf, type DnsConfigurerOptions } from '../../../../src/engine/kuberuntime/dns.js';

const HOST = 'nameserver 192.168.1.1\nnameserver 192.168.1.2\nsearch corp.example lab.example.\noptions timeout:2 edns0\n';

function pod(spec: Partial<PodSpec> = {}): Pod {
  return {
    metadata: { name: 'web', namespace: 'team', uid: 'uid-1' },
    spec: { containers: [{ name: 'main', image: 'busybox:1.36' }], ...spec },
  };
}

function configurer(opts: Partial<DnsConfigurerOptions> = {}, host = HOST) {
  const seen: LifecycleEvent[] = [];
  const events = new EventStream(() => 0);
  events.subscribe((e) => seen.push(e));
  const dns = new DnsConfigurer({
    clusterDNS: ['10.96.0.10'],
    clusterDomain: 'cluster.local',
    resolvConf: '/etc/resolv.conf',
    nodeIPs: ['192.168.1.10'],
    events,
    readFile: () => host,
    ...opts,
  });
  return { dns, seen, warnings: () => seen.map((e) => [e.type, e.reason, e.message]) };
}

const CLUSTER_SEARCHES = ['team.svc.cluster.local', 'svc.cluster.local', 'cluster.local'];
const HOST_DNS = { servers: ['192.168.1.1', '192.168.1.2'], searches: ['corp.example', 'lab.example'], options: ['timeout:2', 'edns0'] };
const CLUSTER_DNS = { servers: ['10.96.0.10'], searches: [...CLUSTER_SEARCHES, 'corp.example', 'lab.example'], options: ['ndots:5'] };

describe('parseResolvConf', () => {
  it.each([
    ['', [], [], []],
    ['#comment\n', [], [], []],
    ['#comment\nnameserver 1.2.3.4\nsearch', ['1.2.3.4'], [], []],
    ['\tnameserver \t 1.2.3.4', ['1.2.3.4'], [], []],
    ['nameserver 1.2.3.4\nnameserver 5.6.7.8', ['1.2.3.4', '5.6.7.8'], [], []],
    ['nameserver 1.2.3.4 #comment', ['1.2.3.4'], [], []],
    ['search foo .  bar', [], ['foo', 'bar'], []],
    ['search . foo', [], ['foo'], []],
    ['search foo. bar', [], ['foo', 'bar'], []],
    ['search foo\nsearch bar', [], ['bar'], []],
    ['options ndots:1 ndots:5 attempts:2', [], [], ['ndots:5', 'attempts:2']],
    ['options ndots:1 edns0 attempts:2 single-request-reopen', [], [], ['ndots:1', 'edns0', 'attempts:2', 'single-request-reopen']],
    ['options ndots:1 timeout:3 timeout:1 attempts:3\noptions ndots:5', [], [], ['ndots:5', 'timeout:1', 'attempts:3']],
    [
      'nameserver 1.2.3.4\nsearch foo\nnameserver 5.6.7.8\nsearch bar\noptions ndots:5 attempts:4',
      ['1.2.3.4', '5.6.7.8'],
      ['bar'],
      ['ndots:5', 'attempts:4'],
    ],
  ])('%j', (text, servers, searches, options) => {
    const parsed = parseResolvConf(text);
    expect(parsed).toMatchObject({ servers, searches, errors: [] });
    expect(new Set(parsed.options)).toEqual(new Set(options));
  });

  it('counts a nameserver line without an address as an error', () => {
    expect(parseResolvConf('#comment\nnameserver\nsearch').errors).toEqual(['nameserver list is empty ']);
  });
});

describe('parseClusterDNS', () => {
  it("keeps the IPs as Go writes them and leaves out what is not one, as the kubelet's start does", () => {
    expect(parseClusterDNS(['10.96.0.10', 'fd00:0:0::a', '::ffff:10.0.0.1', 'dns.example', ''])).toEqual({
      ips: ['10.96.0.10', 'fd00::a', '10.0.0.1'],
      invalid: ['dns.example', ''],
    });
  });
});

describe('the DNS configurer', () => {
  it('ClusterFirst: the cluster DNS, the cluster search paths before the host’s, ndots:5', () => {
    const { dns, seen } = configurer();
    expect(dns.podDNS(pod({ dnsPolicy: 'ClusterFirst' }))).toEqual(CLUSTER_DNS);
    expect(dns.podDNS(pod())).toEqual(CLUSTER_DNS);
    expect(seen).toEqual([]);
  });

  it('ClusterFirst lists a search path once, and no cluster ones without a cluster domain', () => {
    const host = 'nameserver 192.168.1.1\nsearch cluster.local corp.example\n';
    expect(configurer({}, host).dns.podDNS(pod()).searches).toEqual([...CLUSTER_SEARCHES, 'corp.example']);
    expect(configurer({ clusterDomain: '' }, host).dns.podDNS(pod()).searches).toEqual(['cluster.local', 'corp.example']);
  });

  it('every clusterDNS IP is a nameserver', () => {
    expect(configurer({ clusterDNS: ['10.96.0.10', 'fd00::a'] }).dns.podDNS(pod()).servers).toEqual(['10.96.0.10', 'fd00::a']);
  });

  it('Default, and ClusterFirst on the host network: the host’s resolver', () => {
    const { dns, seen } = configurer();
    expect(dns.podDNS(pod({ dnsPolicy: 'Default' }))).toEqual(HOST_DNS);
    expect(dns.podDNS(pod({ dnsPolicy: 'ClusterFirst', hostNetwork: true }))).toEqual(HOST_DNS);
    expect(dns.podDNS(pod({ hostNetwork: true }))).toEqual(HOST_DNS);
    expect(seen).toEqual([]);
  });

  it('ClusterFirstWithHostNet: the cluster DNS, on the host network or off it', () => {
    const { dns } = configurer();
    expect(dns.podDNS(pod({ dnsPolicy: 'ClusterFirstWithHostNet', hostNetwork: true }))).toEqual(CLUSTER_DNS);
    expect(dns.podDNS(pod({ dnsPolicy: 'ClusterFirstWithHostNet' }))).toEqual(CLUSTER_DNS);
  });

  it('None: only the pod’s dnsConfig', () => {
    const dnsConfig = {
      nameservers: ['203.0.113.1'],
      searches: ['my.dns.search.suffix'],
      options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }],
    };
    expect(configurer().dns.podDNS(pod({ dnsPolicy: 'None', dnsConfig }))).toEqual({
      servers: ['203.0.113.1'],
      searches: ['my.dns.search.suffix'],
      options: ['ndots:2', 'edns0'],
    });
  });

  it('merges dnsConfig: servers and searches appended once each, options by name with the pod’s winning', () => {
    const dnsConfig = {
      nameservers: ['10.96.0.10', '203.0.113.1'],
      searches: ['svc.cluster.local', 'my.dns.search.suffix'],
      options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }, { name: 'timeout', value: '' }],
    };
    expect(configurer().dns.podDNS(pod({ dnsConfig }))).toEqual({
      servers: ['10.96.0.10', '203.0.113.1'],
      searches: [...CLUSTER_DNS.searches, 'my.dns.search.suffix'],
      options: ['ndots:2', 'edns0', 'timeout'],
    });
    expect(
      configurer().dns.podDNS(pod({ dnsPolicy: 'Default', dnsConfig: { options: [{ name: 'timeout', value: '5' }] } })).options,
    ).toEqual(['timeout:5', 'edns0']);
  });

  it('ClusterFirst without clusterDNS: the host’s resolver, with the kubelet’s MissingClusterDNS warning', () => {
    const { dns, seen, warnings } = configurer({ clusterDNS: [] });
    expect(dns.podDNS(pod())).toEqual(HOST_DNS);
    const node =
      'kubelet does not have ClusterDNS IP configured and cannot create Pod using "ClusterFirst" policy. Falling back to "Default" policy.';
    expect(warnings()).toEqual([['MissingClusterDNS', 'MissingClusterDNS', `pod: "web_team(uid-1)". ${node}`]]);
    expect(seen[0]).toMatchObject({ pod: 'team/web', uid: 'uid-1', detail: { nodeMessage: node } });
    // A clusterDNS of no IP at all is none.
    expect(configurer({ clusterDNS: ['not-an-ip'] }).dns.podDNS(pod({ dnsPolicy: 'ClusterFirstWithHostNet', hostNetwork: true }))).toEqual(
      HOST_DNS,
    );
  });

  it('no resolvConf: Default pods get the loopback of each node IP’s family, and the root search path', () => {
    expect(configurer({ resolvConf: '' }).dns.podDNS(pod({ dnsPolicy: 'Default' }))).toEqual({
      servers: ['127.0.0.1'],
      searches: ['.'],
      options: [],
    });
    expect(configurer({ resolvConf: '', nodeIPs: ['192.168.1.10', 'fd00::10'] }).dns.podDNS(pod({ dnsPolicy: 'Default' })).servers).toEqual(
      ['127.0.0.1', '::1'],
    );
    expect(configurer({ resolvConf: '', nodeIPs: [] }).dns.podDNS(pod({ dnsPolicy: 'Default' })).servers).toEqual(['127.0.0.1']);
    expect(configurer({ resolvConf: '' }).dns.podDNS(pod())).toEqual({
      servers: ['10.96.0.10'],
      searches: CLUSTER_SEARCHES,
      options: ['ndots:5'],
    });
  });

  it('fails with the kubelet’s words when the host’s file cannot be read or parsed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'knode-dns-'));
    const events = new EventStream(() => 0);
    const base = { clusterDNS: ['10.96.0.10'], clusterDomain: 'cluster.local', nodeIPs: [], events };
    expect(() => new DnsConfigurer({ ...base, resolvConf: join(dir, 'none') }).podDNS(pod())).toThrow(
      `open ${join(dir, 'none')}: no such file or directory`,
    );
    writeFileSync(join(dir, 'bad'), 'nameserver\nnameserver\n');
    expect(() => new DnsConfigurer({ ...base, resolvConf: join(dir, 'bad') }).podDNS(pod())).toThrow(
      /^Encountered error while parsing resolv conf file. Error: nameserver list is empty $/,
    );
    writeFileSync(join(dir, 'good'), HOST);
    expect(new DnsConfigurer({ ...base, resolvConf: join(dir, 'good') }).podDNS(pod({ dnsPolicy: 'Default' }))).toEqual(HOST_DNS);
  });
});

describe('the resolver limits', () => {
  const none = (searches: string[], nameservers = ['10.0.0.1']) => pod({ dnsPolicy: 'None', dnsConfig: { nameservers, searches } });
  const forming = (line: string) => [
    [
      'DNSConfigForming',
      'DNSConfigForming',
      `Search Line limits were exceeded, some search paths have been omitted, the applied search line is: ${line}`,
    ],
  ];
  // 2048 = 128 + 127 * 15 + 15, as upstream's list; distinct paths (the merge lists each once).
  const list2048 = ['A'.repeat(128), ...Array.from({ length: 15 }, (_, i) => String.fromCharCode(66 + i).repeat(127))];
  const numbered = (n: number) => ['testNS.svc.TEST', 'svc.TEST', 'TEST', ...Array.from({ length: n - 3 }, (_, i) => String(i + 4))];

  it.each([
    ['3 search paths', numbered(3), numbered(3), []],
    ['32 search paths', numbered(32), numbered(32), []],
    ['33 search paths', numbered(33), numbered(32), forming(numbered(32).join(' '))],
    ['a path over 253 characters', ['a', 'B'.repeat(256), 'c'], ['a', 'c'], forming('a c')],
    ['a 253-character path', ['a', 'B'.repeat(253)], ['a', 'B'.repeat(253)], []],
    ['2048 characters', list2048, list2048, []],
    ['2050 characters', [...list2048, 'z'], list2048, forming(list2048.join(' '))],
  ])('%s', (_what, searches, kept, events) => {
    const { dns, warnings } = configurer();
    expect(dns.podDNS(none(searches)).searches).toEqual(kept);
    expect(warnings()).toEqual(events);
  });

  it('keeps 3 nameservers', () => {
    const { dns, warnings } = configurer();
    expect(dns.podDNS(pod({ dnsConfig: { nameservers: ['10.0.0.1', '10.0.0.2', '10.0.0.3'] } })).servers).toEqual([
      '10.96.0.10',
      '10.0.0.1',
      '10.0.0.2',
    ]);
    expect(warnings()).toEqual([
      [
        'DNSConfigForming',
        'DNSConfigForming',
        'Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: 10.96.0.10 10.0.0.1 10.0.0.2',
      ],
    ]);
    expect(configurer().dns.podDNS(none([], ['10.0.0.1', '10.0.0.2', '10.0.0.3'])).servers).toHaveLength(3);
  });

  it('cuts the host’s search paths as well, the cluster’s first', () => {
    const host = `nameserver 192.168.1.1\nsearch ${Array.from({ length: 32 }, (_, i) => `h${i}`).join(' ')}\n`;
    const { dns, warnings } = configurer({}, host);
    const searches = dns.podDNS(pod()).searches;
    expect(searches).toEqual([...CLUSTER_SEARCHES, ...Array.from({ length: 29 }, (_, i) => `h${i}`)]);
    expect(warnings()).toEqual(forming(searches.join(' ')));
  });
});

describe("the host's resolver file checked at start (CheckLimitsForResolvConf)", () => {
  const paths = (n: number) => `nameserver 192.168.1.1\nsearch ${Array.from({ length: n }, (_, i) => `h${i}`).join(' ')}\n`;
  it.each([
    ['29 search paths beside a cluster domain', {}, paths(29), []],
    [
      '30 search paths beside a cluster domain',
      {},
      paths(30),
      ["Resolv.conf file '/etc/resolv.conf' contains search line consisting of more than 29 domains!"],
    ],
    ['32 search paths without one', { clusterDomain: '' }, paths(32), []],
    [
      '33 search paths without one',
      { clusterDomain: '' },
      paths(33),
      ["Resolv.conf file '/etc/resolv.conf' contains search line consisting of more than 32 domains!"],
    ],
    [
      'a path over 253 characters',
      {},
      `search ${'a'.repeat(254)}\n`,
      ['Resolv.conf file "/etc/resolv.conf" contains a search path which length is more than allowed 253 chars!'],
    ],
    [
      'a line over 2048 characters',
      {},
      `search ${Array.from({ length: 9 }, (_, i) => String.fromCharCode(97 + i).repeat(250)).join(' ')}\n`,
      ["Resolv.conf file '/etc/resolv.conf' contains search line which length is more than allowed 2048 chars!"],
    ],
    ['a nameserver line without an address', {}, 'nameserver\n', ['nameserver list is empty ']],
  ])('%s', (_what, opts, host, messages) => {
    const { dns, seen } = configurer(opts, host);
    dns.checkLimitsForResolvConf();
    expect(seen.map((e) => [e.type, e.pod, e.reason, e.message])).toEqual(
      messages.map((m) => ['CheckLimitsForResolvConf', '', 'CheckLimitsForResolvConf', m]),
    );
  });

  it('names a file it cannot read, and checks nothing without one', () => {
    const events = new EventStream(() => 0);
    const seen: LifecycleEvent[] = [];
    events.subscribe((e) => seen.push(e));
    const base = { clusterDNS: [], clusterDomain: 'cluster.local', nodeIPs: [], events };
    new DnsConfigurer({ ...base, resolvConf: '/no/such/resolv.conf' }).checkLimitsForResolvConf();
    new DnsConfigurer({ ...base, resolvConf: '' }).checkLimitsForResolvConf();
    expect(seen.map((e) => e.message)).toEqual(['open /no/such/resolv.conf: no such file or directory']);
  });
});
