// An in-memory ClusterClient for unit tests of one component (the source, the
// status sync, the node status, the lease). The real path is tested against a
// real kube-apiserver (test/integration/cluster.test.ts).
import type { Event, Lease, Node } from '../../src/engine/api/cluster.js';
import type { Pod } from '../../src/engine/api/v1.js';
import { ClusterError, type ClusterClient, type PodWatch, type WatchEventType } from '../../src/engine/cluster/client.js';

interface OpenWatch {
  fieldSelector: string;
  resourceVersion: string;
  onEvent: (type: WatchEventType, object: Record<string, unknown>) => void;
  end: (end: { error?: ClusterError }) => void;
}

export class FakeCluster implements ClusterClient {
  readonly server = 'https://fake.invalid';
  readonly pods = new Map<string, Pod>();
  readonly nodes = new Map<string, Node>();
  readonly leases = new Map<string, Lease>();
  readonly events: Event[] = [];
  readonly configMaps = new Map<string, Record<string, string>>();
  readonly secrets = new Map<string, Record<string, string>>();
  /** Tokens handed out, in order: `token-N`, valid for the seconds asked. */
  tokensIssued = 0;
  /** The fake's own time for token expiry (tests with a FakeClock set it). */
  now: () => number = () => Date.now();
  /** Every call, as `method args`. */
  readonly calls: string[] = [];
  readonly watches: OpenWatch[] = [];
  private rv = 100;
  private uid = 0;
  private readonly failures = new Map<string, ClusterError[]>();

  /** The next call of `method` fails with `error` (queued: several calls fail in turn). */
  failNext(method: keyof ClusterClient, error: ClusterError): void {
    const list = this.failures.get(method) ?? [];
    list.push(error);
    this.failures.set(method, list);
  }

  private enter(method: string, ...args: unknown[]): void {
    this.calls.push([method, ...args.map(String)].join(' '));
    const error = this.failures.get(method)?.shift();
    if (error) throw error;
  }

  nextVersion(): string {
    return String(++this.rv);
  }

  /** Stores a pod as the apiserver would (uid, resourceVersion) and tells the open watches. */
  putPod(pod: Pod, type: 'ADDED' | 'MODIFIED' = 'ADDED'): Pod {
    const stored: Pod = structuredClone({
      ...pod,
      metadata: { ...pod.metadata, uid: pod.metadata.uid ?? `uid-${++this.uid}`, resourceVersion: this.nextVersion() },
    });
    this.pods.set(`${stored.metadata.namespace}/${stored.metadata.name}`, stored);
    this.emit(type, stored);
    return stored;
  }

  removePod(namespace: string, name: string): void {
    const pod = this.pods.get(`${namespace}/${name}`);
    if (!pod) return;
    this.pods.delete(`${namespace}/${name}`);
    this.emit('DELETED', { ...pod, metadata: { ...pod.metadata, resourceVersion: this.nextVersion() } });
  }

  emit(type: WatchEventType, object: object): void {
    for (const w of this.watches) w.onEvent(type, structuredClone(object) as Record<string, unknown>);
  }

  /** Ends every open watch, as a server timeout (no error) or with `error`. */
  endWatches(error?: ClusterError): void {
    for (const w of this.watches.splice(0)) w.end(error ? { error } : {});
  }

  async listPods(fieldSelector: string) {
    this.enter('listPods', fieldSelector);
    const node = fieldSelector.replace('spec.nodeName=', '');
    return {
      items: [...this.pods.values()].filter((p) => p.spec.nodeName === node).map((p) => structuredClone(p)),
      resourceVersion: String(this.rv),
    };
  }

  async watchPods(
    fieldSelector: string,
    resourceVersion: string,
    _timeoutSeconds: number,
    onEvent: OpenWatch['onEvent'],
  ): Promise<PodWatch> {
    this.enter('watchPods', fieldSelector, resourceVersion);
    let end: OpenWatch['end'] = () => {};
    const done = new Promise<{ error?: ClusterError }>((resolve) => (end = resolve));
    const watch: OpenWatch = { fieldSelector, resourceVersion, onEvent, end };
    this.watches.push(watch);
    return {
      done,
      stop: () => {
        const i = this.watches.indexOf(watch);
        if (i >= 0) this.watches.splice(i, 1);
        end({});
      },
    };
  }

  async getPod(namespace: string, name: string): Promise<Pod> {
    this.enter('getPod', `${namespace}/${name}`);
    const pod = this.pods.get(`${namespace}/${name}`);
    if (!pod) throw new ClusterError(404, 'NotFound', `pods "${name}" not found`);
    return structuredClone(pod);
  }

  async createPod(pod: Pod): Promise<Pod> {
    this.enter('createPod', `${pod.metadata.namespace}/${pod.metadata.name}`);
    if (this.pods.has(`${pod.metadata.namespace}/${pod.metadata.name}`))
      throw new ClusterError(409, 'AlreadyExists', `pods "${pod.metadata.name}" already exists`);
    return this.putPod({ ...pod, metadata: { ...pod.metadata, uid: undefined } });
  }

  async deletePod(namespace: string, name: string, uid: string, gracePeriodSeconds: number): Promise<void> {
    this.enter('deletePod', `${namespace}/${name}`, uid, gracePeriodSeconds);
    const pod = this.pods.get(`${namespace}/${name}`);
    if (!pod) throw new ClusterError(404, 'NotFound', `pods "${name}" not found`);
    if (pod.metadata.uid !== uid) throw new ClusterError(409, 'Conflict', 'Precondition failed: UID in precondition does not match');
    this.removePod(namespace, name);
  }

