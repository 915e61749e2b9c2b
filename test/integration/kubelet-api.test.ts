// The kubelet API over real HTTPS on a node running on the embedded runtime:
// client certificates from a real openssl CA, a self-signed serving
// certificate made by openssl, and the apiserver's answers to TokenReview and
// SubjectAccessReview from the fake cluster (the whole path through a real
// kube-apiserver is `kubectl logs` in cluster.test.ts).
import { request } from 'node:https';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeletServer } from '../../src/engine/server/kubelet-server.js';
import { RealClock } from '../../src/util/clock.js';
import { FakeCluster } from '../helpers/fake-cluster.js';
import { startNode, type TestNode } from '../helpers/node.js';
import { makeCA } from '../helpers/pki.js';
import { eventually, runtimesUnderTest } from '../helpers/runtimes.js';
import { TEST_IMAGE } from '../helpers/cri.js';

interface Answer {
  status: number;
  body: string;
}

describe('the kubelet API (HTTPS, webhook authentication and authorization)', () => {
  let node: TestNode;
  let server: KubeletServer;
  let cleanup: () => Promise<void>;
  const cluster = new FakeCluster();
  let ca: ReturnType<typeof makeCA>;

  function get(path: string, auth: { cert?: Buffer; key?: Buffer; token?: string } = {}): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.listening!.port,
          path,
          rejectUnauthorized: false,
          cert: auth.cert,
          key: auth.key,
          headers: auth.token ? { authorization: `Bearer ${auth.token}` } : {},
        },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  beforeAll(async () => {
    const started = await runtimesUnderTest()[0].start();
    cleanup = started.cleanup;
    node = await startNode(started.endpoint);
    const dir = mkdtempSync(join(tmpdir(), 'knode-pki-'));
    ca = makeCA(dir);
    server = new KubeletServer(node.kubelet, {
      address: '127.0.0.1',
      port: 0,
      certDir: join(dir, 'serving'),
      clientCAFile: ca.cert,
      nodeName: node.nodeName,
      client: cluster,
      clock: new RealClock(),
    });
    await server.start();
    cluster.allow = ({ user, groups, subresource }) => groups.includes('system:masters') || (user === 'reader' && subresource === 'proxy');
    node.writePod('talker', {
      restartPolicy: 'Never',
      containers: [{ name: 'main', image: TEST_IMAGE, command: ['sh', '-c', 'echo hello over https; sleep 300'] }],
    });
    await node.waitForPod('talker', 'running', (p) => p.status?.phase === 'Running');
  });

  afterAll(async () => {
    await server?.stop();
    await node?.stop();
    await cleanup?.();
  });

  it('refuses a caller without credentials (401), and one the apiserver does not authorize (403)', async () => {
    expect(await get('/pods')).toEqual({ status: 401, body: 'Unauthorized\n' });
    const stranger = ca.clientCert('stranger', 'stranger', ['devs']);
    const denied = await get('/pods', stranger);
    expect(denied.status).toBe(403);
    expect(denied.body).toBe('Forbidden (user=stranger, verb=get, resource=nodes, subresource=proxy): no RBAC policy matched\n');
  });

  it("serves the apiserver's client certificate (O=system:masters): pods and container logs", async () => {
    const apiserver = ca.clientCert('apiserver', 'kube-apiserver-kubelet-client', ['system:masters']);
    const pods = await get('/pods', apiserver);
    expect(pods.status).toBe(200);
    expect(JSON.parse(pods.body).items.map((p: { metadata: { name: string } }) => p.metadata.name)).toContain(`talker-${node.nodeName}`);
    const logs = await eventually(async () => {
      const answer = await get(`/containerLogs/default/talker-${node.nodeName}/main`, apiserver);
      return answer.body.includes('hello') ? answer : undefined;
    }, 'the container log');
    expect(logs).toEqual({ status: 200, body: 'hello over https\n' });
  });

  it('authenticates a bearer token with TokenReview and asks the apiserver once per caller and verb', async () => {
    cluster.bearerTokens.set('t0ken', { user: 'reader', groups: ['system:authenticated'] });
    const before = cluster.calls.filter((c) => c.startsWith('reviewAccess reader')).length;
    expect((await get('/healthz', { token: 't0ken' })).status).toBe(403);
    expect((await get('/runningpods', { token: 't0ken' })).status).toBe(200);
    expect((await get('/runningpods', { token: 't0ken' })).status).toBe(200);
    expect(cluster.calls.filter((c) => c.startsWith('reviewAccess reader')).slice(before)).toEqual([
      'reviewAccess reader get nodes/healthz',
      'reviewAccess reader get nodes/proxy',
    ]);
    expect((await get('/pods', { token: 'wrong' })).status).toBe(401);
  });

  it('asks for an upgrade on exec without one (400), and refuses an unauthorized upgrade before it reaches the runtime', async () => {
    const apiserver = ca.clientCert('apiserver2', 'kube-apiserver-kubelet-client', ['system:masters']);
    const answer = await get(`/exec/default/talker-${node.nodeName}/main?command=sh&output=1`, apiserver);
    expect(answer).toEqual({ status: 400, body: 'Upgrade request required: exec, attach and portForward stream over SPDY/3.1\n' });
    const upgrade = (path: string, auth: { cert?: Buffer; key?: Buffer }) =>
      new Promise<Answer>((resolve, reject) => {
        const req = request({
          host: '127.0.0.1',
          port: server.listening!.port,
          path,
          rejectUnauthorized: false,
          cert: auth.cert,
          key: auth.key,
          headers: { connection: 'Upgrade', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': 'v4.channel.k8s.io' },
        });
        req.on('upgrade', (res, socket) => {
          socket.destroy();
          resolve({ status: res.statusCode ?? 0, body: '' });
        });
        req.on('response', (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
    expect(await upgrade(`/exec/default/talker-${node.nodeName}/main?command=true&output=1`, {})).toEqual({
      status: 401,
      body: 'Unauthorized\n',
    });
    const stranger = ca.clientCert('stranger2', 'stranger', ['devs']);
    expect((await upgrade(`/exec/default/talker-${node.nodeName}/main?command=true&output=1`, stranger)).status).toBe(403);
    expect(await upgrade(`/exec/default/nosuch/main?command=true&output=1`, apiserver)).toEqual({
      status: 404,
      body: 'pod does not exist\n',
    });
    expect(await upgrade(`/exec/default/talker-${node.nodeName}/nosuch?command=true&output=1`, apiserver)).toEqual({
      status: 404,
      body: 'container not found ("nosuch")\n',
    });
    expect(await upgrade(`/exec/default/talker-${node.nodeName}/main?command=true`, apiserver)).toEqual({
      status: 400,
      body: 'you must specify at least 1 of stdin, stdout, stderr\n',
    });
    expect((await upgrade(`/exec/default/talker-${node.nodeName}/main?command=true&output=1`, apiserver)).status).toBe(101);
  });
});
