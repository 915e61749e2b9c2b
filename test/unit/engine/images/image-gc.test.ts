// After upstream's images/image_gc_manager_test.go (TestDetectImages*,
// TestDeleteUnusedImages*, TestFreeSpace*, TestGarbageCollect*,
// TestValidateImageGCPolicy), on FakeRuntimeService and a fake clock.
import { beforeEach, describe, expect, it } from 'vitest';
import { EventStream } from '../../../../src/engine/events.js';
import { IMAGE_GC_PERIOD, ImageGarbageCollector } from '../../../../src/engine/images/image-garbage-collector.js';
import {
  DEFAULT_IMAGE_GC_POLICY,
  formatSize,
  type ImageFsCapacity,
  ImageGCManager,
  type ImageGCPolicy,
} from '../../../../src/engine/images/image-gc.js';
import { FakeClock } from '../../../../src/util/clock.js';
import { FakeRuntimeService } from '../../../helpers/fake-runtime-service.js';

const MINUTE = 60_000;
let clock: FakeClock;
let runtime: FakeRuntimeService;
let fs: ImageFsCapacity;

beforeEach(() => {
  clock = new FakeClock();
  runtime = new FakeRuntimeService(() => clock.now());
  fs = { capacityBytes: 1000, availableBytes: 600 };
});

function manager(policy: Partial<ImageGCPolicy> = {}): ImageGCManager {
  return new ImageGCManager(
    { runtime, images: runtime, clock, imageFsCapacity: () => Promise.resolve(fs) },
    { ...DEFAULT_IMAGE_GC_POLICY, minAge: 0, ...policy },
  );
}

/** Image NAME of SIZE bytes; returns its id. */
function image(name: string, size: number, pinned = false): string {
  const added = runtime.addImage(name);
  added.size = size;
  added.pinned = pinned;
  return added.id;
}

let containers = 0;
/** A container (in STATE) using image ID. */
function useImage(id: string, state: 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' = 'CONTAINER_RUNNING'): string {
  const cid = `c${++containers}`;
  runtime.addContainer('sb', { id: cid, imageId: id, state });
  return cid;
}

const removed = () => runtime.calls('removeImage').map(([spec]) => spec.image);

describe('ImageGCManager.detectImages', () => {
  it('records new images as detected now, images in use as used now, and forgets gone ones', async () => {
    const a = image('a', 1024);
    const b = image('b', 2048);
    useImage(b);
    const m = manager();
    const t0 = clock.now();
    expect([...(await m.detectImages(t0))]).toEqual([b]);
    expect(m.records().get(a)).toEqual({ firstDetected: t0, lastUsed: 0, size: 1024, pinned: false });
    expect(m.records().get(b)).toEqual({ firstDetected: t0, lastUsed: t0, size: 2048, pinned: false });

    await clock.advance(MINUTE);
    runtime.images.delete('a');
    await m.detectImages(clock.now());
    expect([...m.records().keys()]).toEqual([b]);
    expect(m.records().get(b)).toMatchObject({ firstDetected: t0, lastUsed: t0 + MINUTE });
  });

  it('counts a container in use by its imageRef on a runtime without imageId, also when the ref is a repo digest', async () => {
    const a = image('a', 1);
    runtime.images.get('a')!.repoDigests = ['a@sha256:1'];
    runtime.addContainer('sb', { id: 'old', imageRef: 'a@sha256:1', state: 'CONTAINER_EXITED' });
    expect([...(await manager().detectImages(clock.now()))]).toEqual([a]);
  });
});

describe('ImageGCManager.deleteUnusedImages', () => {
  it('removes every image no container uses, and keeps pinned ones (the sandbox image)', async () => {
    const unused = image('unused', 1024);
    image('pause', 2048, true);
    const used = image('used', 4096);
    useImage(used, 'CONTAINER_EXITED');
    const result = await manager().deleteUnusedImages();
    expect(result).toEqual({ removed: [unused], freedBytes: 1024 });
    expect([...runtime.images.keys()].sort()).toEqual(['pause', 'used']);
  });
});

