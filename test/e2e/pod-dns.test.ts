// A pod's /etc/resolv.conf as each dnsPolicy makes it, through the real path:
// `knode apply` (bin/run.js as a child process) with --cluster-dns,
// --cluster-domain and --resolv-conf, the embedded runtime it starts, busybox
// pulled from the local registry (test/registry/registry.sh) and run in its
// sandbox, each container printing the file the runtime wrote for its pod.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knode } from '../helpers/cli.js';
import { mirrorConfig, startRegistry, type LocalRegistry } from '../helpers/registry.js';

let registry: LocalRegistry;
let root: string;

beforeAll(() => {
  registry = startRegistry();
  root = mkdtempSync(join(tmpdir(), 'knode-e2e-dns-'));
  writeFileSync(join(root, 'registries.yaml'), mirrorConfig(registry.host));
  // The node's resolver file, as a host might have it: comments, a trailing dot, options on two lines.
  writeFileSync(
    join(root, 'host-resolv.conf'),
    '# the host\nnameserver 192.0.2.53\nnameserver 192.0.2.54\nsearch corp.example. lab.example\noptions timeout:2\noptions edns0\n',
  );
}, 180_000);

afterAll(async () => {
  if (root) await knode(['runtime', 'stop', '--root-dir', root]);
  registry?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** A pod that prints its /etc/resolv.conf once; SPEC: more of its spec, as YAML lines under `spec:`. */
const catPod = (name: string, spec: string[] = []) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: team
spec:
  restartPolicy: Never
${spec.map((l) => `  ${l}\n`).join('')}  containers:
    - name: show
      image: busybox:1.36
      command: ["cat", "/etc/resolv.conf"]
`;

const HOST = 'search corp.example lab.example\nnameserver 192.0.2.53\nnameserver 192.0.2.54\noptions timeout:2 edns0\n';
const CLUSTER =
  'search team.svc.cluster.local svc.cluster.local cluster.local corp.example lab.example\nnameserver 10.96.0.10\noptions ndots:5\n';

async function apply(name: string, pods: string[], flags: string[]) {
  const manifest = join(root, `${name}.yaml`);
  writeFileSync(manifest, pods.join('---\n'));
  const res = await knode(
    ['apply', '-f', manifest, '--root-dir', root, '--node-name', 'dns', '--resolv-conf', join(root, 'host-resolv.conf'), ...flags],
    {
      timeoutMs: 180_000,
    },
  );
  expect(res.code, res.stderr).toBe(0);
  return res;
}

async function resolvOf(pod: string): Promise<string> {
  const res = await knode(['logs', `team/${pod}-dns`, '-c', 'show', '--root-dir', root]);
  expect(res.code, res.stderr).toBe(0);
  return res.stdout;
}

describe("a pod's resolv.conf on the embedded runtime", () => {
  it('is what its dnsPolicy and dnsConfig make of --cluster-dns, --cluster-domain and --resolv-conf', async () => {
    await apply(
      'policies',
      [
        catPod('cluster-first'),
        catPod('default', ['dnsPolicy: Default']),
        catPod('host-net', ['hostNetwork: true']),
        catPod('host-net-cluster', ['hostNetwork: true', 'dnsPolicy: ClusterFirstWithHostNet']),
        catPod('none', [
          'dnsPolicy: None',
          'dnsConfig: {nameservers: [203.0.113.1], searches: [my.example], options: [{name: ndots, value: "2"}]}',
        ]),
        catPod('merged', [
          'dnsConfig: {nameservers: [203.0.113.1, 203.0.113.2, 203.0.113.3], searches: [my.example], options: [{name: ndots, value: "1"}, {name: edns0}]}',
        ]),
      ],
      ['--cluster-dns', '10.96.0.10', '--cluster-domain', 'cluster.local'],
    );
    expect(await resolvOf('cluster-first')).toBe(CLUSTER);
    expect(await resolvOf('default')).toBe(HOST);
    expect(await resolvOf('host-net')).toBe(HOST);
    expect(await resolvOf('host-net-cluster')).toBe(CLUSTER);
    expect(await resolvOf('none')).toBe('search my.example\nnameserver 203.0.113.1\noptions ndots:2\n');
    // Four nameservers are cut to three (a DNSConfigForming warning), the pod's ndots wins.
    expect(await resolvOf('merged')).toBe(
      'search team.svc.cluster.local svc.cluster.local cluster.local corp.example lab.example my.example\n' +
        'nameserver 10.96.0.10\nnameserver 203.0.113.1\nnameserver 203.0.113.2\noptions ndots:1 edns0\n',
    );
  });

  it("falls back to the host's resolver for ClusterFirst without --cluster-dns", async () => {
    await apply('no-cluster-dns', [catPod('fallback')], []);
    expect(await resolvOf('fallback')).toBe(HOST);
  });
});
