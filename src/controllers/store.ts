import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { Clock } from '../util/clock.js';
import { ClusterError } from '../engine/cluster/client.js';
import { rfc3339, type ObjectMeta } from '../engine/api/v1.js';
import type { KubeObject } from '../engine/api/workloads.js';
import { applyDefaults, prepareForCreate, prepareForUpdate } from './defaults.js';
import { collectorPolicy, defaultPolicy, FOREGROUND_FINALIZER, gcFinalizers, holds, ORPHAN_FINALIZER } from './finalizers.js';
import type { PropagationPolicy } from './finalizers.js';
import { compareStrings } from '../util/compare.js';
import { ChangeLog, type StoreEvent, type StoreEventType } from './change-log.js';

type OwnerReference = NonNullable<ObjectMeta['ownerReferences']>[number];

export { FOREGROUND_FINALIZER, ORPHAN_FINALIZER, type PropagationPolicy } from './finalizers.js';
export type { StoreEvent, StoreEventType } from './change-log.js';

/**
 * The apiserver's storage for one node, in process: objects by kind,
 * namespace and name, one resourceVersion counter, and watches that resume
 * from a version. It does what the apiserver does on write (uid, creation
 * time, generation on a spec change, generateName, graceful pod deletion,
 * finalizers) and what the garbage collector does after it (ownerReference
 * cascades, dependents of owners that are not there) so the controllers over it behave as
 * over a real one. Reads return copies, but for peek() and shared watches,
 * whose readers neither change nor keep the store's own objects.
 */
export class ObjectStore {
  private readonly objects = new Map<string, KubeObject>();
  private readonly changes = new ChangeLog();

  constructor(
    private readonly clock: Clock,
    private readonly random: () => number = Math.random,
  ) {}

  get resourceVersion(): number {
    return this.changes.version;
  }

  get<T extends KubeObject>(kind: string, namespace: string, name: string): T | undefined {
    const o = this.objects.get(keyOf(kind, namespace, name));
    return o ? (structuredClone(o) as T) : undefined;
  }

  /**
   * Every object of KIND (in NAMESPACE, if given) that WHERE keeps, ordered by
   * namespace and name. WHERE sees the store's own object, before it is
   * copied, so it must not change it; filtering there copies only what is kept.
   */
  list<T extends KubeObject>(kind: string, namespace?: string, where?: (o: Readonly<T>) => boolean): T[] {
    const out: T[] = [];
    for (const o of this.objects.values())
      if (o.kind === kind && (namespace === undefined || o.metadata.namespace === namespace) && (!where || where(o as T)))
        out.push(structuredClone(o) as T);
    return out.sort((a, b) =>
      compareStrings(keyOf(a.kind, a.metadata.namespace, a.metadata.name), keyOf(b.kind, b.metadata.namespace, b.metadata.name)),
    );
  }

  /**
   * The store's own objects of KIND in NAMESPACE that WHERE keeps, in no set
   * order and not copied: for a reader that neither changes nor keeps them
   * (a controller counting its pods on every change of one).
   */
  peek<T extends KubeObject>(kind: string, namespace: string, where: (o: Readonly<T>) => boolean): readonly Readonly<T>[] {
    const out: Readonly<T>[] = [];
    for (const o of this.objects.values()) if (o.kind === kind && o.metadata.namespace === namespace && where(o as T)) out.push(o as T);
    return out;
  }

