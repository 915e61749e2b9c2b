// The embedded runtime's images when `<root-dir>/registries.yaml` exists:
// real images, pulled from registries (or imported from archives) into the
// content store. An image is named by its config digest, as in containerd;
// tags and digests are names that point at it, and a tag pulled again moves
// to the image it now resolves to.
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../util/atomic-file.js';
import type { AuthConfig__Output } from '../../cri/gen/runtime/v1/AuthConfig.js';
import { RuntimeError, unknown } from '../errors.js';
import { nowNs } from '../ids.js';
import { findImage, loadImageRecords, type RuntimeImages } from '../images.js';
import type { ImageRecord } from '../records.js';
import { formatReference, parseReference, repository } from '../reference.js';
import { readImageArchive, type ArchiveImage } from './archive-import.js';
import { ContentStore, type LayerRecord } from './content-store.js';
import type { ImageConfig } from './manifest.js';
import { pullImage, storeImage } from './pull.js';
import type { RegistryConfig } from './registry-config.js';
import type { StackedLayer } from './rootfs.js';

export class OciImageStore implements RuntimeImages {
  readonly kind = 'registry';
  readonly content: ContentStore;
  private readonly images = new Map<string, ImageRecord>();
  private readonly file: string;

  constructor(
    dir: string,
    readonly registries: RegistryConfig,
  ) {
    mkdirSync(dir, { recursive: true });
    this.content = new ContentStore(dir);
    this.file = join(dir, 'images.json');
    for (const record of loadImageRecords(this.file)) this.images.set(record.id, record);
  }

  list(): ImageRecord[] {
    return [...this.images.values()];
  }

  find(name: string): ImageRecord | undefined {
    return findImage(this.images.values(), this.images, name);
  }

  /**
   * Pulls `name` and records it. Failures keep the registry's reason in the
   * message, as containerd's do: that reason is what the kubelet shows in
   * ErrImagePull.
   */
  async pull(name: string, auth?: AuthConfig__Output | null): Promise<ImageRecord> {
    const ref = parseReference(name);
    const normalized = formatReference(ref);
    let stored;
    try {
      stored = await pullImage(ref, { registries: this.registries, store: this.content, auth });
    } catch (err) {
      this.collectGarbage();
      if (err instanceof RuntimeError) throw err;
      throw unknown(`failed to pull and unpack image "${normalized}": ${(err as Error).message}`);
    }
    try {
      return this.add({
        repoTags: ref.tag && !ref.digest ? [normalized] : [],
        repoDigests: [`${repository(ref)}@${stored.topDigest}`],
        topDigest: stored.topDigest,
        manifestDigest: stored.manifestDigest,
        manifestSize: stored.manifestSize,
        manifest: stored.manifest,
        config: stored.config,
        layers: stored.layers,
      });
    } finally {
      stored.release();
    }
  }

  /** Imports every image of an OCI layout tarball or `docker save` archive. */
  async import(file: string, baseName?: string): Promise<ImageRecord[]> {
    const out: ImageRecord[] = [];
    try {
      for (const image of await readImageArchive(file, { store: this.content, platform: this.registries.platform, baseName })) {
        const stored = await storeImage(this.content, image.manifest, this.registries.platform, undefined);
        try {
          out.push(this.add({ ...image, config: stored.config, layers: stored.layers }));
        } finally {
          stored.release();
        }
      }
    } catch (err) {
      this.collectGarbage();
      throw unknown(`failed to import ${file}: ${(err as Error).message}`);
    }
    return out;
  }

  remove(name: string): void {
    const image = this.find(name);
    if (!image) return;
    this.images.delete(image.id);
    this.save();
    this.collectGarbage();
  }

  usage(): { bytes: number; inodes: number } {
    let bytes = 0;
    let inodes = 0;
    const blobs = join(this.content.dir, 'blobs', 'sha256');
    for (const name of readdirSync(blobs)) {
      try {
        bytes += statSync(join(blobs, name)).size;
        inodes++;
      } catch {
        // Removed while we counted.
      }
    }
    for (const diffId of new Set(this.list().flatMap((i) => i.layers ?? []))) {
      const layer = this.content.layer(diffId);
      if (layer) {
        bytes += layer.bytes;
        inodes += layer.inodes;
      }
    }
    return { bytes, inodes };
  }

  /** The image's config (Entrypoint, Cmd, Env, WorkingDir, User ...). */
  config(image: ImageRecord): ImageConfig {
    return JSON.parse(this.content.readBlob(image.id).toString('utf8')) as ImageConfig;
  }

  /** The image's unpacked layers, lowest first, for composeRootfs or an overlay mount. */
  rootfsLayers(image: ImageRecord): StackedLayer[] {
    return (image.layers ?? []).map((diffId) => {
      const layer = this.content.layer(diffId);
      if (!layer) throw unknown(`image ${image.id}: layer ${diffId} is missing from the store; pull the image again`);
      return { fs: join(this.content.layerDir(diffId), 'fs'), whiteouts: layer.whiteouts, opaque: layer.opaque };
    });
  }

  private add(image: ArchiveImage & { config: ImageConfig; layers: LayerRecord[] }): ImageRecord {
    const id = image.manifest.config.digest;
    // A name points at one image: a tag pulled again leaves the image it pointed at before.
    for (const other of this.images.values()) {
      if (other.id === id) continue;
      other.repoTags = other.repoTags.filter((t) => !image.repoTags.includes(t));
      other.repoDigests = other.repoDigests.filter((d) => !image.repoDigests.includes(d));
    }
    const previous = this.images.get(id);
    const blobs = new Set([
      ...(previous?.blobs ?? []),
      image.topDigest,
      image.manifestDigest,
      id,
      ...image.manifest.layers.map((l) => l.digest),
    ]);
    const record: ImageRecord = {
      id,
      repoTags: [...new Set([...(previous?.repoTags ?? []), ...image.repoTags])],
      repoDigests: [...new Set([...(previous?.repoDigests ?? []), ...image.repoDigests])],
      size: image.manifestSize + image.manifest.config.size + image.manifest.layers.reduce((n, l) => n + l.size, 0),
      pulledAt: nowNs(),
      manifestDigest: image.manifestDigest,
      layers: image.config.rootfs.diff_ids,
      blobs: [...blobs],
      ...userOf(image.config),
    };
    this.images.set(id, record);
    this.save();
    return record;
  }

  private collectGarbage(): void {
    const blobs = new Set(this.list().flatMap((i) => i.blobs ?? []));
    const layers = new Set(this.list().flatMap((i) => i.layers ?? []));
    this.content.collectGarbage(blobs, layers);
  }

  private save(): void {
    writeFileAtomic(this.file, JSON.stringify(this.list()));
  }
}

/** containerd's rule: the user part of `user[:group]`, as a uid when numeric, else as a name. */
function userOf(config: ImageConfig): { uid?: number; username?: string } {
  const user = (config.config?.User ?? '').split(':')[0];
  if (user === '') return {};
  return /^\d+$/.test(user) ? { uid: Number(user) } : { username: user };
}
