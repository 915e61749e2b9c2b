// The node's HTTP/2 connection to the apiserver, against a real HTTP/2 TLS
// server on a local port: calls share one connection, and a connection that
// goes away or stops answering pings is replaced at the next call; client-node's
// calls, authenticated from a kubeconfig, go over it.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createSecureServer, type Http2SecureServer, type ServerHttp2Session } from 'node:http2';
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpMethod, KubeConfig, RequestContext, ResponseContext } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { Http2Connections } from '../../../../src/engine/cluster/http2-connection.js';
import { KeptConnections } from '../../../../src/engine/cluster/keep-alive.js';
import { makeCA } from '../../../helpers/pki.js';

let dir: string;
let server: Http2SecureServer;
let port: number;
let ca: Buffer;
const sessions: ServerHttp2Session[] = [];
const seen: Record<string, string | string[] | undefined>[] = [];
const closers: (() => void)[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'knode-h2-'));
  const pki = makeCA(dir);
  ca = readFileSync(pki.cert);
  server = createSecureServer(pki.serverCert('server', '127.0.0.1'));
  server.on('session', (s) => sessions.push(s));
  server.on('stream', (stream, headers) => {
    seen.push(headers);
    const body: Buffer[] = [];
    stream.on('data', (c: Buffer) => body.push(c));
    stream.on('end', () => {
      stream.respond({ ':status': headers[':path'] === '/missing' ? 404 : 200, 'content-type': 'application/json' });
      stream.end(JSON.stringify({ path: headers[':path'], body: Buffer.concat(body).toString() }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});

afterEach(() => {
  for (const close of closers.splice(0)) close();
  for (const s of sessions.splice(0)) s.destroy();
  seen.length = 0;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

function connections(health?: { readIdleMs: number; pingTimeoutMs: number }): Http2Connections {
  const kept = new Http2Connections({ ca, rejectUnauthorized: true }, health);
  closers.push(() => kept.close());
  return kept;
}

const call = (url: string, method = 'GET', body?: string) => ({
  url,
  method,
  headers: { Accept: 'application/json', Connection: 'keep-alive', 'Content-Type': 'application/json' },
  body,
  signal: undefined,
});

async function until(what: string, ok: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

it('sends calls made at once over one connection, with their bodies, headers and answers', async () => {
  const kept = connections();
  const origin = `https://127.0.0.1:${port}`;
  const answers = await Promise.all([
    kept.send(call(`${origin}/api/v1/pods?fieldSelector=spec.nodeName%3Dn`)),
    kept.send(call(`${origin}/api/v1/namespaces/default/events`, 'POST', '{"kind":"Event"}')),
    kept.send(call(`${origin}/missing`)),
  ]);
  expect(sessions).toHaveLength(1);
  expect(answers.map((a) => a.status)).toEqual([200, 200, 404]);
  expect(answers[0].headers['content-type']).toBe('application/json');
  expect(Object.keys(answers[0].headers).some((h) => h.startsWith(':'))).toBe(false);
  expect(JSON.parse(answers[0].body.toString())).toEqual({ path: '/api/v1/pods?fieldSelector=spec.nodeName%3Dn', body: '' });
  expect(JSON.parse(answers[1].body.toString())).toEqual({ path: '/api/v1/namespaces/default/events', body: '{"kind":"Event"}' });
  // Names in lower case, and no HTTP/1.1 connection header, which HTTP/2 forbids.
  expect(seen[1][':method']).toBe('POST');
  expect(seen[1]['content-type']).toBe('application/json');
  expect(seen[1].connection).toBeUndefined();
  await kept.send(call(`${origin}/again`));
  expect(sessions).toHaveLength(1);
});

it('connects again at the next call once the server sent its connection away', async () => {
  const kept = connections();
  const origin = `https://127.0.0.1:${port}`;
  await kept.send(call(`${origin}/one`));
  sessions[0].close();
  await until('the first connection closed', () => sessions[0].closed);
  await new Promise((r) => setTimeout(r, 50));
  expect((await kept.send(call(`${origin}/two`))).status).toBe(200);
  expect(sessions).toHaveLength(2);
});

it('pings an idle connection, and replaces one whose peer stopped answering', async () => {
  // A TCP relay between the two that can be frozen: the connection stays open, nothing goes through.
  let frozen = false;
  const sockets: Socket[] = [];
  const relay: Server = createServer((client) => {
    const upstream = tcpConnect(port, '127.0.0.1');
    sockets.push(client, upstream);
    client.on('data', (d) => frozen || upstream.write(d));
    upstream.on('data', (d) => frozen || client.write(d));
    client.on('error', () => {});
    upstream.on('error', () => {});
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    for (const s of sockets) s.destroy();
    relay.close();
  });
  const origin = `https://127.0.0.1:${(relay.address() as { port: number }).port}`;
  const kept = connections({ readIdleMs: 100, pingTimeoutMs: 100 });
  await kept.send(call(`${origin}/one`));
  let pings = 0;
  sessions[0].on('ping', () => pings++);
  await until('a ping on the idle connection', () => pings > 0);
  expect(sessions[0].closed).toBe(false);

  frozen = true;
  await until('the unanswered connection closed', () => sockets[0].destroyed || sockets[0].readableEnded);
  frozen = false;
  expect((await kept.send(call(`${origin}/two`))).status).toBe(200);
  expect(sessions).toHaveLength(2);
});

it("sends client-node's calls, authenticated from the kubeconfig, over one connection; others as client-node would", async () => {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `https://127.0.0.1:${port}`, caData: ca.toString('base64') }],
    users: [{ name: 'u', token: 'the-token' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  const elsewhere: string[] = [];
  const body = (b: Buffer) => ({ text: async () => b.toString(), binary: async () => b });
  const kept = new KeptConnections(kc, {
    respond: (a) => new ResponseContext(a.status, a.headers, body(a.body)),
    fallback: {
      send: async (request) => {
        elsewhere.push(request.getUrl());
        return new ResponseContext(200, {}, body(Buffer.from('{}')));
      },
    },
  });
  closers.push(() => kept.close());
  const request = async (url: string) => {
    const context = new RequestContext(url, HttpMethod.GET);
    await kept.applySecurityAuthentication(context);
    return kept.send(context);
  };
  const answers = await Promise.all([request(`https://127.0.0.1:${port}/api/v1/nodes`), request(`https://127.0.0.1:${port}/api/v1/pods`)]);
  expect(await Promise.all(answers.map((a) => a.body.text()))).toEqual([
    JSON.stringify({ path: '/api/v1/nodes', body: '' }),
    JSON.stringify({ path: '/api/v1/pods', body: '' }),
  ]);
  expect(seen.map((h) => h.authorization)).toEqual(['Bearer the-token', 'Bearer the-token']);
  expect(sessions).toHaveLength(1);
  // Plain HTTP (a kubectl proxy, say) is not what the connection is for.
  await request('http://127.0.0.1:8001/api/v1/nodes');
  expect(elsewhere).toEqual(['http://127.0.0.1:8001/api/v1/nodes']);
  expect(sessions).toHaveLength(1);
});
