// `knode image import FILE`: images from an OCI layout tarball (umoci,
// skopeo `oci-archive:`, `ctr export`) or a `docker save` archive, for
// machines without a registry. The archive is unpacked with the same checks
// as a layer (nothing may land outside the scratch directory), then its
// blobs go into the content store through the same verification as pulled ones.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, createReadStream, existsSync, openSync, readFileSync, readSync, realpathSync, rmSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { formatReference, parseReference, repository } from '../reference.js';
import type { ContentStore } from './content-store.js';
import {
  isIndex,
  ManifestError,
  MediaType,
  parseManifest,
  selectManifest,
  type Descriptor,
  type ImageIndex,
  type ImageManifest,
  type Platform,
} from './manifest.js';
import { entryPath, unpackLayer } from './unpack.js';

/** One image of an archive, its blobs in the store (layers not unpacked yet). */
export interface ArchiveImage {
  repoTags: string[];
  repoDigests: string[];
  topDigest: string;
  manifestDigest: string;
  manifestSize: number;
  manifest: ImageManifest;
}

export interface ImportOptions {
  store: ContentStore;
  platform: Platform;
  /** Repository for images the archive names by tag only (umoci and skopeo layouts do): `docker.io/library/busybox`. */
  baseName?: string;
}

export async function readImageArchive(file: string, options: ImportOptions): Promise<ArchiveImage[]> {
  const scratch = join(options.store.dir, `import.tmp-${randomBytes(4).toString('hex')}`);
  try {
    await unpackLayer(createReadStream(file), scratch);
    if (existsSync(join(scratch, 'manifest.json'))) return await dockerArchive(scratch, options);
    if (existsSync(join(scratch, 'index.json'))) return await ociLayout(scratch, options);
    throw new ManifestError(`${file} is neither an OCI layout tarball (index.json) nor a docker save archive (manifest.json)`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** A file the archive names, which must stay inside the archive even through its symlinks. */
function archiveFile(root: string, name: string): string {
  const path = realpathSync(join(root, entryPath(name)));
  if (!path.startsWith(realpathSync(root) + sep)) throw new ManifestError(`archive file "${name}" leads out of the archive`);
  return path;
}

function json<T>(root: string, name: string): T {
  try {
    return JSON.parse(readFileSync(archiveFile(root, name), 'utf8')) as T;
  } catch (err) {
    throw new ManifestError(`archive file ${name}: ${(err as Error).message}`);
  }
}

async function copyBlob(root: string, store: ContentStore, desc: Pick<Descriptor, 'digest' | 'size'>): Promise<void> {
  if (store.hasBlob(desc.digest, desc.size)) return;
  const path = archiveFile(root, `blobs/sha256/${desc.digest.slice(7)}`);
  await store.writeBlob(desc.digest, createReadStream(path), desc.size);
}

function ociLayout(root: string, options: ImportOptions): Promise<ArchiveImage[]> {
  const index = parseManifest(readFileSync(archiveFile(root, 'index.json')), MediaType.ociIndex) as ImageIndex;
  return Promise.all(
    index.manifests.map(async (entry) => {
      const names = imageName(entry.annotations ?? {}, options.baseName);
      const top = readFileSync(archiveFile(root, `blobs/sha256/${entry.digest.slice(7)}`));
      options.store.putBlob(top, entry.digest);
      let manifestDigest = entry.digest;
      let manifestBytes = top;
      const parsed = parseManifest(top, entry.mediaType);
      if (isIndex(parsed.mediaType)) {
        const chosen = selectManifest(parsed as ImageIndex, options.platform);
        manifestDigest = chosen.digest;
        manifestBytes = readFileSync(archiveFile(root, `blobs/sha256/${chosen.digest.slice(7)}`));
        options.store.putBlob(manifestBytes, chosen.digest);
      }
      const manifest = parseManifest(manifestBytes, MediaType.ociManifest) as ImageManifest;
      for (const desc of [manifest.config, ...manifest.layers]) await copyBlob(root, options.store, desc);
      return {
        repoTags: names ? [names] : [],
        repoDigests: names ? [`${repository(parseReference(names))}@${entry.digest}`] : [],
        topDigest: entry.digest,
        manifestDigest,
        manifestSize: manifestBytes.length,
        manifest,
      };
    }),
  );
}

/** containerd's full name, else the OCI ref name: a whole reference, or a tag under `baseName`. */
function imageName(annotations: Record<string, string>, baseName: string | undefined): string | undefined {
  const name = annotations['io.containerd.image.name'] ?? annotations['org.opencontainers.image.ref.name'];
  if (!name) return undefined;
  if (name.includes('/') || name.includes(':')) return formatReference(parseReference(name));
  if (!baseName)
    throw new ManifestError(
      `the archive names an image only by its tag "${name}": say which repository it belongs to with --base-name (e.g. docker.io/library/busybox)`,
    );
  return formatReference(parseReference(`${baseName}:${name}`));
}

interface DockerArchiveEntry {
  Config: string;
  RepoTags: string[] | null;
  Layers: string[];
}

/** `docker save`: a manifest.json naming config and layer files; the OCI manifest is made here. */
async function dockerArchive(root: string, options: ImportOptions): Promise<ArchiveImage[]> {
  const entries = json<DockerArchiveEntry[]>(root, 'manifest.json');
  if (!Array.isArray(entries)) throw new ManifestError('manifest.json is not a list of images');
  const out: ArchiveImage[] = [];
  for (const entry of entries) {
    const configBytes = readFileSync(archiveFile(root, entry.Config));
    const configDigest = options.store.putBlob(configBytes);
    const layers: Descriptor[] = [];
    for (const name of entry.Layers) {
      const path = archiveFile(root, name);
      const digest = await fileDigest(path);
      const size = statSync(path).size;
      await options.store.writeBlob(digest, createReadStream(path), size);
      const gzip = isGzip(path);
      layers.push({ mediaType: gzip ? MediaType.dockerLayerGzip : MediaType.dockerLayer, digest, size });
    }
    const manifest: ImageManifest = {
      mediaType: MediaType.dockerManifest,
      config: { mediaType: MediaType.dockerConfig, digest: configDigest, size: configBytes.length },
      layers,
    };
    const bytes = Buffer.from(JSON.stringify({ schemaVersion: 2, ...manifest }));
    const manifestDigest = options.store.putBlob(bytes);
    out.push({
      repoTags: (entry.RepoTags ?? []).map((t) => formatReference(parseReference(t))),
      // A registry never saw this manifest: there is no digest to pull it by.
      repoDigests: [],
      topDigest: manifestDigest,
      manifestDigest,
      manifestSize: bytes.length,
      manifest,
    });
  }
  return out;
}

async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest('hex')}`;
}

function isGzip(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(2);
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}
