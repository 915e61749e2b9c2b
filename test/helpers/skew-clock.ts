import { sleepOn, type Clock, type Timer } from '../../src/util/clock.js';

interface Scheduled {
  at: number;
  fn: () => void;
  every?: number;
  cancelled: boolean;
}

/**
 * A fake clock for tests that run against a real runtime: time flows as
 * real time does (so the runtime's timestamps make sense), and `skip(ms)`
 * jumps it forward, firing every timer that falls due. Lets a test watch a
 * 5-minute backoff without waiting 5 minutes.
 */
export class SkewClock implements Clock {
  private offset = 0;
  private readonly timers: Scheduled[] = [];
  private real: NodeJS.Timeout | undefined;

  now(): number {
    return Date.now() + this.offset;
  }

  setTimeout(fn: () => void, ms: number): Timer {
    return this.schedule({ at: this.now() + Math.max(0, ms), fn, cancelled: false });
  }

  setInterval(fn: () => void, ms: number): Timer {
    const every = Math.max(1, ms);
    return this.schedule({ at: this.now() + every, fn, every, cancelled: false });
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Jumps forward by `ms`; timers due by then fire in order. */
  skip(ms: number): void {
    this.offset += ms;
    this.fireDue();
  }

  dispose(): void {
    clearTimeout(this.real);
    for (const t of this.timers) t.cancelled = true;
  }

  private schedule(t: Scheduled): Timer {
    this.timers.push(t);
    this.arm();
    return {
      cancel: () => {
        t.cancelled = true;
      },
    };
  }

  private fireDue(): void {
    for (;;) {
      const live = this.timers.filter((t) => !t.cancelled);
      this.timers.splice(0, this.timers.length, ...live);
      const due = live.filter((t) => t.at <= this.now()).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      if (due.every) due.at += due.every;
      else due.cancelled = true;
      due.fn();
    }
    this.arm();
  }

  private arm(): void {
    clearTimeout(this.real);
    const next = this.timers.filter((t) => !t.cancelled).sort((a, b) => a.at - b.at)[0];
    if (!next) return;
    this.real = setTimeout(() => this.fireDue(), Math.max(0, next.at - this.now()));
    this.real.unref();
  }
}
