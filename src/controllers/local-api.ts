import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Clock, Timer } from '../util/clock.js';
import { writeFileAtomic } from '../util/atomic-file.js';
import { ClusterError, type LocalApi, type PodWatch, type WatchEventType } from '../engine/cluster/client.js';
import { DELETABLE } from '../engine/cluster/status-sync.js';
import type { Pod } from '../engine/api/v1.js';
import type { ConfigMap, KubeObject, PersistentVolumeClaim, Secret } from '../engine/api/workloads.js';
import type { ObjectStore, PropagationPolicy, StoreEvent } from './store.js';

/** How soon after a change the store is saved: a burst of changes is written once. */
const SAVE_DELAY_MS = 200;
/** How soon a save the disk refused is tried again. */
const SAVE_RETRY_MS = 5_000;

interface Applied {
  source: string;
  /** The object as its manifest last gave it, to tell an edit from a controller's own write. */
  manifest: unknown;
}

interface SavedState {
  resourceVersion: number;
  objects: KubeObject[];
  applied: [string, Applied][];
}

/** kubectl apply's word for what it did to an object. */
export type AppliedAs = 'created' | 'configured' | 'unchanged';

/**
 * A standalone node's apiserver, over the object store: the pods bound to
 * the node for the api source (list and watch from a resourceVersion, 410
 * when it is too old), pod status from the node, ConfigMaps and Secrets for
 * its pods, and the manifests' objects per source, as `kubectl apply --prune`
 * would keep them. Saved under the root dir, so a restart finds the same
 * objects and pods (same names and uids) and adopts what runs.
 */
export class LocalApiserver implements LocalApi {
  readonly server = 'local';
  private readonly applied = new Map<string, Applied>();
  /** What the last apply did to each object, as kubectl apply says it. */
  private readonly verdicts = new Map<string, AppliedAs>();
  /** The sources that gave their objects in this process. */
  private readonly live = new Set<string>();
  private saveTimer: Timer | undefined;

  constructor(
    readonly store: ObjectStore,
    private readonly clock: Clock,
    private readonly file?: string,
    /** Where claims' directories live (`<claimsDir>/<namespace>/<name>`). */
    private readonly claimsDir?: string,
  ) {
    if (file) this.restore(file);
    if (file) store.watch(() => this.scheduleSave(), { shared: true });
  }

  async listPods(fieldSelector: string): Promise<{ items: Pod[]; resourceVersion: string }> {
    const node = nodeOf(fieldSelector);
    const items = this.store.list<KubeObject>('Pod').filter((p) => !node || (p.spec as Pod['spec']).nodeName === node);
    return { items: items as unknown as Pod[], resourceVersion: String(this.store.resourceVersion) };
  }

  async watchPods(
    fieldSelector: string,
    resourceVersion: string,
    _timeoutSeconds: number,
    onEvent: (type: WatchEventType, object: Record<string, unknown>) => void,
  ): Promise<PodWatch> {
    const node = nodeOf(fieldSelector);
    let finish!: (end: { error?: ClusterError }) => void;
    const done = new Promise<{ error?: ClusterError }>((resolve) => (finish = resolve));
    const past = this.store.changesSince(Number(resourceVersion) || 0);
    if (!past) {
      finish({ error: new ClusterError(410, 'Expired', `too old resource version: ${resourceVersion}`) });
      return { done, stop: () => {} };
    }
    // The store's own objects are looked at; only this node's pods are copied, for the watcher to keep.
    const deliver = (e: StoreEvent) => {
      if (e.object.kind !== 'Pod') return;
      if (node && (e.object.spec as Pod['spec']).nodeName !== node) return;
      onEvent(e.type, structuredClone(e.object) as unknown as Record<string, unknown>);
    };
    // Delivered after this call returns, as a watch's events come after it is open.
    const unsubscribe = this.store.watch(deliver, { shared: true });
    queueMicrotask(() => past.forEach(deliver));
    return {
      done,
      stop: () => {
        unsubscribe();
        finish({});
      },
    };
  }

