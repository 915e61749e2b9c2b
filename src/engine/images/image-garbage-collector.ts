import type { Clock, Timer } from '../../util/clock.js';
import type { EventStream } from '../events.js';
import { ImageGCError, type ImageGCManager, type ImageGCPolicy, type ImageGCResult } from './image-gc.js';

/** How often images are collected (the kubelet's ImageGCPeriod). */
export const IMAGE_GC_PERIOD = 5 * 60_000;

export interface ImageGarbageCollectorDeps {
  manager: Pick<ImageGCManager, 'garbageCollect' | 'deleteUnusedImages'>;
  policy: ImageGCPolicy;
  clock: Clock;
  events: EventStream;
}

/**
 * The kubelet's StartGarbageCollection for images: a collection at start and
 * every five minutes, on its own timer beside the sync loop; off when the high
 * threshold is 100 and there is no maximum age. What it removed is an
 * ImageGarbageCollected event; not freeing enough is a FreeDiskSpaceFailed
 * warning each time, and a collection that failed twice in a row an
 * ImageGCFailed warning (the first failure may be stats not ready yet).
 */
export class ImageGarbageCollector {
  private timer: Timer | undefined;
  private pass: Promise<void> | undefined;
  private began = 0;
  private previousFailed = false;

  constructor(private readonly deps: ImageGarbageCollectorDeps) {}

  /** Whether the policy collects at all. */
  get enabled(): boolean {
    return !(this.deps.policy.highThresholdPercent === 100 && this.deps.policy.maxAge === 0);
  }

  start(): void {
    if (this.timer || !this.enabled) return;
    this.began = this.deps.clock.now();
    this.timer = this.deps.clock.setInterval(() => void this.collect(), IMAGE_GC_PERIOD);
    void this.collect();
  }

  async stop(): Promise<void> {
    this.timer?.cancel();
    this.timer = undefined;
    await this.pass;
  }

  /** Waits for the collection under way, if any. */
  async idle(): Promise<void> {
    await this.pass;
  }

  /** One collection; one at a time (one still under way when the next is due makes that one a no-op). */
  collect(): Promise<void> {
    this.pass ??= this.run().finally(() => (this.pass = undefined));
    return this.pass;
  }

  /**
   * The eviction manager's reclaim (the kubelet's DeleteUnusedImages): every
   * unused image past its minimum age, whatever the thresholds, reported as a
   * periodic collection is; a failure is the eviction manager's to log.
   */
  async deleteUnused(): Promise<void> {
    this.collected(await this.deps.manager.deleteUnusedImages());
  }

  private async run(): Promise<void> {
    try {
      this.collected(await this.deps.manager.garbageCollect(this.began));
      this.previousFailed = false;
    } catch (err) {
      const { events } = this.deps;
      const message = (err as Error).message;
      if (err instanceof ImageGCError) {
        this.collected(err.result);
        if (err.reason === 'FreeDiskSpaceFailed')
          events.emit({ type: 'FreeDiskSpaceFailed', pod: '', uid: '', reason: err.reason, message });
        if (err.reason === 'InvalidDiskCapacity') events.emit({ type: 'ImageGCFailed', pod: '', uid: '', reason: err.reason, message });
      }
      if (this.previousFailed) events.emit({ type: 'ImageGCFailed', pod: '', uid: '', reason: 'ImageGCFailed', message });
      this.previousFailed = true;
    }
  }

  private collected(result: ImageGCResult): void {
    if (result.removed.length === 0) return;
    this.deps.events.emit({
      type: 'ImageGarbageCollected',
      pod: '',
      uid: '',
      message: `removed ${result.removed.length} images, freed ${result.freedBytes} bytes`,
      detail: result,
    });
  }
}
