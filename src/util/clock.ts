/** A scheduled callback that can be cancelled. */
export interface Timer {
  cancel(): void;
}

/**
 * Time as the engine sees it. Everything that waits (tickers, backoff, resync,
 * relist) goes through a Clock, so tests drive time with FakeClock instead of
 * sleeping.
 */
export interface Clock {
  /** Milliseconds since the epoch; never goes backwards. */
  now(): number;
  setTimeout(fn: () => void, ms: number): Timer;
  /** Calls `fn` every `ms` until cancelled (a ticker). */
  setInterval(fn: () => void, ms: number): Timer;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real clock: wall time from a monotonic source, timers that do not keep the process alive. */
export class RealClock implements Clock {
  private readonly origin = performance.timeOrigin;

  now(): number {
    return this.origin + performance.now();
  }

  setTimeout(fn: () => void, ms: number): Timer {
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref();
    return { cancel: () => clearTimeout(t) };
  }

  setInterval(fn: () => void, ms: number): Timer {
    const t = setInterval(fn, Math.max(1, ms));
    t.unref();
    return { cancel: () => clearInterval(t) };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }
}

export function sleepOn(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      timer.cancel();
      reject(signal!.reason);
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

interface Scheduled {
  at: number;
  seq: number;
  fn: () => void;
  every?: number;
  cancelled: boolean;
}

/**
 * A clock for tests: time moves only when `advance` says so, and timers fire
 * in order of their due time (then of creation).
 */
export class FakeClock implements Clock {
  private current: number;
  private seq = 0;
  private readonly timers: Scheduled[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): Timer {
    return this.schedule(fn, Math.max(0, ms));
  }

  setInterval(fn: () => void, ms: number): Timer {
    return this.schedule(fn, Math.max(1, ms), Math.max(1, ms));
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Timers not yet fired or cancelled. */
  get pending(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due on the way,
   * and lets promise callbacks run after each one, so work a timer starts can
   * schedule the next.
   */
  async advance(ms: number): Promise<void> {
    const end = this.current + ms;
    for (;;) {
      await flushMicrotasks();
      const next = this.nextDue(end);
      if (!next) break;
      this.current = Math.max(this.current, next.at);
      if (next.every) next.at += next.every;
      else next.cancelled = true;
      next.fn();
    }
    this.current = end;
    await flushMicrotasks();
  }

  private nextDue(end: number): Scheduled | undefined {
    let best: Scheduled | undefined;
    for (const t of this.timers) {
      if (t.cancelled || t.at > end) continue;
      if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    for (let i = this.timers.length - 1; i >= 0; i--) if (this.timers[i].cancelled) this.timers.splice(i, 1);
    return best;
  }

  private schedule(fn: () => void, delay: number, every?: number): Timer {
    const t: Scheduled = { at: this.current + delay, seq: this.seq++, fn, every, cancelled: false };
    this.timers.push(t);
    return { cancel: () => (t.cancelled = true) };
  }
}

/** Lets queued promise callbacks (and the ones they queue) run. */
export async function flushMicrotasks(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}

/**
 * Keeps the process alive until `work` settles: the real clock's timers do
 * not, so a command whose only work is waiting on them (a retry, a poll)
 * would otherwise end in the middle.
 */
export async function keepingAlive<T>(work: Promise<T>): Promise<T> {
  const handle = setInterval(() => {}, 1 << 30);
  try {
    return await work;
  } finally {
    clearInterval(handle);
  }
}