  /** Creates OBJECT as the apiserver does: a name from generateName, a uid, the creation time, generation 1. */
  create<T extends KubeObject>(object: T): T {
    const o = structuredClone(object);
    const meta = o.metadata;
    if (o.kind !== 'Namespace') meta.namespace ||= 'default';
    if (!meta.name && meta.generateName) {
      do meta.name = meta.generateName + randomSuffix(this.random);
      while (this.objects.has(keyOf(o.kind, meta.namespace, meta.name)));
    }
    if (!meta.name)
      throw new ClusterError(422, 'Invalid', `${o.kind} is invalid: metadata.name: Required value: name or generateName is required`);
    const key = keyOf(o.kind, meta.namespace, meta.name);
    if (this.objects.has(key))
      throw new ClusterError(409, 'AlreadyExists', `${lowerKind(o.kind)} ${JSON.stringify(meta.name)} already exists`);
    meta.uid = randomUUID();
    meta.creationTimestamp = rfc3339(this.clock.now());
    meta.generation = 1;
    delete meta.deletionTimestamp;
    prepareForCreate(o);
    this.commit('ADDED', key, o);
    // The garbage collector looks at a new dependent's owners: one whose owners are all gone goes.
    if (meta.ownerReferences?.length) this.attemptToDelete(o);
    return structuredClone(o);
  }

  /**
   * Replaces an object's metadata and spec (or data), keeping its status and
   * identity; the generation moves when the spec changes. A uid in OBJECT is
   * a precondition.
   */
  update<T extends KubeObject>(object: T): T {
    const key = keyOf(object.kind, object.metadata.namespace || 'default', object.metadata.name);
    const old = this.existing(key, object.kind, object.metadata.name!, object.metadata.uid);
    const o: KubeObject = structuredClone(object);
    o.metadata = {
      ...o.metadata,
      namespace: old.metadata.namespace,
      uid: old.metadata.uid,
      creationTimestamp: old.metadata.creationTimestamp,
      deletionTimestamp: old.metadata.deletionTimestamp,
      deletionGracePeriodSeconds: old.metadata.deletionGracePeriodSeconds,
      generation: old.metadata.generation,
    };
    if ('status' in old) o.status = old.status;
    else delete o.status;
    applyDefaults(o);
    prepareForUpdate(o, old);
    if (!isDeepStrictEqual(o.spec, old.spec)) o.metadata.generation = (old.metadata.generation ?? 1) + 1;
    if (isDeepStrictEqual(o, old)) return structuredClone(old) as T;
    this.commit('MODIFIED', key, o);
    // A deletion held by finalizers ends with the last of them (a pod's, once the node let it go).
    if (o.metadata.deletionTimestamp && !o.metadata.deletionGracePeriodSeconds && !holds(o.metadata.finalizers)) this.remove(key, o);
    // An object being deleted that starts waiting for its dependents to be orphaned (the graph builder's transition).
    else if (
      o.metadata.deletionTimestamp &&
      o.metadata.finalizers?.includes(ORPHAN_FINALIZER) &&
      !old.metadata.finalizers?.includes(ORPHAN_FINALIZER)
    )
      this.collectOrphans(o.metadata.uid!);
    else if (!isDeepStrictEqual(o.metadata.ownerReferences, old.metadata.ownerReferences)) this.attemptToDelete(o);
    return structuredClone(o) as T;
  }

  /** Sets an object's status (the status subresource); a uid is a precondition. No writer reads the object back. */
  updateStatus(kind: string, namespace: string, name: string, status: unknown, uid?: string): void {
    const key = keyOf(kind, namespace, name);
    const old = this.existing(key, kind, name, uid);
    if (isDeepStrictEqual(old.status, status)) return;
    this.commit('MODIFIED', key, { ...old, status: structuredClone(status) });
  }

