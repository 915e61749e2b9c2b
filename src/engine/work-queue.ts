import type { Clock } from '../util/clock.js';

/**
 * When each pod is next due for a sync (resync, or retry after an error):
 * the kubelet's work queue. The sync ticker takes what is due.
 */
export class WorkQueue {
  private readonly due = new Map<string, number>();

  constructor(private readonly clock: Clock) {}

  enqueue(uid: string, delay: number): void {
    this.due.set(uid, this.clock.now() + delay);
  }

  /** Takes every pod whose time has come. */
  getWork(): string[] {
    const now = this.clock.now();
    const out: string[] = [];
    for (const [uid, at] of this.due) {
      if (at <= now) {
        out.push(uid);
        this.due.delete(uid);
      }
    }
    return out;
  }

  /** When a pod is next due, for the TUI. */
  dueAt(uid: string): number | undefined {
    return this.due.get(uid);
  }

  forget(uid: string): void {
    this.due.delete(uid);
  }
}

/** `duration` plus up to `factor` of it at random (wait.Jitter). */
export function jitter(duration: number, factor: number, random: () => number): number {
  return duration + random() * factor * duration;
}
