// OCI image-spec and Docker v2 schema 2 documents: the media types the
// runtime accepts, their validation, and platform selection in an index.
import { arch } from 'node:process';

export const MediaType = {
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociConfig: 'application/vnd.oci.image.config.v1+json',
  ociLayer: 'application/vnd.oci.image.layer.v1.tar',
  ociLayerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
  ociLayerZstd: 'application/vnd.oci.image.layer.v1.tar+zstd',
  dockerList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerSchema1: 'application/vnd.docker.distribution.manifest.v1+prettyjws',
  dockerConfig: 'application/vnd.docker.container.image.v1+json',
  dockerLayer: 'application/vnd.docker.image.rootfs.diff.tar',
  dockerLayerGzip: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
} as const;

/** What a registry is asked for, best first (schema 1 is not: it is deprecated and unsigned here). */
export const MANIFEST_ACCEPT = [MediaType.ociIndex, MediaType.dockerList, MediaType.ociManifest, MediaType.dockerManifest].join(', ');

const LAYER_TYPES = new Set<string>([MediaType.ociLayer, MediaType.ociLayerGzip, MediaType.dockerLayer, MediaType.dockerLayerGzip]);

export interface Platform {
  os: string;
  architecture: string;
  variant?: string;
}

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: Platform;
  annotations?: Record<string, string>;
}

export interface ImageIndex {
  mediaType: string;
  manifests: Descriptor[];
}

export interface ImageManifest {
  mediaType: string;
  config: Descriptor;
  layers: Descriptor[];
}

/** The parts of the image config (OCI `config`, Docker `container_config` aside) a runtime uses. */
export interface ImageConfig {
  architecture?: string;
  os?: string;
  config?: {
    User?: string;
    Env?: string[];
    Entrypoint?: string[] | null;
    Cmd?: string[] | null;
    WorkingDir?: string;
    Labels?: Record<string, string> | null;
    StopSignal?: string;
    ExposedPorts?: Record<string, object>;
    Volumes?: Record<string, object>;
  };
  rootfs: { type: string; diff_ids: string[] };
}

export class ManifestError extends Error {
  override readonly name = 'ManifestError';
}

export const DIGEST = /^sha256:[a-f0-9]{64}$/;

/** A digest the store can use as a file name: sha256 only, lowercase hex. */
export function checkDigest(digest: unknown, what: string): string {
  if (typeof digest !== 'string' || !DIGEST.test(digest))
    throw new ManifestError(`${what}: unsupported or malformed digest ${JSON.stringify(digest)}`);
  return digest;
}

function descriptor(value: unknown, what: string): Descriptor {
  const d = value as Descriptor;
  if (!d || typeof d !== 'object') throw new ManifestError(`${what}: not a descriptor`);
  checkDigest(d.digest, what);
  if (!Number.isSafeInteger(d.size) || d.size < 0) throw new ManifestError(`${what}: bad size ${JSON.stringify(d.size)}`);
  if (typeof d.mediaType !== 'string') throw new ManifestError(`${what}: no mediaType`);
  return d;
}

export function isIndex(mediaType: string): boolean {
  return mediaType === MediaType.ociIndex || mediaType === MediaType.dockerList;
}

/**
 * Parses a manifest or index. The media type comes from the document when it
 * says one (both formats do), else from the response's Content-Type.
 */