  /**
   * Deletes as the apiserver does, and the garbage collector after it. A pod
   * with a grace period is marked (its deletionTimestamp set) and goes when
   * the node deletes it with grace 0, once its containers stopped. An object
   * with finalizers is marked and stays until an update removes the last
   * one. The objects it controls follow, by POLICY (without one, a
   * finalizer of the object names it, else its kind: defaultPolicy, where a
   * Job orphans its pods). Background deletes them once it is gone;
   * Foreground keeps it, with the foregroundDeletion finalizer, until those
   * that block it are gone; Orphan marks it with the orphan finalizer, which
   * goes once its dependents have lost their reference to it, and it with
   * the finalizer unless another holds it.
   */
  delete(
    kind: string,
    namespace: string,
    name: string,
    options: { uid?: string; gracePeriodSeconds?: number; propagationPolicy?: PropagationPolicy } = {},
  ): void {
    const key = keyOf(kind, namespace, name);
    const old = this.existing(key, kind, name, options.uid);
    if (kind === 'Pod') {
      const spec = old.spec as { terminationGracePeriodSeconds?: number; nodeName?: string } | undefined;
      const grace = options.gracePeriodSeconds ?? spec?.terminationGracePeriodSeconds ?? 30;
      const phase = (old.status as { phase?: string } | undefined)?.phase;
      const finished = phase === 'Succeeded' || phase === 'Failed';
      if (grace > 0 && spec?.nodeName && !finished) {
        if (old.metadata.deletionTimestamp) return;
        this.mark(key, old, grace);
        return;
      }
    }
    const policy = options.propagationPolicy ?? defaultPolicy(old);
    if (policy === 'Orphan') {
      const o = this.mark(key, old, 0, gcFinalizers(old, policy));
      // The garbage collector's attemptToOrphan: the dependents lose their reference, then the owner its finalizer.
      this.collectOrphans(o.metadata.uid!);
      return;
    }
    if (policy === 'Foreground' && this.dependentsOf(old).length > 0) {
      const o = this.mark(key, old, 0, gcFinalizers(old, policy));
      // The garbage collector deletes the dependents: in the foreground those that have dependents of their own.
      for (const dependent of this.dependentsOf(o)) this.attemptToDelete(dependent);
      this.collectForeground(o.metadata.uid!);
      return;
    }
    const finalizers = gcFinalizers(old, 'Background');
    if (holds(finalizers)) {
      this.mark(key, old, 0, finalizers);
      return;
    }
    this.remove(key, old);
  }

  /**
   * Calls LISTENER with every change from now on, each with a copy of the object (with `shared`, the
   * store's own, which the listener must neither change nor keep); returns the unsubscribe.
   */
  watch(listener: (event: StoreEvent) => void, options: { shared?: boolean } = {}): () => void {
    return this.changes.watch(listener, options);
  }

  /** The changes after VERSION, or undefined when they are no longer kept (410 Gone). */
  changesSince(version: number): StoreEvent[] | undefined {
    return this.changes.changesSince(version);
  }

  /** Every object, for saving. */
  dump(): KubeObject[] {
    return [...this.objects.values()].map((o) => structuredClone(o));
  }

  /**
   * Loads saved objects (at start, before any watch), keeping their
   * identities. Then the garbage collector's first look at the graph: an
   * object whose owner is not among them is dangling and goes (or keeps only
   * its live owners), and an owner left in foreground or orphan deletion is
   * looked at again, as if the changes that left them so had just been seen.
   */
  load(objects: KubeObject[], version: number): void {
    for (const o of objects) this.objects.set(keyOf(o.kind, o.metadata.namespace, o.metadata.name), structuredClone(o));
    this.changes.startAt(version);
    for (const o of [...this.objects.values()]) {
      if (o.metadata.ownerReferences?.some((r) => !this.ownerOf(o, r))) this.attemptToDelete(o);
      if (o.metadata.finalizers?.includes(FOREGROUND_FINALIZER)) this.collectForeground(o.metadata.uid!);
      if (o.metadata.finalizers?.includes(ORPHAN_FINALIZER)) this.collectOrphans(o.metadata.uid!);
    }
  }

  /** Sets the deletionTimestamp (GRACE seconds on), once, and FINALIZERS when they differ from the object's. */
  private mark(key: string, old: KubeObject, grace: number, finalizers?: string[]): KubeObject {
    const o = structuredClone(old);
    o.metadata.deletionTimestamp ??= rfc3339(this.clock.now() + grace * 1000);
    o.metadata.deletionGracePeriodSeconds = grace;
    if (finalizers && !isDeepStrictEqual(new Set(finalizers), new Set(o.metadata.finalizers ?? []))) o.metadata.finalizers = finalizers;
    if (!isDeepStrictEqual(o, old)) this.commit('MODIFIED', key, o);
    return o;
  }

