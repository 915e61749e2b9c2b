// Runs named by a key (a container's root file system mount, keyed by the
// container's id) that a gated start's go-ahead waits for: kept while they
// run, forgotten once they ended well (a go-ahead that names a run no longer
// here is given at once), and kept after they failed, the last `keep` of
// them, so that no go-ahead is ever given after a failure.

export interface KeyedRun {
  /** Whether it ended well. */
  ok: Promise<boolean>;
}

export class KeyedRuns<T extends KeyedRun = KeyedRun> {
  private readonly runs = new Map<string, T>();
  private readonly failed: [string, T][] = [];

  constructor(private readonly keep = 256) {}

  /** The run keyed `key`: running, or failed; undefined when it ended well, or was never given. */
  get(key: string): T | undefined {
    return this.runs.get(key);
  }

  /** Keeps `run` under `key` (in place of an earlier one) until it has ended well. */
  add(key: string, run: T): void {
    this.runs.set(key, run);
    void run.ok.then((done) => {
      if (this.runs.get(key) !== run) return;
      if (done) {
        this.runs.delete(key);
        return;
      }
      this.failed.push([key, run]);
      while (this.failed.length > this.keep) {
        const [oldKey, old] = this.failed.shift()!;
        if (this.runs.get(oldKey) === old) this.runs.delete(oldKey);
      }
    });
  }
}
