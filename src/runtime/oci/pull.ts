// A pull, as containerd's CRI plugin does it: resolve the reference on the
// first endpoint that has it (mirrors, then the registry), pick the host's
// platform from an index, then fetch the config and layers into the content
// store (skipping what it holds) and unpack each layer once.
import type { AuthConfig__Output } from '../../cri/gen/runtime/v1/AuthConfig.js';
import type { ImageReference } from '../reference.js';
import { formatReference } from '../reference.js';
import { credentialsFor, RegistryError } from './auth.js';
import type { ContentStore, LayerRecord } from './content-store.js';
import {
  isIndex,
  ManifestError,
  parseImageConfig,
  parseManifest,
  selectManifest,
  type Descriptor,
  type ImageConfig,
  type ImageManifest,
  type Platform,
} from './manifest.js';
import { RegistryClient, type FetchedManifest } from './registry-client.js';
import { endpointsFor, type RegistryConfig } from './registry-config.js';
import { eachLimited } from '../../util/each-limited.js';

/** An image whose blobs are in the store and whose layers are unpacked. */
export interface StoredImage {
  /** What the reference resolved to: an index, or the manifest itself. */
  topDigest: string;
  manifestDigest: string;
  manifest: ImageManifest;
  /** Size of the platform manifest's JSON, which counts toward the image's size. */
  manifestSize: number;
  config: ImageConfig;
  layers: LayerRecord[];
  /** Lets garbage collection have the image's blobs again; call once a record names them. */
  release(): void;
}

export interface PullOptions {
  registries: RegistryConfig;
  store: ContentStore;
  auth?: AuthConfig__Output | null;
  timeoutMs?: number;
  /** Layers fetched at once. */
  concurrency?: number;
}

/** Pull failures that mean "the registry does not have it", as opposed to "could not ask". */
export class NotFoundError extends RegistryError {}

export async function pullImage(ref: ImageReference, options: PullOptions): Promise<StoredImage> {
  const name = formatReference(ref);
  const { client, top } = await resolve(ref, options);
  const releases = [options.store.pin([top.digest])];
  try {
    const parsed = parseManifest(top.bytes, top.contentType);
    options.store.putBlob(top.bytes, top.digest);
    let manifest: FetchedManifest = top;
    if (isIndex(parsed.mediaType)) {
      const chosen = selectManifest(parsed as { mediaType: string; manifests: Descriptor[] }, options.registries.platform);
      manifest = await client.manifest(chosen.digest);
      if (manifest.digest !== chosen.digest) throw new ManifestError(`manifest ${chosen.digest} has digest ${manifest.digest}`);
      releases.push(options.store.pin([manifest.digest]));
      options.store.putBlob(manifest.bytes, manifest.digest);
    }
    const image = parseManifest(manifest.bytes, manifest.contentType);
    if (isIndex(image.mediaType)) throw new ManifestError(`${name}: the platform entry is an index, which images do not nest`);
    const stored = await storeImage(
      options.store,
      image as ImageManifest,
      options.registries.platform,
      (d) => client.blob(d.digest),
      options.concurrency,
    );
    return {
      ...stored,
      manifest: image as ImageManifest,
      topDigest: top.digest,
      manifestDigest: manifest.digest,
      manifestSize: manifest.bytes.length,
      release: () => {
        stored.release();
        releases.forEach((r) => r());
      },
    };
  } catch (err) {
    releases.forEach((r) => r());
    throw err;
  }
}

/** The first endpoint's answer for the tag or digest; every endpoint's reason when none has it. */
async function resolve(ref: ImageReference, options: PullOptions): Promise<{ client: RegistryClient; top: FetchedManifest }> {
  const name = formatReference(ref);
  const reasons: string[] = [];
  let allNotFound = true;
  for (const endpoint of endpointsFor(options.registries, ref.domain)) {
    const client = new RegistryClient(endpoint, ref.path, credentialsFor(options.auth, [endpoint.host, ref.domain]), {
      timeoutMs: options.timeoutMs,
    });
    try {
      const top = await client.manifest(ref.digest ?? ref.tag ?? 'latest');
      if (ref.digest && top.digest !== ref.digest) throw new RegistryError(`${endpoint.host}: answered ${top.digest} for ${ref.digest}`);
      return { client, top };
    } catch (err) {
      if (!(err instanceof RegistryError)) throw err;
      if (err.status !== 404) allNotFound = false;
      reasons.push(err.message);
    }
  }
  const Kind = allNotFound ? NotFoundError : RegistryError;
  throw new Kind(`failed to resolve reference "${name}": ${reasons.join('; ')}`, allNotFound ? 404 : undefined);
}

/**
 * Puts a manifest's config and layers in the store (fetching what is
 * missing with `fetchBlob`) and unpacks the layers, `concurrency` at a time.
 * Shared by pulls and imports (which have every blob already).
 */
export async function storeImage(
  store: ContentStore,
  manifest: ImageManifest,
  platform: Platform,
  fetchBlob: ((d: Descriptor) => Promise<AsyncIterable<Uint8Array>>) | undefined,
  concurrency = 3,
): Promise<{ config: ImageConfig; layers: LayerRecord[]; release(): void }> {
  const release = store.pin([manifest.config.digest, ...manifest.layers.map((l) => l.digest)]);
  try {
    await ensureBlob(store, manifest.config, fetchBlob);
    const config = parseImageConfig(store.readBlob(manifest.config.digest), manifest.layers.length);
    if (config.os && config.architecture && (config.os !== platform.os || config.architecture !== platform.architecture)) {
      throw new ManifestError(`image is for ${config.os}/${config.architecture}, not ${platform.os}/${platform.architecture}`);
    }
    const diffIds = config.rootfs.diff_ids;
    const releaseLayers = store.pin(diffIds);
    const layers: LayerRecord[] = new Array(manifest.layers.length);
    // Every layer under way finishes before a failure is reported, so nothing is still writing when the caller cleans up.
    try {
      await eachLimited(manifest.layers, concurrency, async (desc, i) => {
        const existing = store.layer(diffIds[i]);
        if (existing && store.hasBlob(desc.digest, desc.size)) {
          layers[i] = existing;
          return;
        }
        await ensureBlob(store, desc, fetchBlob);
        layers[i] = await store.unpack(desc.digest, diffIds[i]);
      });
    } catch (err) {
      releaseLayers();
      throw err;
    }
    return {
      config,
      layers,
      release: () => {
        release();
        releaseLayers();
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}

async function ensureBlob(
  store: ContentStore,
  desc: Descriptor,
  fetchBlob: ((d: Descriptor) => Promise<AsyncIterable<Uint8Array>>) | undefined,
): Promise<void> {
  if (store.hasBlob(desc.digest, desc.size)) return;
  if (!fetchBlob) throw new ManifestError(`blob ${desc.digest} is missing`);
  await store.writeBlob(desc.digest, await fetchBlob(desc), desc.size);
}
