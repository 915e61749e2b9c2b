/**
 * An unbounded queue with an async `next()`, the engine's stand-in for a Go
 * channel with one reader. `close()` makes pending and future `next()` calls
 * resolve to undefined.
 */
export class AsyncQueue<T> {
  private readonly items: T[] = [];
  private waiter: ((item: T | undefined) => void) | undefined;
  private closed = false;

  push(item: T): void {
    if (this.closed) return;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w(item);
    } else {
      this.items.push(item);
    }
  }

  next(): Promise<T | undefined> {
    if (this.items.length > 0) return Promise.resolve(this.items.shift());
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => (this.waiter = resolve));
  }

  get length(): number {
    return this.items.length;
  }

  close(): void {
    this.closed = true;
    this.items.length = 0;
    const w = this.waiter;
    this.waiter = undefined;
    w?.(undefined);
  }
}