  /** The status replaces the stored one whole; a field a strategic merge patch deletes (null) is left out. */
  async patchPodStatus(namespace: string, name: string, patch: object): Promise<void> {
    const { metadata, status } = patch as { metadata?: { uid?: string }; status: unknown };
    this.store.updateStatus('Pod', namespace, name, withoutDeleted(status), metadata?.uid);
  }

  async deletePod(namespace: string, name: string, uid: string, gracePeriodSeconds: number): Promise<void> {
    this.store.delete('Pod', namespace, name, { uid, gracePeriodSeconds });
  }

  async getConfigMap(namespace: string, name: string): Promise<{ data?: Record<string, string>; binaryData?: Record<string, string> }> {
    const cm = this.store.get<ConfigMap>('ConfigMap', namespace, name);
    if (!cm) throw new ClusterError(404, 'NotFound', `configmap "${name}" not found`);
    return { data: cm.data, binaryData: cm.binaryData };
  }

  async getSecret(namespace: string, name: string): Promise<{ data?: Record<string, string> }> {
    const secret = this.store.get<Secret>('Secret', namespace, name);
    if (!secret) throw new ClusterError(404, 'NotFound', `secret "${name}" not found`);
    return { data: secret.data };
  }

  async claimPath(namespace: string, name: string): Promise<string> {
    const claim = this.store.get<PersistentVolumeClaim>('PersistentVolumeClaim', namespace, name);
    if (!claim || !this.claimsDir) throw new ClusterError(404, 'NotFound', `persistentvolumeclaims "${name}" not found`);
    return ensureClaimDir(this.claimsDir, namespace, name);
  }

  /**
   * The objects SOURCE's manifests hold now. A new one is created; one whose
   * manifest changed is updated (what a controller wrote, its status, stays);
   * one the source no longer holds is deleted, with what it controls. An
   * object another source of this process holds stays that source's.
   */
  applyObjects(source: string, objects: KubeObject[]): void {
    this.live.add(source);
    const wanted = new Set<string>();
    for (const raw of objects) {
      const object = normalize(raw);
      const key = keyOf(object);
      if (wanted.has(key)) continue; // the first of two same-named objects wins, as for pods
      wanted.add(key);
      const owner = this.applied.get(key);
      // Another source of this node has it. One of before that this node does not read (a former
      // --static-dir, a file applied) gives it up, as kubectl apply updates an object from any file.
      if (owner && owner.source !== source && this.live.has(owner.source)) continue;
      const existing = this.store.get(object.kind, object.metadata.namespace!, object.metadata.name!);
      const unchanged = owner !== undefined && isDeepStrictEqual(owner.manifest, object);
      // A Job the TTL-after-finished controller deleted, or a dependent the garbage collector did, is made
      // again only when its manifest changes.
      if (!existing && unchanged && (object.kind === 'Job' || object.metadata.ownerReferences?.length)) {
        this.noteVerdict(key, 'unchanged');
        continue;
      }
      if (!existing) this.store.create(object);
      else if (!unchanged) this.store.update({ ...object, metadata: { ...existing.metadata, ...object.metadata } });
      this.noteVerdict(key, !existing ? 'created' : unchanged ? 'unchanged' : 'configured');
      this.applied.set(key, { source, manifest: object });
    }
    for (const [key, owner] of [...this.applied]) {
      if (owner.source !== source || wanted.has(key)) continue;
      this.applied.delete(key);
      const [kind, namespace, name] = key.split('/');
      try {
        // In the background, as `kubectl apply --prune` deletes: a Job's pods go with it.
        this.store.delete(kind, namespace, name, { propagationPolicy: 'Background' });
      } catch (err) {
        if (!ClusterError.notFound(err)) throw err;
      }
    }
    this.scheduleSave();
  }

