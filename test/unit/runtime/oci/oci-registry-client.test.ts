// The distribution client against a small registry double on loopback: the
// paths the real registry of the integration tests does not take (Basic
// auth, a lying Docker-Content-Digest, HTTPS-then-HTTP, a stalled body).
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryError } from '../../../../src/runtime/oci/auth.js';
import { RegistryClient } from '../../../../src/runtime/oci/registry-client.js';

const manifest = Buffer.from(
  JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json', config: {}, layers: [] }),
);
const digest = `sha256:${createHash('sha256').update(manifest).digest('hex')}`;
const basic = `Basic ${Buffer.from('me:pw').toString('base64')}`;
let server: Server;
let host: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '';
    if (path.startsWith('/v2/private/') && req.headers.authorization !== basic) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="test"' }).end();
    } else if (path.endsWith('/manifests/lying')) {
      res
        .writeHead(200, {
          'content-type': 'application/vnd.oci.image.manifest.v1+json',
          'docker-content-digest': `sha256:${'0'.repeat(64)}`,
        })
        .end(manifest);
    } else if (path.includes('/manifests/')) {
      res.writeHead(200, { 'content-type': 'application/vnd.oci.image.manifest.v1+json', 'docker-content-digest': digest }).end(manifest);
    } else if (path.includes('/blobs/')) {
      res.writeHead(200, { 'content-length': '100' });
      res.write('a few bytes, then nothing'); // and never ends
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const endpoint = (httpFallback = false, scheme = 'http') => ({ base: `${scheme}://${host}`, host, httpFallback });

describe('RegistryClient', () => {
  it('answers a Basic challenge with the credentials, and says what is missing without them', async () => {
    const anonymous = new RegistryClient(endpoint(), 'private/app', undefined);
    await expect(anonymous.manifest('1')).rejects.toThrow(`${host}: 401 Unauthorized: the registry wants a user name and password`);
    const fetched = await new RegistryClient(endpoint(), 'private/app', { username: 'me', password: 'pw' }).manifest('1');
    expect(fetched).toMatchObject({ digest, contentType: 'application/vnd.oci.image.manifest.v1+json' });
    expect(fetched.bytes.equals(manifest)).toBe(true);
  });

  it("refuses a manifest whose bytes do not hash to the registry's Docker-Content-Digest", async () => {
    await expect(new RegistryClient(endpoint(), 'public/app', undefined).manifest('lying')).rejects.toThrow(
      /has digest sha256:[a-f0-9]{64}, but the registry says sha256:0{64}/,
    );
  });

  it('an insecure host named without a scheme: HTTPS first, then plain HTTP', async () => {
    expect((await new RegistryClient(endpoint(true, 'https'), 'public/app', undefined).manifest('1')).digest).toBe(digest);
    await expect(new RegistryClient(endpoint(false, 'https'), 'public/app', undefined).manifest('1')).rejects.toBeInstanceOf(RegistryError);
  });

  it('gives up on a blob that stops sending', async () => {
    const body = await new RegistryClient(endpoint(), 'public/app', undefined, { timeoutMs: 200 }).blob(digest);
    await expect(async () => {
      for await (const _ of body) void _;
    }).rejects.toThrow(`${host}: blob ${digest}: no data for 200 ms`);
  });
});
