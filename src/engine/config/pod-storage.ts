import { isDeepStrictEqual } from 'node:util';
import type { Pod } from '../api/v1.js';
import { ConfigMirrorAnnotation, ConfigSeenAnnotation, ConfigSourceAnnotation, podFullName } from '../api/pod-util.js';

export type PodOperation = 'ADD' | 'UPDATE' | 'DELETE' | 'REMOVE' | 'RECONCILE';

/** What a source change means for the kubelet, one operation over some pods. */
export interface PodUpdate {
  op: PodOperation;
  pods: Pod[];
  source: string;
}

/** Annotations a source sets locally; a change in them alone is no change to the pod. */
const LOCAL_ANNOTATIONS = new Set([ConfigSourceAnnotation, ConfigMirrorAnnotation, ConfigSeenAnnotation]);

/**
 * The kubelet's podStorage: the pods each source wants, merged from full
 * snapshots into incremental updates. A pod new to its source is an ADD, a
 * changed spec an UPDATE, a new deletionTimestamp a DELETE (graceful), a pod
 * gone from its source a REMOVE, and a change of status alone a RECONCILE.
 */
export class PodStorage {
  private readonly bySource = new Map<string, Map<string, Pod>>();
  /** Each source's last snapshot, by uid: a pod sent again as the very same object has not changed. */
  private readonly lastSent = new Map<string, Map<string, Pod>>();
  private readonly seen = new Set<string>();

  /** Applies a source's full snapshot; returns the updates in the kubelet's order. */
  merge(source: string, snapshot: Pod[], onDuplicate: (pod: Pod) => void = () => {}): PodUpdate[] {
    const firstSet = !this.seen.has(source);
    this.seen.add(source);
    const existing = this.bySource.get(source) ?? new Map<string, Pod>();
    const lastSent = this.lastSent.get(source);
    const sent = new Map<string, Pod>();
    const next = new Map<string, Pod>();
    const adds: Pod[] = [];
    const updates: Pod[] = [];
    const deletes: Pod[] = [];
    const reconciles: Pod[] = [];
    const names = new Set<string>();
    for (const ref of snapshot) {
      const uid = ref.metadata.uid!;
      const name = podFullName(ref);
      if (names.has(name) || next.has(uid)) {
        onDuplicate(ref);
        continue;
      }
      names.add(name);
      sent.set(uid, ref);
      const stored = existing.get(uid);
      if (!stored) {
        // New to the source: an ADD even when already being deleted (the worker then terminates it).
        next.set(uid, ref);
        adds.push(ref);
        continue;
      }
      next.set(uid, stored);
      // Sources make a new object for a changed pod, so the same object again needs no comparing
      // (the apiserver source sends every pod on every change of one).
      if (lastSent?.get(uid) === ref) continue;
      const change = checkAndUpdatePod(stored, ref);
      if (change === 'update') updates.push(stored);
      else if (change === 'delete') deletes.push(stored);
      else if (change === 'reconcile') reconciles.push(stored);
    }
    const removes = [...existing.entries()].filter(([uid]) => !next.has(uid)).map(([, pod]) => pod);
    this.bySource.set(source, next);
    this.lastSent.set(source, sent);

    // Updates carry copies: what the kubelet does with them never reaches back into the storage.
    const out: PodUpdate[] = [];
    const push = (op: PodOperation, pods: Pod[]) => out.push({ op, pods: pods.map((p) => structuredClone(p)), source });
    if (removes.length > 0) push('REMOVE', removes);
    if (adds.length > 0) push('ADD', adds);
    if (updates.length > 0) push('UPDATE', updates);
    if (deletes.length > 0) push('DELETE', deletes);
    // An empty ADD marks a source seen even when it has no pods.
    if (firstSet && adds.length === 0 && updates.length === 0 && deletes.length === 0) push('ADD', []);
    if (reconciles.length > 0) push('RECONCILE', reconciles);
    return out;
  }

  /** True once every named source has sent at least one snapshot. */
  seenAllSources(sources: Iterable<string>): boolean {
    for (const s of sources) if (!this.seen.has(s)) return false;
    return true;
  }

  /** Every pod of every source. */
  allPods(): Pod[] {
    return [...this.bySource.values()].flatMap((m) => [...m.values()]);
  }
}

type Change = 'none' | 'update' | 'delete' | 'reconcile';

/**
 * Folds `ref` into `stored` (kept, so the first-seen time survives) and says
 * what kind of change it was, as the kubelet's checkAndUpdatePod.
 */
function checkAndUpdatePod(stored: Pod, ref: Pod): Change {
  if (!differSemantically(stored, ref)) {
    if (!isDeepStrictEqual(stored.status, ref.status)) {
      stored.status = ref.status;
      return 'reconcile';
    }
    return 'none';
  }
  const seen = stored.metadata.annotations?.[ConfigSeenAnnotation];
  stored.spec = ref.spec;
  stored.metadata.labels = ref.metadata.labels;
  stored.metadata.deletionTimestamp = ref.metadata.deletionTimestamp;
  stored.metadata.deletionGracePeriodSeconds = ref.metadata.deletionGracePeriodSeconds;
  stored.metadata.annotations = { ...ref.metadata.annotations, ...(seen ? { [ConfigSeenAnnotation]: seen } : {}) };
  stored.status = ref.status;
  return ref.metadata.deletionTimestamp ? 'delete' : 'update';
}

function differSemantically(a: Pod, b: Pod): boolean {
  return !(
    isDeepStrictEqual(a.spec, b.spec) &&
    isDeepStrictEqual(a.metadata.labels ?? {}, b.metadata.labels ?? {}) &&
    a.metadata.deletionTimestamp === b.metadata.deletionTimestamp &&
    a.metadata.deletionGracePeriodSeconds === b.metadata.deletionGracePeriodSeconds &&
    isDeepStrictEqual(withoutLocal(a.metadata.annotations), withoutLocal(b.metadata.annotations))
  );
}

function withoutLocal(annotations: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(annotations ?? {}).filter(([k]) => !LOCAL_ANNOTATIONS.has(k)));
}