  /** Removes the object; what it controls follows in the background, and an owner waiting in the foreground is looked at again. */
  private remove(key: string, old: KubeObject): void {
    this.objects.delete(key);
    this.changes.record('DELETED', old);
    for (const dependent of this.dependentsOf(old)) this.attemptToDelete(dependent);
    this.collectForeground(...(old.metadata.ownerReferences ?? []).map((r) => r.uid));
  }

  /**
   * The garbage collector's attemptToDeleteItem: O's owners are solid (there),
   * dangling (gone, or another object under the name) or waiting (in
   * foreground deletion). With a solid one O stays, without its references
   * to the others. Else it is deleted: in the foreground when an owner waits
   * and it has dependents of its own or carries foregroundDeletion already,
   * else in the background.
   */
  private attemptToDelete(o: KubeObject): void {
    const latest = this.objects.get(keyOf(o.kind, o.metadata.namespace, o.metadata.name));
    if (!latest || latest.metadata.uid !== o.metadata.uid) return;
    const { metadata } = latest;
    const finalizers = metadata.finalizers ?? [];
    if (metadata.deletionTimestamp) {
      if (finalizers.includes(FOREGROUND_FINALIZER)) this.collectForeground(metadata.uid!);
      return;
    }
    const refs = metadata.ownerReferences ?? [];
    const gone: string[] = [];
    let solid = false;
    let waiting = false;
    for (const ref of refs) {
      const owner = this.ownerOf(latest, ref);
      if (!owner) gone.push(ref.uid);
      else if (owner.metadata.deletionTimestamp && owner.metadata.finalizers?.includes(FOREGROUND_FINALIZER)) {
        gone.push(ref.uid);
        waiting = true;
      } else solid = true;
    }
    if (solid || refs.length === 0) {
      if (gone.length > 0) this.removeOwnerReferences(latest, gone);
      return;
    }
    let propagationPolicy = collectorPolicy(finalizers);
    const dependents = waiting ? this.dependentsOf(latest) : [];
    if (dependents.length > 0) {
      propagationPolicy = 'Foreground';
      // A dependent deleting its own might own this one back: as upstream, its references stop blocking, against a cycle.
      if (dependents.some((d) => d.metadata.deletionTimestamp && d.metadata.finalizers?.includes(FOREGROUND_FINALIZER)))
        this.commit('MODIFIED', keyOf(latest.kind, metadata.namespace, metadata.name), {
          ...latest,
          metadata: { ...metadata, ownerReferences: refs.map((r) => (r.blockOwnerDeletion ? { ...r, blockOwnerDeletion: false } : r)) },
        });
    }
    this.delete(latest.kind, metadata.namespace ?? '', metadata.name!, { uid: metadata.uid, propagationPolicy });
  }

  /** The owner REF names, if it is there with that uid: looked up in DEPENDENT's namespace, else among cluster-scoped objects. */
  private ownerOf(dependent: KubeObject, ref: OwnerReference): KubeObject | undefined {
    const owner =
      this.objects.get(keyOf(ref.kind, dependent.metadata.namespace, ref.name)) ?? this.objects.get(keyOf(ref.kind, undefined, ref.name));
    return owner?.metadata.uid === ref.uid ? owner : undefined;
  }