export function parseManifest(bytes: Buffer, contentType: string): ImageIndex | ImageManifest {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new ManifestError('manifest is not JSON');
  }
  const mediaType = typeof doc.mediaType === 'string' ? doc.mediaType : (contentType.split(';')[0]?.trim() ?? '');
  if (doc.schemaVersion === 1 || mediaType === MediaType.dockerSchema1) {
    throw new ManifestError('Docker schema 1 manifests are not supported; push the image again with a current client');
  }
  if (isIndex(mediaType) || (mediaType === '' && Array.isArray(doc.manifests))) {
    if (!Array.isArray(doc.manifests)) throw new ManifestError('index has no manifests');
    return { mediaType: mediaType || MediaType.ociIndex, manifests: doc.manifests.map((m, i) => descriptor(m, `manifests[${i}]`)) };
  }
  if (mediaType === MediaType.ociManifest || mediaType === MediaType.dockerManifest || (mediaType === '' && doc.config)) {
    if (!Array.isArray(doc.layers)) throw new ManifestError('manifest has no layers');
    const layers = doc.layers.map((l, i) => descriptor(l, `layers[${i}]`));
    for (const layer of layers) {
      if (layer.mediaType === MediaType.ociLayerZstd)
        throw new ManifestError(`layer ${layer.digest} is zstd-compressed, which this runtime cannot decompress (Node 20 has no zstd)`);
      if (!LAYER_TYPES.has(layer.mediaType)) throw new ManifestError(`layer ${layer.digest} has unsupported media type ${layer.mediaType}`);
    }
    return { mediaType: mediaType || MediaType.ociManifest, config: descriptor(doc.config, 'config'), layers };
  }
  throw new ManifestError(`unsupported manifest media type "${mediaType}"`);
}

export function parseImageConfig(bytes: Buffer, layerCount: number): ImageConfig {
  let doc: ImageConfig;
  try {
    doc = JSON.parse(bytes.toString('utf8')) as ImageConfig;
  } catch {
    throw new ManifestError('image config is not JSON');
  }
  const diffIds = doc?.rootfs?.diff_ids;
  if (!Array.isArray(diffIds)) throw new ManifestError('image config has no rootfs.diff_ids');
  if (diffIds.length !== layerCount) throw new ManifestError(`image config names ${diffIds.length} layers, the manifest ${layerCount}`);
  diffIds.forEach((d, i) => checkDigest(d, `rootfs.diff_ids[${i}]`));
  return doc;
}

const NODE_ARCH: Record<string, string> = {
  x64: 'amd64',
  arm64: 'arm64',
  arm: 'arm',
  ia32: '386',
  ppc64: 'ppc64le',
  s390x: 's390x',
  riscv64: 'riscv64',
};

/** The platform this runtime runs images for: the host's. */
export function hostPlatform(): Platform {
  const architecture = NODE_ARCH[arch] ?? arch;
  return { os: 'linux', architecture, variant: architecture === 'arm64' ? 'v8' : architecture === 'arm' ? 'v7' : undefined };
}

/** `linux/arm64/v8` ⇄ Platform. */
export function parsePlatform(text: string): Platform {
  const [os, architecture, variant] = text.split('/');
  if (!os || !architecture) throw new ManifestError(`bad platform "${text}": want os/architecture[/variant]`);
  return { os, architecture, variant };
}

export function formatPlatform(p: Platform | undefined): string {
  if (!p) return 'unknown';
  return [p.os, p.architecture, p.variant].filter(Boolean).join('/');
}

/** arm64's only variant is v8, so "no variant" and "v8" are the same platform (as containerd's matcher says). */
function variantOf(p: Platform): string {
  return p.variant || (p.architecture === 'arm64' ? 'v8' : '');
}

/**
 * The index entry for `want`: same os and architecture, and the same variant
 * when both name one. Entries without a platform (attestations, other
 * artifacts) never match. Throws, naming what the index has, when none does.
 */
export function selectManifest(index: ImageIndex, want: Platform): Descriptor {
  const candidates = index.manifests.filter(
    (m) => m.platform && m.platform.os === want.os && m.platform.architecture === want.architecture,
  );
  const exact = candidates.find((m) => variantOf(m.platform!) === variantOf(want));
  const loose = candidates.find((m) => !m.platform!.variant || !want.variant);
  const chosen = exact ?? loose;
  if (!chosen) {
    const has = index.manifests.map((m) => formatPlatform(m.platform)).join(', ') || 'nothing';
    throw new ManifestError(`no image for platform ${formatPlatform(want)} (the index has: ${has})`);
  }
  if (isIndex(chosen.mediaType))
    throw new ManifestError(`the entry for ${formatPlatform(want)} is itself an index, which images do not nest`);
  return chosen;
}
