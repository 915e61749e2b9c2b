/**
 * One at a time, one per turn of the event loop: each caller waits for its
 * turn, and between two turns the loop reads and writes its sockets. A fork
 * blocks this thread for milliseconds; a burst of container starts taken in one go
 * answers none of them (nor anything else) until the last has forked, where
 * taken in turns each start is answered as soon as it is done.
 */
export class Turns {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  /** Resolves on this caller's turn: what it does before its next await is all the turn holds. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    // An immediate queued from an immediate runs on the loop's next turn, after its I/O.
    setImmediate(() => {
      this.scheduled = false;
      this.waiting.shift()!();
      this.schedule();
    });
  }
}