  /**
   * Deletes an object (with what it controls, by POLICY, which kubectl
   * always sends) and forgets which manifest gave it, as `kubectl delete` does.
   */
  deleteObject(kind: string, namespace: string, name: string, propagationPolicy: PropagationPolicy): void {
    this.applied.delete(`${kind}/${namespace}/${name}`);
    this.store.delete(kind, namespace, name, { propagationPolicy });
    this.scheduleSave();
  }

  /** What the last apply of KEY's manifest did, as kubectl apply says it; undefined when this node applied none. */
  appliedAs(key: string): AppliedAs | undefined {
    return this.verdicts.get(key);
  }

  /** A source read again unchanged leaves what this process did to the object before (created, configured) as it was. */
  private noteVerdict(key: string, verdict: AppliedAs): void {
    if (verdict !== 'unchanged' || !this.verdicts.has(key)) this.verdicts.set(key, verdict);
  }

  /** The objects (`kind/namespace/name`) that LOCATION's manifests hold. */
  keysFrom(location: string): string[] {
    return [...this.applied].filter(([, a]) => a.source === location).map(([key]) => key);
  }

  /** Writes the store now (at exit, so nothing waits on the timer). */
  save(): void {
    this.saveTimer?.cancel();
    this.saveTimer = undefined;
    if (!this.file) return;
    const state: SavedState = { resourceVersion: this.store.resourceVersion, objects: this.store.dump(), applied: [...this.applied] };
    try {
      writeFileAtomic(this.file, JSON.stringify(state));
    } catch {
      // A full or read-only disk: the objects stay in memory and are written again once the disk takes them.
      this.scheduleSave(SAVE_RETRY_MS);
    }
  }

  private scheduleSave(delay = SAVE_DELAY_MS): void {
    if (!this.file || this.saveTimer) return;
    this.saveTimer = this.clock.setTimeout(() => {
      this.saveTimer = undefined;
      this.save();
    }, delay);
  }

  private restore(file: string): void {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return; // the first start
    }
    const state = JSON.parse(text) as SavedState;
    this.store.load(state.objects, state.resourceVersion);
    for (const [key, applied] of state.applied) this.applied.set(key, applied);
  }
}

/** The objects a node saved under its root dir (none when it never ran workloads), as `knode status` shows them. */
export function readSavedObjects(file: string): KubeObject[] {
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as SavedState).objects;
  } catch {
    return [];
  }
}

/** The node a `spec.nodeName=<node>` field selector names. */
function nodeOf(fieldSelector: string): string | undefined {
  return /(?:^|,)spec\.nodeName=([^,]*)/.exec(fieldSelector)?.[1];
}

function keyOf(o: KubeObject): string {
  return `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
}

/** What the apiserver makes of a manifest's object on create: the default namespace, a Secret's stringData folded into data. */
function normalize(raw: KubeObject): KubeObject {
  const o = structuredClone(raw);
  if (o.kind !== 'Namespace') o.metadata.namespace ||= 'default';
  if (o.kind === 'Secret') {
    const secret = o as Secret;
    secret.type ??= 'Opaque';
    if (secret.stringData) {
      secret.data = { ...secret.data };
      for (const [k, v] of Object.entries(secret.stringData)) secret.data[k] = Buffer.from(v).toString('base64');
      delete secret.stringData;
    }
  }
  delete o.status;
  return o;
}

/** A claim's directory, made when missing: writable by every user, as the hostPath provisioner makes its volumes. */
export function ensureClaimDir(claimsDir: string, namespace: string, name: string): string {
  const dir = join(claimsDir, namespace, name);
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o777);
  return dir;
}

/** A status patch with its deletions (a null reason or message, of the status or a condition) left out. */
function withoutDeleted(status: unknown): unknown {
  const strip = (o: object) =>
    Object.fromEntries(Object.entries(o).filter(([k, v]) => !(v === null && (DELETABLE as readonly string[]).includes(k))));
  if (!status || typeof status !== 'object') return status;
  const s = strip(status) as { conditions?: object[] };
  return Array.isArray(s.conditions) ? { ...s, conditions: s.conditions.map(strip) } : s;
}
