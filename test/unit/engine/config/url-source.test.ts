// The URL source caps the body as it streams: an endless or oversized body is
// refused past the manifest limit, and a good one gives its pods.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Pod } from '../../../../src/engine/api/v1.js';
import { MAX_MANIFEST_BYTES, type ManifestError } from '../../../../src/engine/config/manifest.js';
import { UrlSource } from '../../../../src/engine/config/url-source.js';
import { FakeClock } from '../../../../src/util/clock.js';

const POD = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: main\n    image: busybox:1.36\n';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function serve(handler: (res: ServerResponse) => void): Promise<string> {
  server = createServer((_req, res) => handler(res));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/pods.yaml`;
}

async function fetchOnce(url: string): Promise<{ snapshots: Pod[][]; errors: ManifestError[] }> {
  const snapshots: Pod[][] = [];
  const errors: ManifestError[] = [];
  const source = new UrlSource(
    url,
    {},
    'n1',
    new FakeClock(),
    20_000,
    { snapshot: (p) => snapshots.push(p), error: (e) => errors.push(e) },
    false,
  );
  await source.start();
  source.stop();
  return { snapshots, errors };
}

describe('UrlSource', () => {
  it('gives the pods of a good body', async () => {
    const url = await serve((res) => res.end(POD));
    const { snapshots, errors } = await fetchOnce(url);
    expect(errors).toEqual([]);
    expect(snapshots.at(-1)!.map((p) => p.metadata.name)).toEqual(['web-n1']);
  });

  it('refuses an endless body without a length once it passes the limit', async () => {
    let sent = 0;
    const url = await serve((res) => {
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const write = () => {
        while (!res.destroyed && sent < 64 * MAX_MANIFEST_BYTES) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', write);
        }
      };
      res.on('close', () => (sent = Infinity));
      write();
    });
    const { snapshots, errors } = await fetchOnce(url);
    expect(snapshots).toEqual([]);
    expect(errors).toEqual([
      { source: url, document: 0, message: `fetching the manifest failed: the body is larger than ${MAX_MANIFEST_BYTES} bytes; not read` },
    ]);
  });

  it('refuses a body whose Content-Length is over the limit before reading it', async () => {
    const url = await serve((res) => {
      res.writeHead(200, { 'content-length': String(MAX_MANIFEST_BYTES + 1) });
      res.write('a');
    });
    const { errors } = await fetchOnce(url);
    expect(errors.map((e) => e.message)).toEqual([
      `fetching the manifest failed: the body is larger than ${MAX_MANIFEST_BYTES} bytes (Content-Length ${MAX_MANIFEST_BYTES + 1}); not read`,
    ]);
  });
});
