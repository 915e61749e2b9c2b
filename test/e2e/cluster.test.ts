// Three knode nodes in a real cluster: kube-apiserver, etcd, kube-scheduler
// and kube-controller-manager on loopback (test/peers), driven with the real
// kubectl. The nodes join as kubeadm's do, with `knode join` and a bootstrap
// token (kn-3 with a discovery file fetched over https); the controller
// manager signs 2-minute client certificates, so each
// node renews its own several times while the suite runs. The scheduler
// spreads a Deployment over the nodes; a node killed with -9 goes NotReady and
// the controller manager moves its pods; the node restarted rejoins without
// duplicating anything.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import 'reflect-metadata';
import { X509Certificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node } from '../../src/engine/api/cluster.js';
import type { Pod } from '../../src/engine/api/v1.js';
import { startClusterDns, type ClusterDns } from '../helpers/cluster-dns.js';
import { mirrorConfig, startRegistry, type LocalRegistry } from '../helpers/registry.js';
import { freePort, knodeJoinArgs, startControlPlane, type ControlPlane } from '../helpers/controlplane.js';
import { cliEntry, eventually } from '../helpers/runtimes.js';
import { knode } from '../helpers/cli.js';
import { makeCA } from '../helpers/pki.js';

interface RunningNode {
  name: string;
  root: string;
  port: number;
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Ages (and repeat counts' spans) change between two reads: replaced, as the column widths they move. */
function normalized(text: string): string[] {
  return text.split('\n').map((line) =>
    line
      .replace(/\b\d+(m\d+)?s\b|\b\d+m\b/g, 'AGE')
      .replace(/\s+/g, ' ')
      .trimEnd(),
  );
}

describe('knode nodes in a real cluster (scheduler, controller manager, kubectl)', () => {
  let cp: ControlPlane;
  let dns: ClusterDns;
  let registry: LocalRegistry;
  let joining: { token: string; caCertHash: string; apiserver: string };
  // serverTLSBootstrap has no flag, as in the kubelet: it comes from the configuration file, with the
  // cluster DNS the test serves (startClusterDns).
  const config = join(mkdtempSync(join(tmpdir(), 'knode-config-')), 'kubelet.yaml');
  writeFileSync(
    config,
    'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nserverTLSBootstrap: true\nclusterDNS: [127.0.0.10]\n',
  );
  const nodes: RunningNode[] = [];
  const started = Date.now();
  // kubeadm's other discovery: a kubeconfig (here cluster-info's, with no user) served over https,
  // its server trusted through the host's CA bundle, which SSL_CERT_FILE names as for Go.
  let discovery: { server: HttpsServer; url: string; hostCA: string };

  /** The cluster as cluster-info's kubeconfig has it: one unnamed cluster, no context, no user. */
  const clusterOnly = (ca: object) =>
    JSON.stringify({ apiVersion: 'v1', kind: 'Config', clusters: [{ name: '', cluster: { server: cp.apiserver, ...ca } }] });

  async function serveDiscovery(): Promise<typeof discovery> {
    const dir = mkdtempSync(join(tmpdir(), 'knode-discovery-'));
    const hostCA = makeCA(dir);
    const pair = hostCA.serverCert('discovery', '127.0.0.1');
    const body = clusterOnly({ 'certificate-authority-data': readFileSync(cp.ca).toString('base64') });
    const server = createHttpsServer({ cert: pair.cert, key: pair.key }, (req, res) => {
      if (req.url === '/cluster.conf') res.end(body);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, hostCA: hostCA.cert };
  }

  /** `knode join` for this node, with the suite's configuration file; a token and pin of the test's choosing. */
  const joinArgs = (name: string, root: string, port: number, token = joining.token, hash = joining.caCertHash) => [
    cliEntry,
    ...knodeJoinArgs({ ...joining, token, caCertHash: hash }, { name, root, port }),
    '--config',
    config,
  ];

  /** kn-3 joins with --discovery-file https://… and the token only for the TLS bootstrap. */
  const fileJoinArgs = (name: string, root: string, port: number) => {
    const token = knodeJoinArgs(joining, { name, root, port });
    const node = token.slice(token.indexOf('--node-name'));
    return [
      cliEntry,
      'join',
      '--discovery-file',
      `${discovery.url}/cluster.conf`,
      '--tls-bootstrap-token',
      joining.token,
      ...node,
      '--config',
      config,
    ];
  };

  function startKnode(name: string, root: string, port: number): RunningNode {
    const args = name === 'kn-3' ? fileJoinArgs(name, root, port) : joinArgs(name, root, port);
    const env = { ...process.env, SSL_CERT_FILE: discovery.hostCA };
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { name, root, port, child, output: () => out, exited };
  }

  const podsOf = async () => (await cp.kubectlJson<{ items: Pod[] }>('get', 'pods', '-l', 'app=web')).items;
  const running = (pods: Pod[]) => pods.filter((p) => p.status?.phase === 'Running' && !p.metadata.deletionTimestamp);
  const nodeOf = (name: string) => cp.kubectlJson<Node>('get', 'node', name);
  const readyOf = async (name: string) => (await nodeOf(name)).status?.conditions?.find((c) => c.type === 'Ready')?.status;
  // Ready and untainted: the node lifecycle controller puts a not-ready:NoSchedule taint on a new node
  // and takes it off some time after the node reports Ready; until then the scheduler passes it by.
  const schedulable = async (name: string) => {
    const node = await nodeOf(name).catch(() => undefined);
    const ready = node?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    return ready && (node?.spec?.taints ?? []).length === 0;
  };

  beforeAll(async () => {
    cp = startControlPlane({ controllers: true, signingDuration: '2m' });
    dns = await startClusterDns('127.0.0.10', 'cluster.local', async (namespace, name) => {
      const svc = await cp.kubectlJson<{ spec: { clusterIP: string } }>('get', 'service', name, '-n', namespace).catch(() => undefined);
      return svc?.spec.clusterIP;
    });
    joining = cp.joinToken();
    discovery = await serveDiscovery();
    registry = startRegistry();
    for (const name of ['kn-1', 'kn-2', 'kn-3']) {
      const root = mkdtempSync(join(tmpdir(), `knode-${name}-`));
      // kn-2 runs real images in sandboxes (from the local registry); the others run containers as host processes.
      if (name === 'kn-2') writeFileSync(join(root, 'registries.yaml'), mirrorConfig(registry.host));
      nodes.push(startKnode(name, root, await freePort()));
    }
    await eventually(
      async () => {
        for (const n of nodes) if (!(await schedulable(n.name))) return undefined;
        return true;
      },
      'three Ready nodes without taints',
      60_000,
    );
  }, 180_000);

  afterAll(async () => {
    for (const n of nodes) {
      n.child.kill('SIGTERM');
      await n.exited;
    }
    for (const n of nodes) spawn(process.execPath, [cliEntry, 'runtime', 'stop', '--root-dir', n.root], { stdio: 'ignore' });
    cp?.stop();
    discovery?.server.close();
    await dns?.stop();
    registry?.stop();
  });

  it('runs a Deployment of six replicas spread by the real scheduler over the three nodes', async () => {
    // Ends at once on SIGTERM (as PID 1 of its container, a bare sleep would wait out its grace period).
    const created = await cp.kubectl(
      'create',
      'deployment',
      'web',
      '--image=busybox:1.36',
      '--replicas=6',
      '--',
      'sh',
      '-c',
      'trap "exit 143" TERM; sleep 3600 & wait',
    );
    expect(created.code, created.stderr).toBe(0);
    const pods = await eventually(
      async () => {
        const r = running(await podsOf());
        return r.length === 6 ? r : undefined;
      },
      'six Running pods',
      90_000,
    );
    const perNode = new Map<string, number>();
    for (const p of pods) perNode.set(p.spec.nodeName!, (perNode.get(p.spec.nodeName!) ?? 0) + 1);
    expect([...perNode.keys()].sort()).toEqual(['kn-1', 'kn-2', 'kn-3']);
    const wide = await cp.kubectl('get', 'pods', '-o', 'wide');
    expect(wide.stdout).toMatch(/web-\S+\s+1\/1\s+Running/);
    // Ready went False (ContainersNotReady) then True: the patch takes the old reason and message away, as the kubelet's does.
    const ready = await eventually(
      async () => {
        const all = (await podsOf()).map((p) => p.status?.conditions?.find((c) => c.type === 'Ready'));
        return all.length === 6 && all.every((c) => c?.status === 'True') ? all : undefined;
      },
      'six Ready pods',
      60_000,
    );
    for (const c of ready) expect(c).not.toHaveProperty('reason');
    for (const c of ready) expect(c).not.toHaveProperty('message');
  });

  it('gives ClusterFirst pods the cluster DNS, which resolves a Service to its clusterIP (in a sandbox on kn-2)', async () => {
    expect((await cp.kubectl('expose', 'deployment', 'web', '--port', '80')).code).toBe(0);
    const { spec } = await cp.kubectlJson<{ spec: { clusterIP: string } }>('get', 'service', 'web');
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'lookup', namespace: 'default' },
      spec: {
        nodeName: 'kn-2',
        restartPolicy: 'Never',
        containers: [
          { name: 'main', image: 'busybox:1.36', command: ['sh', '-c', 'cat /etc/resolv.conf; nslookup web.default.svc.cluster.local'] },
        ],
      },
    };
    expect((await cp.kubectlInput(JSON.stringify(pod), 'apply', '-f', '-')).code).toBe(0);
    await eventually(
      async () => ((await cp.kubectlJson<Pod>('get', 'pod', 'lookup')).status?.phase === 'Succeeded' ? true : undefined),
      'the lookup pod to succeed',
      60_000,
    );
    const logs = (await cp.kubectl('logs', 'lookup')).stdout;
    // The kubelet's ClusterFirst resolv.conf: the cluster's nameserver and search paths first, ndots:5.
    expect(logs).toContain('nameserver 127.0.0.10');
    expect(logs).toMatch(/^search default\.svc\.cluster\.local svc\.cluster\.local cluster\.local\b/m);
    expect(logs).toContain('options ndots:5');
    expect(logs).toMatch(
      new RegExp(`Name:\\s+web\\.default\\.svc\\.cluster\\.local\\s+Address:\\s+${spec.clusterIP.replace(/\./g, '\\.')}`),
    );
    expect(dns.queries).toContain('web.default.svc.cluster.local A');
    expect((await cp.kubectl('delete', 'pod', 'lookup', '--grace-period=0')).code).toBe(0);
  });

  it('describes a crash-looping pod as kubectl describe does, events included', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'crash', namespace: 'default', labels: { app: 'crash' } },
      spec: {
        nodeName: 'kn-1',
        containers: [
          {
            name: 'main',
            image: 'busybox:1.36',
            command: ['sh', '-c', 'echo dying; exit 3'],
            env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
            resources: { limits: { memory: '64Mi' } },
          },
        ],
      },
    };
    const file = join(mkdtempSync(join(tmpdir(), 'knode-manifest-')), 'm.json');
    writeFileSync(file, JSON.stringify(pod));
    expect((await cp.kubectl('apply', '-f', file)).code).toBe(0);
    const root = nodes.find((n) => n.name === 'kn-1')!.root;
    const read = async () => ({
      kubectl: (await cp.kubectl('describe', 'pod', 'crash')).stdout,
      knode: (await knode(['describe', 'pod', 'crash', '--root-dir', root])).stdout,
    });
    // The two reads must see the same restart; a restart between them is read again.
    const described = await eventually(
      async () => {
        const both = await read();
        if (!/Restart Count:\s+[1-9]/.test(both.kubectl) || !/BackOff/.test(both.kubectl)) return undefined;
        return normalized(both.kubectl).join('\n') === normalized(both.knode).join('\n') ? both : undefined;
      },
      'kubectl describe and knode describe to agree on a restarted pod',
      40_000,
    ).catch(read);
    expect(normalized(described.knode)).toEqual(normalized(described.kubectl));
    expect((await cp.kubectl('delete', 'pod', 'crash', '--grace-period=0')).code).toBe(0);
  });

  it('moves the pods of a node killed with -9 to the others, and the node rejoins without duplicates', async () => {
    const victim = nodes[2];
    const before = running(await podsOf())
      .filter((p) => p.spec.nodeName === victim.name)
      .map((p) => p.metadata.name);
    expect(before.length).toBeGreaterThan(0);
    victim.child.kill('SIGKILL');
    await victim.exited;
    await eventually(
      async () => ((await readyOf(victim.name)) === 'Unknown' ? true : undefined),
      'the killed node to be NotReady (Unknown)',
      60_000,
    );
    const moved = await eventually(
      async () => {
        const r = running(await podsOf());
        return r.length === 6 && r.every((p) => p.spec.nodeName !== victim.name) ? r : undefined;
      },
      'six Running pods on the two live nodes',
      120_000,
    );
    expect(moved.map((p) => p.metadata.name)).not.toEqual(expect.arrayContaining(before));

    // The same node again: same name, same root dir (its runtime still runs the old containers).
    nodes[2] = startKnode(victim.name, victim.root, victim.port);
    await eventually(async () => ((await readyOf(victim.name)) === 'True' ? true : undefined), 'the node to be Ready again', 60_000);
    // Its evicted pods were deleted while it was away: it stops their containers and they leave the apiserver.
    await eventually(
      async () => {
        const all = await podsOf();
        return all.length === 6 && running(all).length === 6 ? true : undefined;
      },
      'exactly six pods, all Running',
      60_000,
    );
    const names = (await podsOf()).map((p) => p.metadata.name);
    expect(new Set(names).size).toBe(6);
  });

  it('joined with a bootstrap token: a CSR per node from the token, approved and signed by the controller manager', async () => {
    const csrs = (await cp.kubectlJson<{ items: Csr[] }>('get', 'csr')).items;
    const tokenId = joining.token.split('.')[0];
    for (const n of nodes) {
      const bootstrap = csrs.find(
        (c) => c.spec.username === `system:bootstrap:${tokenId}` && subjectOf(c).includes(`system:node:${n.name}`),
      );
      expect(bootstrap?.metadata.name, n.name).toMatch(/^node-csr-[\w-]{43}$/);
      expect(bootstrap!.spec.signerName).toBe('kubernetes.io/kube-apiserver-client-kubelet');
      expect(bootstrap!.spec.usages).toEqual(['digital signature', 'client auth']);
      expect(bootstrap!.status.conditions?.map((c) => c.type)).toEqual(['Approved']);
      // The kubeconfig knode wrote names the store's current pair, whose key never left the node.
      const kubeconfig = readFileSync(join(n.root, 'kubelet.conf'), 'utf8');
      expect(kubeconfig).toContain(join(n.root, 'pki', 'kubelet-client-current.pem'));
      expect(statSync(join(n.root, 'pki', 'kubelet-client-current.pem')).mode & 0o777).toBe(0o600);
    }
  });

  it('refuses a wrong CA hash, an unknown or expired token, a discovery file without credentials, and starts nothing', async () => {
    const root = mkdtempSync(join(tmpdir(), 'knode-refused-'));
    const port = await freePort();
    const run = (args: string[]) =>
      knode([...args.slice(1), '--discovery-timeout', '2s'], { timeoutMs: 60_000, env: { SSL_CERT_FILE: discovery.hostCA } });
    const wrongHash = await run(joinArgs('kn-x', root, port, joining.token, `sha256:${'ab'.repeat(32)}`));
    expect(wrongHash.code).toBe(2);
    expect(wrongHash.stderr).toMatch(
      /couldn't validate the identity of the API Server: cluster CA found in cluster-info ConfigMap is invalid: none of the public keys "sha256:[0-9a-f]{64}" are pinned/,
    );
    const unknown = await run(joinArgs('kn-x', root, port, 'zzzzzz.0123456789abcdef'));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('could not find a JWS signature in the cluster-info ConfigMap for token ID "zzzzzz"');
    expect(unknown.stderr).toContain('Use "kubeadm token create"');
    // Expired: the apiserver no longer takes it, whether or not the bootstrap signer has dropped its signature yet.
    const expired = cp.joinToken('1s');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const late = await run(joinArgs('kn-x', root, port, expired.token));
    expect(late.code).toBe(2);
    expect(late.stderr).toMatch(/could not find a JWS signature|the bootstrap token expired or was deleted/);
    // A discovery file on disk naming its CA by path: read, its CA embedded, cluster-info read through it;
    // but with no user and no token, nothing can authenticate the TLS bootstrap.
    const file = join(root, 'discovery.conf');
    writeFileSync(file, clusterOnly({ 'certificate-authority': cp.ca }));
    const node = ['--node-name', 'kn-x', '--root-dir', root, '--port', String(port)];
    const noCredentials = await run([cliEntry, 'join', '--discovery-file', file, ...node]);
    expect(noCredentials.code).toBe(2);
    expect(noCredentials.stderr).toContain('could not find authentication credentials for the TLS bootstrap process');
    const missing = await run([cliEntry, 'join', '--discovery-file', `${discovery.url}/nothing.conf`, '--token', joining.token, ...node]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      `error trying to fetch discovery kubeconfig over HTTPS from ${discovery.url}/nothing.conf, received status 404`,
    );
    const both = await run([cliEntry, 'join', joining.apiserver, '--discovery-file', file, '--token', joining.token, ...node]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('discovery: Invalid value: "": bootstrapToken and file cannot both be set');
    expect((await cp.kubectl('get', 'node', 'kn-x')).code).not.toBe(0);
  });

  it('renews 2-minute client certificates with no pod disturbed and no lapse in Ready', async () => {
    const live = nodes.slice(0, 2);
    // Each node has run for more than 90 s by now; renewal comes at 70-90 % of 120 s.
    const pairs = (root: string) => readdirSync(join(root, 'pki')).filter((f) => /^kubelet-client-\d.*\.pem$/.test(f));
    await eventually(async () => (live.every((n) => pairs(n.root).length >= 2) ? true : undefined), 'a renewal on each node', 150_000);
    const csrs = (await cp.kubectlJson<{ items: Csr[] }>('get', 'csr')).items;
    for (const n of live) {
      const current = new X509Certificate(readFileSync(join(n.root, 'pki', 'kubelet-client-current.pem')));
      expect(Date.parse(current.validTo)).toBeGreaterThan(Date.now());
      expect(current.subject).toContain(`CN=system:node:${n.name}`);
      const renewals = csrs.filter((c) => c.spec.username === `system:node:${n.name}`);
      expect(renewals.length, n.name).toBeGreaterThan(0);
      expect(renewals.every((c) => /^csr-/.test(c.metadata.name))).toBe(true);
      // Ready since it joined: never a transition after the first renewal.
      const ready = (await nodeOf(n.name)).status?.conditions?.find((c) => c.type === 'Ready');
      expect(ready?.status).toBe('True');
      expect(Date.parse(ready!.lastTransitionTime!)).toBeLessThan(started + 90_000);
      // As the kubelet's transport, each renewal closed the open connections (the pod watch) to use the new pair.
      const rotated = n
        .output()
        .split('\n')
        .filter((line) => line.includes('"CertificateRotated"'))
        .map((line) => JSON.parse(line) as { at: number; detail: { kind: string; closedConnections?: number } })
        .filter((e) => e.detail.kind === 'client');
      expect(rotated.length, n.name).toBeGreaterThan(0);
      for (const e of rotated) expect(e.detail.closedConnections).toBeGreaterThanOrEqual(1);
      // The heartbeat goes on with the new pair: the lease is renewed (every 10 s) after the last rotation.
      // Its age is not compared with the lifecycle controller's grace here: on a loaded machine the
      // apiserver's own answers can take that long; Ready with no transition above is what the controller saw.
      const renewedAfter = Math.max(...rotated.map((e) => e.at));
      const heartbeat = () =>
        n
          .output()
          .split('\n')
          .filter((line) => /lease|Certificate/.test(line))
          .join('\n');
      await eventually(
        async () => {
          const lease = await cp.kubectlJson<{ spec: { renewTime: string } }>('get', 'lease', '-n', 'kube-node-lease', n.name);
          return Date.parse(lease.spec.renewTime) > renewedAfter || undefined;
        },
        () => `${n.name}'s lease renewed after its last client certificate rotation:\n${heartbeat()}`,
        30_000,
      );
      // The kubelet's certificate metrics, from its API as the admin (the apiserver will not proxy to a loopback address).
      const pki = join(cp.dir, 'pki');
      const metrics = execFileSync(
        'curl',
        ['-sSk', '--cert', join(pki, 'admin.crt'), '--key', join(pki, 'admin.key'), `https://127.0.0.1:${n.port}/metrics`],
        { encoding: 'utf8' },
      );
      const ttl = Number(/^kubelet_certificate_manager_client_ttl_seconds ([\d.e+-]+)$/m.exec(metrics)?.[1]);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(120);
      expect(metrics).toMatch(/^kubelet_certificate_manager_client_expiration_renew_errors \d+$/m);
    }
    const pods = running(await podsOf());
    expect(pods).toHaveLength(6);
    for (const p of pods) expect(p.status?.containerStatuses?.[0]?.restartCount).toBe(0);
  });

  it('serves the certificate the cluster signed once it is approved (serverTLSBootstrap); kubectl logs keeps working', async () => {
    const node = nodes[0];
    // What openssl s_client sees on the kubelet API's port.
    const served = () =>
      execFileSync(
        'bash',
        [
          '-c',
          `openssl s_client -connect 127.0.0.1:${node.port} </dev/null 2>/dev/null | openssl x509 -noout -issuer -subject -ext subjectAltName`,
        ],
        { encoding: 'utf8' },
      );
    const pending = await eventually(
      async () =>
        (await cp.kubectlJson<{ items: Csr[] }>('get', 'csr')).items.find(
          (c) =>
            c.spec.signerName === 'kubernetes.io/kubelet-serving' && c.spec.username === `system:node:${node.name}` && !c.status.conditions,
        ),
      'a pending kubelet-serving CSR from the node',
      60_000,
    );
    expect(pending.spec.usages).toEqual(['digital signature', 'server auth']);
    expect(served()).toMatch(new RegExp(`issuer=CN\\s?=\\s?${node.name}@\\d+`));
    expect((await cp.kubectl('certificate', 'approve', pending.metadata.name)).code).toBe(0);
    const signed = await eventually<string>(
      async () => {
        const text = served();
        return /issuer=CN\s?=\s?knode-test-ca/.test(text) ? text : undefined;
      },
      'the kubelet API to serve the signed certificate',
      30_000,
    );
    expect(signed).toMatch(/subject=O\s?=\s?system:nodes, CN\s?=\s?system:node:kn-1/);
    expect(signed).toMatch(/DNS:kn-1/);
    expect(signed).toMatch(/IP Address:127.0.0.1/);
    const pod = running(await podsOf()).find((p) => p.spec.nodeName === node.name)!;
    const logs = await cp.kubectl('logs', pod.metadata.name!);
    expect(logs.code, logs.stderr).toBe(0);
  });
});

interface Csr {
  metadata: { name: string };
  spec: { username: string; signerName: string; usages: string[]; request: string };
  status: { conditions?: { type: string }[] };
}

/** The subject of a CSR's request ("O=system:nodes, CN=system:node:kn-1"). */
function subjectOf(csr: Csr): string {
  return new x509.Pkcs10CertificateRequest(Buffer.from(csr.spec.request, 'base64').toString('utf8')).subject;
}
