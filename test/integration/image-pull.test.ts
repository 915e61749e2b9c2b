// Real image pulls on the embedded runtime, through the real CRI path (the
// runtime as its own process, over gRPC), from a real registry
// (test/registry/registry.sh: Debian's docker-registry seeded with umoci-built
// busybox images) configured as docker.io's mirror in <root>/registries.yaml.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import { CriError, GrpcCode } from '../../src/cri/errors.js';
import { importImages } from '../../src/cri/image-import.js';
import { composeRootfs } from '../../src/runtime/oci/rootfs.js';
import type { ImageRecord } from '../../src/runtime/records.js';
import { mirrorConfig, startRegistry, startTokenRegistry, type LocalRegistry, type TokenRegistry } from '../helpers/registry.js';
import { startEmbeddedRuntime, type EmbeddedRuntimeProcess } from '../helpers/runtimes.js';
import { makeTar } from '../helpers/tar.js';

let registry: LocalRegistry;
let tokenRegistry: TokenRegistry;
let runtime: EmbeddedRuntimeProcess;
let client: CriClient;
let root: string;

beforeAll(async () => {
  registry = startRegistry();
  tokenRegistry = await startTokenRegistry(registry.storage);
  root = mkdtempSync(join(tmpdir(), 'knode-pull-'));
  writeFileSync(join(root, 'registries.yaml'), mirrorConfig(registry.host, `  "${tokenRegistry.host}":\n    insecure: true\n`));
  runtime = await startEmbeddedRuntime(root);
  client = new CriClient(runtime.endpoint);
}, 180_000);

afterAll(async () => {
  client?.close();
  await runtime?.stop();
  await tokenRegistry?.stop();
  registry?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

const imagesDir = () => join(root, 'runtime', 'images');

/** What the registry itself says (the test's independent view of the image). */
async function registryManifest(
  repo: string,
  reference: string,
  accept = 'application/vnd.oci.image.index.v1+json, application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json',
) {
  const res = await fetch(`${registry.url}/v2/${repo}/manifests/${reference}`, { headers: { accept } });
  return {
    digest: res.headers.get('docker-content-digest')!,
    body: (await res.json()) as {
      manifests?: { digest: string; platform: { architecture: string } }[];
      config: { digest: string; size: number };
      layers: { digest: string; size: number }[];
    },
  };
}

async function failure(promise: Promise<unknown>): Promise<CriError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CriError);
  return err as CriError;
}

