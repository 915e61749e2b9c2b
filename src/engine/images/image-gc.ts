import type { ImageService, RuntimeService } from '../../cri/runtime-service.js';
import type { Clock } from '../../util/clock.js';
import { formatGoDuration } from '../config/duration.js';
import { readFsUsage } from '../stats/host.js';

/** How images are collected (the kubelet's ImageGCPolicy; ages in ms). */
export interface ImageGCPolicy {
  /** At or above this usage of the image filesystem (percent), unused images are removed... */
  highThresholdPercent: number;
  /** ...until usage is down to this (percent). */
  lowThresholdPercent: number;
  /** An image first seen less than this long ago is kept (it may be about to be used). */
  minAge: number;
  /** An image unused for longer than this is removed whatever the usage; 0: never. */
  maxAge: number;
}

/** The kubelet's defaults: imageGCHighThresholdPercent 85, imageGCLowThresholdPercent 80, imageMinimumGCAge 2m, imageMaximumGCAge 0. */
export const DEFAULT_IMAGE_GC_POLICY: ImageGCPolicy = { highThresholdPercent: 85, lowThresholdPercent: 80, minAge: 120_000, maxAge: 0 };

/** What is known of one image (the kubelet's imageRecord; times in ms, lastUsed 0: never seen in use). */
export interface ImageRecord {
  firstDetected: number;
  lastUsed: number;
  size: number;
  pinned: boolean;
}

/** The image filesystem's size and free space. */
export interface ImageFsCapacity {
  capacityBytes: number;
  availableBytes: number;
}

/** A collection that could not do what it had to; `reason` is the kubelet's event reason, `result` what it removed all the same. */
export class ImageGCError extends Error {
  override readonly name = 'ImageGCError';
  result: ImageGCResult = { removed: [], freedBytes: 0 };
  constructor(
    message: string,
    readonly reason: 'FreeDiskSpaceFailed' | 'InvalidDiskCapacity' | 'ImageGCFailed' = 'ImageGCFailed',
  ) {
    super(message);
  }
}

/** What a collection removed. */
export interface ImageGCResult {
  /** The ids of the images removed, for age then for space. */
  removed: string[];
  freedBytes: number;
}

export interface ImageGCDeps {
  runtime: Pick<RuntimeService, 'listContainers'>;
  images: Pick<ImageService, 'listImages' | 'removeImage' | 'imageFsInfo'>;
  clock: Clock;
  /** The image filesystem's capacity; by default statfs of the mountpoint the runtime's ImageFsInfo names. */
  imageFsCapacity?: () => Promise<ImageFsCapacity>;
}

interface EvictionInfo extends ImageRecord {
  id: string;
}

/** Go's errors.NewAggregate(...).Error(): one message alone, several in brackets. */
const aggregate = (errors: Error[]) => (errors.length === 1 ? errors[0].message : `[${errors.map((e) => e.message).join(', ')}]`);

/** A size as the kubelet's formatSize writes it (`1.5 GiB`). */
export function formatSize(bytes: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  if (bytes < 1024) return `${Math.trunc(bytes)} B`;
  let size = bytes / 1024;
  let unit = 0;
  while (size >= 1024 && unit < units.length - 1) {
    size /= 1024;
    unit++;
  }
  return `${size.toFixed(1)} ${units[unit]}`;
}

/**
 * The kubelet's image garbage collector (images realImageGCManager): it
 * remembers when each image was first seen and last seen in use by a
 * container (in any state), removes images unused for longer than the
 * policy's maxAge, and when the image filesystem is at or above the high
 * threshold removes unused images, least recently used first, until usage is
 * down to the low threshold. Images in use, pinned ones and ones first seen
 * less than minAge ago are never removed.
 */
export class ImageGCManager {
  private readonly imageRecords = new Map<string, ImageRecord>();

