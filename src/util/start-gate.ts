import type { Clock, Timer } from './clock.js';

/** Gives a place back; a second call does nothing. */
export type Release = () => void;

/**
 * Lets at most LIMIT callers through at once, in the order they came (0: no
 * bound). A caller that keeps its place longer than HOLD ms gives it up to
 * the next one waiting, so one call that hangs (a CNI plugin that never
 * answers) delays the others by HOLD at most, never for as long as it hangs.
 */
export class StartGate {
  private inside = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly limit: number,
    private readonly hold: number,
    private readonly clock: Clock,
  ) {}

  /** Waits for a place; rejects with the signal's reason when it aborts first (the place never taken). */
  async enter(signal?: AbortSignal): Promise<Release> {
    if (this.limit <= 0) return () => {};
    // A place given back goes straight to the first caller waiting, so none slips in between.
    if (this.inside < this.limit) this.inside++;
    else await this.queue(signal);
    let timer: Timer | undefined = this.clock.setTimeout(() => leave(), this.hold);
    const leave = () => {
      if (!timer) return;
      timer.cancel();
      timer = undefined;
      const next = this.waiting.shift();
      if (next) next();
      else this.inside--;
    };
    return leave;
  }

  /** Callers waiting for a place. */
  get queued(): number {
    return this.waiting.length;
  }

  private queue(signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      signal?.throwIfAborted();
      const go = () => {
        signal?.removeEventListener('abort', abort);
        resolve();
      };
      const abort = () => {
        const at = this.waiting.indexOf(go);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', abort, { once: true });
      this.waiting.push(go);
    });
  }
}