function storedRecord(id: string): ImageRecord {
  const records = JSON.parse(readFileSync(join(imagesDir(), 'images.json'), 'utf8')) as ImageRecord[];
  return records.find((r) => r.id === id)!;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const layerDirs = () => readdirSync(join(imagesDir(), 'layers', 'sha256'));

describe('image pulls on the embedded runtime (registries.yaml present)', () => {
  it('pulls docker.io/library/busybox:1.36 from the mirror, picking linux/amd64 from the index', async () => {
    const index = await registryManifest('library/busybox', '1.36');
    const amd64 = index.body.manifests!.find((m) => m.platform.architecture === 'amd64')!;
    const manifest = await registryManifest('library/busybox', amd64.digest);
    const started = performance.now();
    const imageRef = await client.pullImage({ image: 'busybox:1.36' });
    const coldMs = performance.now() - started;
    expect(imageRef).toBe(manifest.body.config.digest);
    const image = await client.imageStatus({ image: 'docker.io/library/busybox:1.36' });
    expect(image).toMatchObject({
      id: manifest.body.config.digest,
      repoTags: ['docker.io/library/busybox:1.36'],
      repoDigests: [`docker.io/library/busybox@${index.digest}`],
    });
    const manifestBytes = Buffer.byteLength(JSON.stringify(manifest.body));
    expect(Number(image!.size)).toBeGreaterThan(manifest.body.config.size + manifest.body.layers[0].size);
    expect(Number(image!.size)).toBeLessThanOrEqual(manifest.body.config.size + manifest.body.layers[0].size + manifestBytes + 100);
    const warmStarted = performance.now();
    expect(await client.pullImage({ image: 'busybox:1.36' })).toBe(imageRef);
    console.log(`busybox:1.36 cold pull ${coldMs.toFixed(0)} ms, warm ${(performance.now() - warmStarted).toFixed(0)} ms`);
  });

  it('lists it, finds it by id and digest, and counts its bytes in ImageFsInfo', async () => {
    const image = (await client.imageStatus({ image: 'busybox:1.36' }))!;
    expect((await client.listImages()).map((i) => i.id)).toContain(image.id);
    expect((await client.imageStatus({ image: image.id }))?.id).toBe(image.id);
    expect((await client.imageStatus({ image: image.repoDigests[0] }))?.id).toBe(image.id);
    const fs = (await client.imageFsInfo()).imageFilesystems[0];
    expect(Number(fs.usedBytes?.value)).toBeGreaterThan(Number(image.size));
    expect(Number(fs.inodesUsed?.value)).toBeGreaterThan(200); // busybox's applet links
    expect(fs.fsId?.mountpoint).toBe(imagesDir());
  });

  it('pulls by digest', async () => {
    const index = await registryManifest('library/busybox', '1.36');
    const id = await client.pullImage({ image: `busybox@${index.digest}` });
    expect(id).toBe((await client.imageStatus({ image: 'busybox:1.36' }))?.id);
  });

  it('pulls a Docker v2 schema 2 image and reports its config (Entrypoint) in the verbose status', async () => {
    await client.pullImage({ image: 'busybox-entrypoint:1.0' });
    const res = await client.imageStatusInfo({ image: 'busybox-entrypoint:1.0' });
    const spec = JSON.parse(res.info.info) as { imageSpec: { config: { Entrypoint: string[]; Cmd: string[] } } };
    expect(spec.imageSpec.config.Entrypoint).toEqual(['/bin/echo', 'entrypoint']);
    expect(spec.imageSpec.config.Cmd).toEqual(['hello']);
  });

  it("reports the image's USER as uid", async () => {
    await client.pullImage({ image: 'busybox-user:1.0' });
    expect((await client.imageStatus({ image: 'busybox-user:1.0' }))?.uid?.value).toBe(1000);
  });

  it('unpacks a 3-layer image once per layer; stacked, its whiteouts and opaque directory give the right files', async () => {
    const started = performance.now();
    const id = await client.pullImage({ image: 'busybox-layers:1.0' });
    const coldMs = performance.now() - started;
    const record = storedRecord(id);
    expect(record.layers).toHaveLength(3);
    const stack = record.layers!.map((diffId) => {
      const dir = join(imagesDir(), 'layers', 'sha256', diffId.slice(7));
      const layer = JSON.parse(readFileSync(join(dir, 'layer.json'), 'utf8')) as { whiteouts: string[]; opaque: string[] };
      return { fs: join(dir, 'fs'), whiteouts: layer.whiteouts, opaque: layer.opaque };
    });
    expect(stack[2]).toMatchObject({ whiteouts: ['data/removed'], opaque: ['data/opaque'] });
    const rootfs = join(root, 'rootfs-check');
    composeRootfs(stack, rootfs);
    expect(readFileSync(join(rootfs, 'data/kept'), 'utf8')).toBe('kept\n');
    expect(readFileSync(join(rootfs, 'data/added'), 'utf8')).toBe('added\n');
    expect(readFileSync(join(rootfs, 'data/opaque/new'), 'utf8')).toBe('new\n');
    expect(existsSync(join(rootfs, 'data/removed'))).toBe(false);
    expect(existsSync(join(rootfs, 'data/opaque/old'))).toBe(false);
    expect(existsSync(join(rootfs, 'bin/sh'))).toBe(true);
    rmSync(rootfs, { recursive: true });
    const warmStarted = performance.now();
    await client.pullImage({ image: 'busybox-layers:1.0' });
    console.log(`busybox-layers:1.0 (3 layers) cold pull ${coldMs.toFixed(0)} ms, warm ${(performance.now() - warmStarted).toFixed(0)} ms`);
  });

  it('removes an image with the layers only it used, and keeps the others', async () => {
    const layers = storedRecord((await client.imageStatus({ image: 'busybox-layers:1.0' }))!.id).layers!.map((d) => d.slice(7));
    const busyboxLayers = storedRecord((await client.imageStatus({ image: 'busybox:1.36' }))!.id).layers!.map((d) => d.slice(7));
    await client.removeImage({ image: 'busybox-layers:1.0' });
    expect(await client.imageStatus({ image: 'busybox-layers:1.0' })).toBeNull();
    expect(layerDirs().filter((d) => layers.includes(d))).toEqual([]);
    expect(layerDirs()).toEqual(expect.arrayContaining(busyboxLayers));
    await client.removeImage({ image: 'busybox-layers:1.0' }); // removing what is gone is not an error (CRI)
  });

  it('refuses a blob whose content does not match its digest', async () => {
    const err = await failure(client.pullImage({ image: 'busybox-corrupt:1.0' }));
    expect(err.code).toBe(GrpcCode.UNKNOWN);
    expect(err.details).toMatch(
      /failed to pull and unpack image "docker.io\/library\/busybox-corrupt:1.0": blob sha256:[a-f0-9]{64} failed verification/,
    );
    expect(await client.imageStatus({ image: 'busybox-corrupt:1.0' })).toBeNull();
  });

  it('refuses a layer with a ../ entry, naming the entry, and writes nothing outside', async () => {
    const err = await failure(client.pullImage({ image: 'evil:1.0' }));
    expect(err.details).toMatch(/layer sha256:[a-f0-9]{64}: entry "..\/escape" escapes the layer root/);
    expect(await client.imageStatus({ image: 'evil:1.0' })).toBeNull();
    expect(execFileSync('find', [root, '-name', 'escape'], { encoding: 'utf8' })).toBe('');
    expect(layerDirs().filter((d) => d.includes('.tmp-'))).toEqual([]);
  });

  it("fails a missing tag with the registry's reason", async () => {
    const err = await failure(client.pullImage({ image: 'busybox:no-such-tag' }));
    expect(err.details).toBe(
      `failed to pull and unpack image "docker.io/library/busybox:no-such-tag": failed to resolve reference "docker.io/library/busybox:no-such-tag": ${registry.host}: 404 Not Found: manifest unknown (MANIFEST_UNKNOWN)`,
    );
  });

  it('fails an unreachable registry with the connection error', async () => {
    const port = await closedPort();
    const err = await failure(client.pullImage({ image: `127.0.0.1:${port}/app:1` }));
    expect(err.details).toMatch(new RegExp(`failed to resolve reference "127.0.0.1:${port}/app:1": 127.0.0.1:${port}: .*ECONNREFUSED`));
  });

  it('gets a bearer token for a registry that wants one: refused without credentials, pulled with the CRI AuthConfig', async () => {
    const image = `${tokenRegistry.host}/library/busybox-user:1.0`;
    const refused = await failure(client.pullImage({ image }));
    expect(refused.details).toMatch(/token server 127.0.0.1:\d+ refused: 401 Unauthorized: wrong or missing credentials/);
    const id = await client.pullImage({ image }, { username: tokenRegistry.user, password: tokenRegistry.password });
    expect(id).toBe((await client.imageStatus({ image: 'busybox-user:1.0' }))?.id);
    expect(tokenRegistry.issued).toBeGreaterThan(0);
    expect((await client.imageStatus({ image }))?.repoTags).toContain(image);
  });

  it('imports an OCI layout tarball (tags under --base-name) and a docker save archive', async () => {
    const archive = execFileSync('bash', [join(import.meta.dirname, '../containerd/containerd.sh'), 'image'], { encoding: 'utf8' }).trim();
    const untagged = await failure(importImages(runtime.endpoint, archive));
    expect(untagged.details).toMatch(/names an image only by its tag "1.36": say which repository .* --base-name/);
    const [oci] = await importImages(runtime.endpoint, archive, 'docker.io/library/imported');
    expect(oci.repoTags).toEqual(['docker.io/library/imported:1.36']);

    // A docker save archive made from the registry's entrypoint image: config, and the layer uncompressed.
    const source = await registryManifest('library/busybox-entrypoint', '1.0');
    const blob = async (d: string) =>
      Buffer.from(await (await fetch(`${registry.url}/v2/library/busybox-entrypoint/blobs/${d}`)).arrayBuffer());
    const saved = join(root, 'saved.tar');
    writeFileSync(
      saved,
      makeTar([
        { path: 'manifest.json', content: JSON.stringify([{ Config: 'config.json', RepoTags: ['saved:1.0'], Layers: ['0/layer.tar'] }]) },
        { path: 'config.json', content: await blob(source.body.config.digest) },
        { path: '0/layer.tar', content: gunzipSync(await blob(source.body.layers[0].digest)) },
      ]),
    );
    const [docker] = await importImages(runtime.endpoint, saved);
    // The same config as the pulled busybox-entrypoint:1.0, so the same image, with one more name.
    expect(docker.id).toBe(source.body.config.digest);
    expect(docker.repoTags).toEqual(expect.arrayContaining(['docker.io/library/saved:1.0', 'docker.io/library/busybox-entrypoint:1.0']));
    expect((await client.listImages()).map((i) => i.repoTags).flat()).toEqual(
      expect.arrayContaining(['docker.io/library/imported:1.36', 'docker.io/library/saved:1.0']),
    );
  });
});