describe('ImageGCManager.garbageCollect', () => {
  it('does nothing below the high threshold', async () => {
    image('a', 100);
    fs = { capacityBytes: 1000, availableBytes: 200 }; // 80% used, high 85
    expect(await manager().garbageCollect(clock.now())).toEqual({ removed: [], freedBytes: 0 });
    expect(removed()).toEqual([]);
  });

  it('at the high threshold frees down to the low one, least recently used first, and stops there', async () => {
    const m = manager();
    const a = image('a', 100);
    const b = image('b', 100);
    const c = image('c', 100);
    // b used first, then a; c never: c, b, a is the order of removal.
    const cb = useImage(b);
    await m.detectImages(clock.now());
    runtime.containers.delete(cb);
    await clock.advance(MINUTE);
    const ca = useImage(a);
    await m.detectImages(clock.now());
    runtime.containers.delete(ca);
    await clock.advance(MINUTE);

    fs = { capacityBytes: 1000, availableBytes: 150 }; // 85% used: free 1000*20% - 150 = 50 bytes
    expect(await m.garbageCollect(clock.now())).toEqual({ removed: [c], freedBytes: 100 });
    fs = { capacityBytes: 1000, availableBytes: 0 }; // 100% used: free 200 bytes
    expect(await m.garbageCollect(clock.now())).toEqual({ removed: [b, a], freedBytes: 200 });
    expect(removed()).toEqual([c, b, a]);
  });

  it('breaks ties of last use by when the image was first detected', async () => {
    const m = manager();
    const older = image('older', 100);
    await m.detectImages(clock.now());
    await clock.advance(MINUTE);
    const newer = image('newer', 100);
    await m.detectImages(clock.now());
    fs = { capacityBytes: 1000, availableBytes: 145 }; // 86% used: free 55 bytes, one image
    expect((await m.garbageCollect(clock.now())).removed).toEqual([older]);
    expect(runtime.images.has('newer') && newer !== older).toBe(true);
  });

  it('never removes an image a container uses, in any state, or a pinned one, and says how much it could not free', async () => {
    const running = image('running', 300);
    const exited = image('exited', 300);
    image('pinned', 300, true);
    const free = image('free', 50);
    useImage(running);
    useImage(exited, 'CONTAINER_EXITED');
    fs = { capacityBytes: 1024 * 1024, availableBytes: 0 };
    const err = await manager()
      .garbageCollect(clock.now())
      .catch((e: unknown) => e);
    expect(err).toMatchObject({
      reason: 'FreeDiskSpaceFailed',
      message:
        "Insufficient free disk space on the node's image filesystem (100% of 1.0 MiB used). Failed to free sufficient space by deleting unused images (freed 50 bytes). Investigate disk usage, as it could be used by active images, logs, volumes, or other data.",
      result: { removed: [free], freedBytes: 50 },
    });
    expect(removed()).toEqual([free]);
  });

  it('keeps images first detected less than minAge ago', async () => {
    const m = manager({ minAge: 2 * MINUTE });
    const a = image('a', 100);
    fs = { capacityBytes: 1000, availableBytes: 0 };
    await expect(m.garbageCollect(clock.now())).rejects.toMatchObject({ reason: 'FreeDiskSpaceFailed' });
    await clock.advance(MINUTE);
    await expect(m.garbageCollect(clock.now())).rejects.toMatchObject({ reason: 'FreeDiskSpaceFailed' });
    expect(removed()).toEqual([]);
    await clock.advance(MINUTE);
    await expect(m.garbageCollect(clock.now())).rejects.toMatchObject({ result: { removed: [a] } });
  });

  it('removes images unused for longer than maxAge whatever the usage, once maxAge has passed since collection began', async () => {
    const m = manager({ maxAge: 10 * MINUTE });
    const began = clock.now();
    const old = image('old', 100);
    const recent = image('recent', 100);
    const inUse = image('in-use', 100);
    const pinned = image('pinned', 100, true);
    const c = useImage(recent);
    useImage(inUse);
    await m.detectImages(clock.now());
    await clock.advance(5 * MINUTE);
    await m.detectImages(clock.now()); // recent: last used now
    runtime.containers.delete(c);

    await clock.advance(5 * MINUTE); // 10m since began: not past maxAge yet
    expect(await m.garbageCollect(began)).toEqual({ removed: [], freedBytes: 0 });
    await clock.advance(1);
    expect((await m.garbageCollect(began)).removed).toEqual([old]);
    await clock.advance(5 * MINUTE);
    expect((await m.garbageCollect(began)).removed).toEqual([recent]);
    expect(runtime.images.has('in-use') && runtime.images.has('pinned')).toBe(true);
    expect([inUse, pinned].every((id) => m.records().has(id))).toBe(true);
  });

  it('refuses a capacity of 0, and gathers the errors of removals that failed', async () => {
    image('a', 100);
    image('b', 100);
    fs = { capacityBytes: 0, availableBytes: 0 };
    await expect(manager().garbageCollect(clock.now())).rejects.toMatchObject({
      reason: 'InvalidDiskCapacity',
      message: 'invalid capacity 0 on image filesystem',
    });
    fs = { capacityBytes: 1000, availableBytes: 0 };
    runtime.injectError('removeImage', new Error('busy'), new Error('read-only'));
    await expect(manager().garbageCollect(clock.now())).rejects.toMatchObject({
      reason: 'ImageGCFailed',
      message: 'wanted to free 200 bytes, but freed 0 bytes space with errors in image deletion: [busy, read-only]',
    });
  });

  it('validates the policy as NewImageGCManager does', () => {
    expect(() => manager({ highThresholdPercent: 101 })).toThrow('invalid HighThresholdPercent 101, must be in range [0-100]');
    expect(() => manager({ lowThresholdPercent: -1 })).toThrow('invalid LowThresholdPercent -1, must be in range [0-100]');
    expect(() => manager({ highThresholdPercent: 50, lowThresholdPercent: 60 })).toThrow(
      'LowThresholdPercent 60 can not be higher than HighThresholdPercent 50',
    );
  });

  it('writes sizes as the kubelet formatSize does', () => {
    expect([formatSize(512), formatSize(1536), formatSize(10 * 1024 ** 3), formatSize(3 * 1024 ** 4)]).toEqual([
      '512 B',
      '1.5 KiB',
      '10.0 GiB',
      '3.0 TiB',
    ]);
  });
});

