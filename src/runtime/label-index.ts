// Record ids by label, so that a list with a label selector (the kubelet's
// and knode's relist of one pod: io.kubernetes.pod.uid=...) reads the few
// records that can match rather than every record the runtime holds. A
// record's labels are set when it is made and never change (CRI has no call
// that changes them).

export class LabelIndex {
  /** Ids by label (key and value). */
  private readonly byPair = new Map<string, Set<string>>();
  /** The pairs each id is under. */
  private readonly pairsOf = new Map<string, string[]>();

  /** Indexes `id` under its labels (once: a record saved again keeps its labels). */
  add(id: string, labels: Record<string, string>): void {
    if (this.pairsOf.has(id)) return;
    const pairs = Object.entries(labels).map(([key, value]) => pair(key, value));
    this.pairsOf.set(id, pairs);
    for (const p of pairs) {
      let ids = this.byPair.get(p);
      if (!ids) this.byPair.set(p, (ids = new Set()));
      ids.add(id);
    }
  }

  remove(id: string): void {
    for (const p of this.pairsOf.get(id) ?? []) {
      const ids = this.byPair.get(p);
      ids?.delete(id);
      if (ids?.size === 0) this.byPair.delete(p);
    }
    this.pairsOf.delete(id);
  }

  /**
   * The ids that can match `selector` (every one of them has its rarest
   * pair; the caller still checks the rest), or undefined for an empty
   * selector, which every record matches.
   */
  candidates(selector: Record<string, string> | undefined): ReadonlySet<string> | undefined {
    let fewest: ReadonlySet<string> | undefined;
    for (const [key, value] of Object.entries(selector ?? {})) {
      const ids = this.byPair.get(pair(key, value)) ?? NONE;
      if (!fewest || ids.size < fewest.size) fewest = ids;
    }
    return fewest;
  }
}

const NONE: ReadonlySet<string> = new Set();

/** Two labels that made the same pair would only add candidates, which the caller's check drops. */
function pair(key: string, value: string): string {
  return `${key}\0${value}`;
}
