import type { Clock } from './clock.js';

interface Entry {
  backoff: number;
  lastUpdate: number;
}

/**
 * Per-key exponential backoff, as client-go's flowcontrol.Backoff: `next`
 * doubles the delay up to `max`; an entry untouched for twice `max` starts
 * over from `initial` (so a container that ran cleanly for 10 minutes after a
 * 5-minute cap is no longer in CrashLoopBackOff).
 */
export class Backoff {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly clock: Clock,
    readonly initial: number,
    readonly max: number,
  ) {}

  /** Records a failure at `eventTime` and grows the delay. */
  next(key: string, eventTime: number): void {
    const entry = this.entries.get(key);
    if (!entry || this.hasExpired(eventTime, entry.lastUpdate)) {
      this.entries.set(key, { backoff: this.initial, lastUpdate: eventTime });
      return;
    }
    entry.backoff = Math.min(entry.backoff * 2, this.max);
    entry.lastUpdate = eventTime;
  }

  /** The current delay for `key` (0 when none). */
  get(key: string): number {
    return this.entries.get(key)?.backoff ?? 0;
  }

  /** True while less than the current delay has passed since `eventTime`. */
  isInBackOffSince(key: string, eventTime: number): boolean {
    const entry = this.entries.get(key);
    if (!entry || this.hasExpired(eventTime, entry.lastUpdate)) return false;
    return this.clock.now() - eventTime < entry.backoff;
  }

  /** True while less than the current delay has passed since the last failure was recorded. */
  isInBackOffSinceUpdate(key: string): boolean {
    const entry = this.entries.get(key);
    if (!entry || this.hasExpired(this.clock.now(), entry.lastUpdate)) return false;
    return this.clock.now() - entry.lastUpdate < entry.backoff;
  }

  /** When the backoff started at `eventTime` ends (for "back-off 40s" messages and the TUI). */
  remaining(key: string, eventTime: number): number {
    const entry = this.entries.get(key);
    return entry ? Math.max(0, eventTime + entry.backoff - this.clock.now()) : 0;
  }

  /** How long until the delay since the last recorded failure is over. */
  remainingSinceUpdate(key: string): number {
    const entry = this.entries.get(key);
    return entry ? Math.max(0, entry.lastUpdate + entry.backoff - this.clock.now()) : 0;
  }

  /**
   * Takes up a delay from before a restart of this process (the runtime's
   * records show how often a container restarted): only when there is no
   * entry, so it never shortens one kept here.
   */
  restore(key: string, backoff: number, lastUpdate: number): void {
    if (this.entries.has(key)) return;
    this.entries.set(key, { backoff: Math.min(Math.max(backoff, this.initial), this.max), lastUpdate });
  }

  reset(key: string): void {
    this.entries.delete(key);
  }

  /** Forgets entries idle for longer than twice the maximum delay. */
  gc(): void {
    const now = this.clock.now();
    for (const [key, entry] of this.entries) if (this.hasExpired(now, entry.lastUpdate)) this.entries.delete(key);
  }

  private hasExpired(eventTime: number, lastUpdate: number): boolean {
    return eventTime - lastUpdate > this.max * 2;
  }
}

/**
 * One retry loop's delays: `next()` gives the initial delay, then doubles it
 * up to `max`; `reset()` after a success starts over (client-go's
 * wait.Backoff without jitter).
 */
export class RetryDelay {
  private current = 0;

  constructor(
    readonly initial: number,
    readonly max: number,
  ) {}

  next(): number {
    this.current = this.current === 0 ? this.initial : Math.min(this.current * 2, this.max);
    return this.current;
  }

  reset(): void {
    this.current = 0;
  }
}