describe('ImageGarbageCollector', () => {
  function collector(policy: Partial<ImageGCPolicy> = {}) {
    const events = new EventStream(() => clock.now());
    const seen: { type: string; reason?: string; message?: string }[] = [];
    events.subscribe((e) => seen.push(e));
    const full = { ...DEFAULT_IMAGE_GC_POLICY, minAge: 0, ...policy };
    return { gc: new ImageGarbageCollector({ manager: manager(full), policy: full, clock, events }), seen };
  }

  it('collects at start and every five minutes; FreeDiskSpaceFailed each time, ImageGCFailed from the second failure in a row', async () => {
    image('a', 10);
    fs = { capacityBytes: 1000, availableBytes: 0 };
    const { gc, seen } = collector();
    gc.start();
    await gc.idle();
    expect(seen.map((e) => e.type)).toEqual(['ImageGarbageCollected', 'FreeDiskSpaceFailed']);
    await clock.advance(IMAGE_GC_PERIOD - 1);
    expect(seen).toHaveLength(2);
    await clock.advance(1);
    await gc.idle();
    expect(seen.slice(2).map((e) => [e.type, e.reason])).toEqual([
      ['FreeDiskSpaceFailed', 'FreeDiskSpaceFailed'],
      ['ImageGCFailed', 'ImageGCFailed'],
    ]);
    fs = { capacityBytes: 1000, availableBytes: 1000 };
    await clock.advance(IMAGE_GC_PERIOD);
    await gc.idle();
    expect(seen).toHaveLength(4);
    await gc.stop();
  });

  it('is off when the high threshold is 100 and there is no maximum age', async () => {
    image('a', 10);
    fs = { capacityBytes: 1000, availableBytes: 0 };
    const { gc } = collector({ highThresholdPercent: 100, lowThresholdPercent: 99 });
    expect(gc.enabled).toBe(false);
    gc.start();
    await clock.advance(IMAGE_GC_PERIOD);
    expect(runtime.calls('listImages')).toEqual([]);
    expect(collector({ highThresholdPercent: 100, lowThresholdPercent: 99, maxAge: MINUTE }).gc.enabled).toBe(true);
  });
});