  async patchPodStatus(namespace: string, name: string, patch: object): Promise<void> {
    this.enter('patchPodStatus', `${namespace}/${name}`);
    const pod = this.pods.get(`${namespace}/${name}`);
    if (!pod) throw new ClusterError(404, 'NotFound', `pods "${name}" not found`);
    const p = patch as { metadata?: { uid?: string }; status: Pod['status'] };
    if (p.metadata?.uid && p.metadata.uid !== pod.metadata.uid) throw new ClusterError(409, 'Conflict', 'uid mismatch');
    this.putPod({ ...pod, status: p.status }, 'MODIFIED');
  }

  async getNode(name: string): Promise<Node> {
    this.enter('getNode', name);
    const node = this.nodes.get(name);
    if (!node) throw new ClusterError(404, 'NotFound', `nodes "${name}" not found`);
    return structuredClone(node);
  }

  async createNode(node: Node): Promise<Node> {
    this.enter('createNode', node.metadata.name);
    if (this.nodes.has(node.metadata.name!)) throw new ClusterError(409, 'AlreadyExists', `nodes "${node.metadata.name}" already exists`);
    const stored = structuredClone({
      ...node,
      metadata: { ...node.metadata, uid: `node-uid-${++this.uid}`, resourceVersion: this.nextVersion() },
    });
    this.nodes.set(node.metadata.name!, stored);
    return structuredClone(stored);
  }

  async patchNode(name: string, patch: object): Promise<Node> {
    this.enter('patchNode', name);
    const node = this.nodes.get(name);
    if (!node) throw new ClusterError(404, 'NotFound', `nodes "${name}" not found`);
    const labels = (patch as { metadata?: { labels?: Record<string, string> } }).metadata?.labels ?? {};
    node.metadata.labels = { ...node.metadata.labels, ...labels };
    this.nodes.set(name, node);
    return structuredClone(node);
  }

  async patchNodeStatus(name: string, patch: object): Promise<Node> {
    this.enter('patchNodeStatus', name);
    const node = this.nodes.get(name);
    if (!node) throw new ClusterError(404, 'NotFound', `nodes "${name}" not found`);
    node.status = (patch as { status: Node['status'] }).status;
    return structuredClone(node);
  }

  async getLease(namespace: string, name: string): Promise<Lease> {
    this.enter('getLease', `${namespace}/${name}`);
    const lease = this.leases.get(`${namespace}/${name}`);
    if (!lease) throw new ClusterError(404, 'NotFound', `leases "${name}" not found`);
    return structuredClone(lease);
  }

  async createLease(lease: Lease): Promise<Lease> {
    this.enter('createLease', `${lease.metadata.namespace}/${lease.metadata.name}`);
    const stored = structuredClone({ ...lease, metadata: { ...lease.metadata, resourceVersion: this.nextVersion() } });
    this.leases.set(`${lease.metadata.namespace}/${lease.metadata.name}`, stored);
    return structuredClone(stored);
  }

  async updateLease(lease: Lease): Promise<Lease> {
    this.enter('updateLease', `${lease.metadata.namespace}/${lease.metadata.name}`);
    const key = `${lease.metadata.namespace}/${lease.metadata.name}`;
    const current = this.leases.get(key);
    if (!current) throw new ClusterError(404, 'NotFound', 'not found');
    if (current.metadata.resourceVersion !== lease.metadata.resourceVersion)
      throw new ClusterError(409, 'Conflict', 'the object has been modified');
    const stored = structuredClone({ ...lease, metadata: { ...lease.metadata, resourceVersion: this.nextVersion() } });
    this.leases.set(key, stored);
    return structuredClone(stored);
  }

  async getConfigMap(namespace: string, name: string) {
    this.enter('getConfigMap', `${namespace}/${name}`);
    const data = this.configMaps.get(`${namespace}/${name}`);
    if (!data) throw new ClusterError(404, 'NotFound', `configmaps "${name}" not found`);
    return { data: { ...data } };
  }

  async getSecret(namespace: string, name: string) {
    this.enter('getSecret', `${namespace}/${name}`);
    const data = this.secrets.get(`${namespace}/${name}`);
    if (!data) throw new ClusterError(404, 'NotFound', `secrets "${name}" not found`);
    return { data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) };
  }

  async createToken(
    namespace: string,
    serviceAccount: string,
    request: { audiences: string[]; expirationSeconds: number; pod: { name: string; uid: string } },
  ) {
    this.enter('createToken', `${namespace}/${serviceAccount}`, request.pod.name);
    return { token: `token-${++this.tokensIssued}`, expiresAt: this.now() + request.expirationSeconds * 1000 };
  }

  /** Bearer tokens the fake accepts, and who they are. */
  readonly bearerTokens = new Map<string, { user: string; groups: string[] }>();
  /** Who may do what to nodes: the fake's authorizer. */
  allow: (request: { user: string; groups: string[]; verb: string; subresource: string }) => boolean = () => false;

  async reviewToken(token: string) {
    this.enter('reviewToken');
    return this.bearerTokens.get(token);
  }

  async reviewAccess(request: { user: string; groups: string[]; verb: string; resource: string; subresource: string; name: string }) {
    this.enter('reviewAccess', request.user, request.verb, `${request.resource}/${request.subresource}`);
    const allowed = this.allow(request);
    return { allowed, reason: allowed ? '' : 'no RBAC policy matched' };
  }

  async createEvent(event: Event): Promise<void> {
    this.enter('createEvent', event.reason);
    this.events.push(structuredClone(event));
  }

  async patchEvent(namespace: string, name: string, patch: object): Promise<void> {
    this.enter('patchEvent', `${namespace}/${name}`);
    const event = this.events.find((e) => e.metadata.name === name);
    if (!event) throw new ClusterError(404, 'NotFound', 'not found');
    Object.assign(event, patch);
  }
}