  /**
   * processDeletingDependentsItem: an owner in foreground deletion loses its
   * foregroundDeletion finalizer once no dependent blocks it
   * (blockOwnerDeletion), and goes when no other finalizer holds it.
   */
  private collectForeground(...uids: string[]): void {
    for (const uid of uids) {
      const owner = [...this.objects.values()].find((o) => o.metadata.uid === uid);
      if (!owner?.metadata.finalizers?.includes(FOREGROUND_FINALIZER)) continue;
      if (this.dependentsOf(owner).some((d) => d.metadata.ownerReferences?.some((r) => r.uid === uid && r.blockOwnerDeletion))) continue;
      const metadata: ObjectMeta = { ...owner.metadata, finalizers: owner.metadata.finalizers.filter((f) => f !== FOREGROUND_FINALIZER) };
      if (metadata.finalizers!.length === 0) delete metadata.finalizers;
      this.update({ ...owner, metadata });
    }
  }

  /**
   * attemptToOrphanWorker: an owner being deleted with the orphan finalizer
   * has its reference taken out of its dependents (orphanDependents), then
   * loses the finalizer, and goes when no other finalizer holds it.
   */
  private collectOrphans(...uids: string[]): void {
    for (const uid of uids) {
      const owner = [...this.objects.values()].find((o) => o.metadata.uid === uid);
      if (!owner?.metadata.deletionTimestamp || !owner.metadata.finalizers?.includes(ORPHAN_FINALIZER)) continue;
      for (const dependent of this.dependentsOf(owner)) this.removeOwnerReferences(dependent, [uid]);
      const latest = this.objects.get(keyOf(owner.kind, owner.metadata.namespace, owner.metadata.name));
      if (latest?.metadata.uid !== uid || !latest.metadata.finalizers?.includes(ORPHAN_FINALIZER)) continue;
      const metadata: ObjectMeta = { ...latest.metadata, finalizers: latest.metadata.finalizers.filter((f) => f !== ORPHAN_FINALIZER) };
      if (metadata.finalizers!.length === 0) delete metadata.finalizers;
      this.update({ ...latest, metadata });
    }
  }

  /** DEPENDENT without its references to the owners UIDS. */
  private removeOwnerReferences(dependent: KubeObject, uids: string[]): void {
    const metadata: ObjectMeta = {
      ...dependent.metadata,
      ownerReferences: dependent.metadata.ownerReferences!.filter((r) => !uids.includes(r.uid)),
    };
    if (metadata.ownerReferences!.length === 0) delete metadata.ownerReferences;
    this.update({ ...dependent, metadata });
  }

  private dependentsOf(owner: KubeObject): KubeObject[] {
    return [...this.objects.values()].filter((o) => o.metadata.ownerReferences?.some((r) => r.uid === owner.metadata.uid));
  }

  private existing(key: string, kind: string, name: string, uid: string | undefined): KubeObject {
    const old = this.objects.get(key);
    if (!old) throw new ClusterError(404, 'NotFound', `${lowerKind(kind)} ${JSON.stringify(name)} not found`);
    if (uid && old.metadata.uid !== uid)
      throw new ClusterError(
        409,
        'Conflict',
        `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${old.metadata.uid ?? ''}`,
      );
    return old;
  }

  private commit(type: StoreEventType, key: string, o: KubeObject): void {
    this.objects.set(key, o);
    this.changes.record(type, o);
  }
}

function keyOf(kind: string, namespace: string | undefined, name: string | undefined): string {
  return `${kind}/${namespace ?? ''}/${name ?? ''}`;
}

/** "replicasets" as the apiserver names a resource in its messages (`pods "web" not found`). */
function lowerKind(kind: string): string {
  const lower = kind.toLowerCase();
  return lower.endsWith('s') ? `${lower}es` : `${lower}s`;
}

/** The apiserver's SimpleNameGenerator: five characters without vowels or look-alikes (utilrand.String). */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';
export function randomSuffix(random: () => number, length = 5): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUMS[Math.floor(random() * ALPHANUMS.length)];
  return out;
}

/** rand.SafeEncodeString: each byte of S as one of the generator's characters, as pod-template-hash is spelled. */
export function safeEncode(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s)) out += ALPHANUMS[byte % ALPHANUMS.length];
  return out;
}
