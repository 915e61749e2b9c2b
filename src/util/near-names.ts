/**
 * Whether NAME likely meant CANDIDATE: the candidate holds it, or it holds
 * the candidate's stem (the name without its last `-part`), since a static
 * pod's name ends with its node's, so `web` is likely `web-myhost`.
 */
export function isNear(name: string, candidate: string): boolean {
  return candidate.includes(name) || name.includes(candidate.replace(/-[^-]+$/, ''));
}

/** The names among CANDIDATES that NAME likely meant (see isNear). */
export function nearNames(name: string, candidates: string[]): string[] {
  return candidates.filter((c) => isNear(name, c));
}

/** The hint after a pod that was not found: the near ones, else where to list them. */
export function nearHint(near: readonly string[] | undefined): string {
  return near?.length ? `did you mean ${near.join(', ')}?` : 'list the pods with `knode status`';
}