  constructor(
    private readonly deps: ImageGCDeps,
    private readonly policy: ImageGCPolicy,
  ) {
    const { highThresholdPercent: high, lowThresholdPercent: low } = policy;
    if (high < 0 || high > 100) throw new Error(`invalid HighThresholdPercent ${high}, must be in range [0-100]`);
    if (low < 0 || low > 100) throw new Error(`invalid LowThresholdPercent ${low}, must be in range [0-100]`);
    if (low > high) throw new Error(`LowThresholdPercent ${low} can not be higher than HighThresholdPercent ${high}`);
  }

  /** What is known of each image, by id. */
  records(): ReadonlyMap<string, Readonly<ImageRecord>> {
    return this.imageRecords;
  }

  /** The records brought up to date first (`knode image ls` shows last used): an image in use now was used now. */
  async recordsNow(): Promise<ReadonlyMap<string, Readonly<ImageRecord>>> {
    await this.detectImages(this.deps.clock.now());
    return this.imageRecords;
  }

  /** Lists images and containers: new images are recorded as seen now, images in use as used now, gone ones forgotten. Returns the ids in use. */
  async detectImages(detectTime: number): Promise<Set<string>> {
    const images = await this.deps.images.listImages();
    const containers = await this.deps.runtime.listContainers();
    // The kubelet's ImageID: the container's imageId, its imageRef on runtimes older than CRI 1.30.
    const refs = new Set(containers.map((c) => c.imageId || c.imageRef).filter((ref) => ref !== ''));
    const inUse = new Set<string>();
    const now = this.deps.clock.now();
    const current = new Set<string>();
    for (const image of images) {
      current.add(image.id);
      let record = this.imageRecords.get(image.id);
      if (!record) {
        record = { firstDetected: detectTime, lastUsed: 0, size: 0, pinned: false };
        this.imageRecords.set(image.id, record);
      }
      if (refs.has(image.id) || image.repoDigests.some((d) => refs.has(d))) {
        inUse.add(image.id);
        record.lastUsed = now;
      }
      record.size = Number(image.size);
      record.pinned = image.pinned;
    }
    for (const id of this.imageRecords.keys()) if (!current.has(id)) this.imageRecords.delete(id);
    return inUse;
  }

  /**
   * One collection (the kubelet's GarbageCollect). BEGAN is when collection
   * began on this node: no image goes for its age before maxAge has passed
   * since then. Rejects with an ImageGCError when it could not free what the
   * thresholds ask (reason FreeDiskSpaceFailed) or the capacity is unknown.
   */
  async garbageCollect(began: number): Promise<ImageGCResult> {
    const result: ImageGCResult = { removed: [], freedBytes: 0 };
    try {
      await this.collect(began, result);
    } catch (err) {
      if (err instanceof ImageGCError) err.result = result;
      throw err;
    }
    return result;
  }

  private async collect(began: number, result: ImageGCResult): Promise<void> {
    const freeTime = this.deps.clock.now();
    let images = await this.imagesInEvictionOrder(freeTime);
    images = await this.freeOldImages(images, freeTime, began, result);

    const fs = await (this.deps.imageFsCapacity ?? (() => runtimeImageFsCapacity(this.deps.images)))();
    const capacity = fs.capacityBytes;
    const available = Math.min(fs.availableBytes, capacity);
    if (capacity === 0) throw new ImageGCError('invalid capacity 0 on image filesystem', 'InvalidDiskCapacity');

    const usagePercent = 100 - Math.floor((available * 100) / capacity);
    if (usagePercent >= this.policy.highThresholdPercent) {
      const amountToFree = Math.floor((capacity * (100 - this.policy.lowThresholdPercent)) / 100) - available;
      const freed = await this.freeSpace(amountToFree, freeTime, images, result);
      if (freed < amountToFree) {
        throw new ImageGCError(
          `Insufficient free disk space on the node's image filesystem (${usagePercent}% of ${formatSize(capacity)} used). ` +
            `Failed to free sufficient space by deleting unused images (freed ${freed} bytes). ` +
            'Investigate disk usage, as it could be used by active images, logs, volumes, or other data.',
          'FreeDiskSpaceFailed',
        );
      }
    }
  }

