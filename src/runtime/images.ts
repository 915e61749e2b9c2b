import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../util/atomic-file.js';
import type { AuthConfig__Output } from '../cri/gen/runtime/v1/AuthConfig.js';
import { unknown } from './errors.js';
import { nowNs } from './ids.js';
import type { ImageRecord } from './records.js';
import { formatReference, parseReference, repository } from './reference.js';

const IMAGE_ID = /^(?:sha256:)?([a-f0-9]{64})$/;

/**
 * What the CRI ImageService and CreateContainer need of an image store. Two
 * stores have it: image records (below, the default) and, when
 * `<root-dir>/registries.yaml` exists, real images pulled from registries
 * (oci/image-store.ts).
 */
export interface RuntimeImages {
  /** `records` or `registry`, for `runtime status`. */
  readonly kind: 'records' | 'registry';
  list(): ImageRecord[];
  find(name: string): ImageRecord | undefined;
  pull(name: string, auth?: AuthConfig__Output | null): ImageRecord | Promise<ImageRecord>;
  remove(name: string): void;
  /** Bytes and inodes the images take on disk, for ImageFsInfo. */
  usage(): { bytes: number; inodes: number };
}

/** The image a user or kubelet names by id, `name[:tag]` or `name@digest`. */
export function findImage(images: Iterable<ImageRecord>, byId: Map<string, ImageRecord>, name: string): ImageRecord | undefined {
  const id = IMAGE_ID.exec(name);
  if (id) return byId.get(`sha256:${id[1]}`);
  const normalized = formatReference(parseReference(name));
  for (const image of images) {
    if (image.repoTags.includes(normalized) || image.repoDigests.includes(normalized)) return image;
  }
  return undefined;
}

/**
 * The embedded runtime's images, for now records without content: containers
 * run host programs, so an image is a name the runtime promises to know.
 * A pull records the reference, except from registries that cannot exist
 * (hosts under the reserved `.invalid` domain, RFC 2606), which fail the way
 * an unreachable registry does, so ErrImagePull and ImagePullBackOff are real.
 */
export class ImageStore implements RuntimeImages {
  readonly kind = 'records';
  private readonly images = new Map<string, ImageRecord>();

  constructor(private readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    for (const record of loadImageRecords(file)) this.images.set(record.id, record);
  }

  list(): ImageRecord[] {
    return [...this.images.values()];
  }

  find(name: string): ImageRecord | undefined {
    return findImage(this.images.values(), this.images, name);
  }

  /** A record is all the store holds of an image. */
  usage(): { bytes: number; inodes: number } {
    return { bytes: this.list().reduce((sum, i) => sum + i.size, 0), inodes: this.images.size };
  }

  pull(name: string): ImageRecord {
    const ref = parseReference(name);
    const normalized = formatReference(ref);
    if (ref.domain === 'invalid' || ref.domain.split(':')[0].endsWith('.invalid')) {
      const host = ref.domain.split(':')[0];
      throw unknown(
        `failed to pull and unpack image "${normalized}": failed to resolve reference "${normalized}": ` +
          `dial tcp: lookup ${host}: no such host`,
      );
    }
    const existing = this.find(normalized);
    if (existing) return existing;
    const digest = ref.digest ?? `sha256:${sha256(`manifest\0${normalized}`)}`;
    const record: ImageRecord = {
      id: `sha256:${sha256(`config\0${normalized}`)}`,
      repoTags: ref.tag ? [normalized] : [],
      repoDigests: [`${repository(ref)}@${digest}`],
      size: 0,
      pulledAt: nowNs(),
    };
    // A record is all the store holds of the image: its size is the record's.
    record.size = Buffer.byteLength(JSON.stringify(record));
    this.images.set(record.id, record);
    this.save();
    return record;
  }

  /** Removes an image; removing one that is not there is not an error (CRI says so). */
  remove(name: string): void {
    const image = this.find(name);
    if (!image) return;
    this.images.delete(image.id);
    this.save();
  }

  private save(): void {
    writeFileAtomic(this.file, JSON.stringify(this.list()));
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The image records a store saved in `file` (none when it does not exist yet). */
export function loadImageRecords(file: string): ImageRecord[] {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as ImageRecord[];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}