  /** Removes every unused image that is old enough (the kubelet's DeleteUnusedImages). */
  async deleteUnusedImages(): Promise<ImageGCResult> {
    const freeTime = this.deps.clock.now();
    const result: ImageGCResult = { removed: [], freedBytes: 0 };
    await this.freeSpace(Number.MAX_SAFE_INTEGER, freeTime, await this.imagesInEvictionOrder(freeTime), result);
    return result;
  }

  /** Unused, unpinned images, least recently used first (ties: first detected first). */
  private async imagesInEvictionOrder(freeTime: number): Promise<EvictionInfo[]> {
    const inUse = await this.detectImages(freeTime);
    const images: EvictionInfo[] = [];
    for (const [id, record] of this.imageRecords) {
      if (inUse.has(id) || record.pinned) continue;
      images.push({ id, ...record });
    }
    return images.sort((a, b) => (a.lastUsed === b.lastUsed ? a.firstDetected - b.firstDetected : a.lastUsed - b.lastUsed));
  }

  private async freeOldImages(images: EvictionInfo[], freeTime: number, began: number, result: ImageGCResult): Promise<EvictionInfo[]> {
    const { maxAge } = this.policy;
    // Until maxAge has passed since collection began, the records cannot say what was used in that time.
    if (maxAge === 0 || freeTime - began <= maxAge) return images;
    const errors: Error[] = [];
    const remaining: EvictionInfo[] = [];
    for (const image of images) {
      if (freeTime - image.lastUsed <= maxAge) {
        remaining.push(image);
        continue;
      }
      try {
        await this.freeImage(image, result);
      } catch (err) {
        errors.push(err as Error);
        remaining.push(image);
      }
    }
    if (errors.length > 0)
      throw new ImageGCError(
        `wanted to free images older than ${formatGoDuration(maxAge)}, encountered errors in image deletion: ${aggregate(errors)}`,
      );
    return remaining;
  }

  /** Removes old enough images in IMAGES' order until BYTES are freed; returns what was freed. */
  private async freeSpace(bytes: number, freeTime: number, images: EvictionInfo[], result: ImageGCResult): Promise<number> {
    const errors: Error[] = [];
    let freed = 0;
    for (const image of images) {
      // In use at freeTime (seen in use since it was listed).
      if (image.lastUsed >= freeTime) continue;
      // Maybe just pulled and about to be used.
      if (freeTime - image.firstDetected < this.policy.minAge) continue;
      try {
        await this.freeImage(image, result);
      } catch (err) {
        errors.push(err as Error);
        continue;
      }
      freed += image.size;
      if (freed >= bytes) break;
    }
    if (errors.length > 0)
      throw new ImageGCError(
        `wanted to free ${bytes} bytes, but freed ${freed} bytes space with errors in image deletion: ${aggregate(errors)}`,
      );
    return freed;
  }

  private async freeImage(image: EvictionInfo, result: ImageGCResult): Promise<void> {
    await this.deps.images.removeImage({ image: image.id });
    this.imageRecords.delete(image.id);
    result.removed.push(image.id);
    result.freedBytes += image.size;
  }
}

/** The image filesystem's capacity: statfs of the mountpoint the runtime's ImageFsInfo reports (as the kubelet's stats provider does). */
export async function runtimeImageFsCapacity(images: Pick<ImageService, 'imageFsInfo'>): Promise<ImageFsCapacity> {
  const info = await images.imageFsInfo();
  const mount = info.imageFilesystems[0]?.fsId?.mountpoint;
  if (!mount) throw new ImageGCError('the runtime reports no image filesystem');
  const usage = readFsUsage(mount);
  if (!usage) throw new ImageGCError(`cannot read the image filesystem at ${mount}`);
  return { capacityBytes: usage.capacityBytes, availableBytes: usage.availableBytes };
}
