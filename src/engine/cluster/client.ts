// The node's connection to a Kubernetes apiserver. @kubernetes/client-node
// reads the kubeconfig, authenticates each call and watches; the calls are
// written and read as plain API JSON (json-requests.ts) over one kept HTTP/2
// connection (keep-alive.ts), not through client-node's typed API, whose
// model classes cost about half of a call's CPU in a node without TurboFan.
import type { KubeObject } from '../api/workloads.js';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Event, Lease, Node } from '../api/cluster.js';
import type { Pod } from '../api/v1.js';

/** A failed apiserver call: the HTTP status (0: no answer) and the API's reason. */
export class ClusterError extends Error {
  override readonly name = 'ClusterError';
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }

  static notFound(err: unknown): boolean {
    return err instanceof ClusterError && err.status === 404;
  }

  static conflict(err: unknown): boolean {
    return err instanceof ClusterError && err.status === 409;
  }
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface PodWatch {
  /** Resolves when the watch ends: `error` is set when it ended on a failure (status 410: the resourceVersion is too old). */
  done: Promise<{ error?: ClusterError }>;
  stop(): void;
}

/** What the node needs from the apiserver (the kubelet's kubeClient, narrowed). */
export interface ClusterClient {
  /** The apiserver's URL, for messages. */
  readonly server: string;
  listPods(fieldSelector: string): Promise<{ items: Pod[]; resourceVersion: string }>;
  watchPods(
    fieldSelector: string,
    resourceVersion: string,
    timeoutSeconds: number,
    onEvent: (type: WatchEventType, object: Record<string, unknown>) => void,
  ): Promise<PodWatch>;
  getPod(namespace: string, name: string): Promise<Pod>;
  createPod(pod: Pod): Promise<Pod>;
  /** Deletes with a UID precondition, so a pod recreated under the same name is never hit. */
  deletePod(namespace: string, name: string, uid: string, gracePeriodSeconds: number): Promise<void>;
  /** A strategic merge patch of the status subresource (the pod it answers with is not read). */
  patchPodStatus(namespace: string, name: string, patch: object): Promise<void>;
  getNode(name: string): Promise<Node>;
  createNode(node: Node): Promise<Node>;
  patchNode(name: string, patch: object): Promise<Node>;
  patchNodeStatus(name: string, patch: object): Promise<Node>;
  getLease(namespace: string, name: string): Promise<Lease>;
  createLease(lease: Lease): Promise<Lease>;
  updateLease(lease: Lease): Promise<Lease>;
  /** A ConfigMap's data and binaryData (base64), as the API has them. */
  getConfigMap(namespace: string, name: string): Promise<{ data?: Record<string, string>; binaryData?: Record<string, string> }>;
  /** A Secret's data (base64), as the API has it. */
  getSecret(namespace: string, name: string): Promise<{ data?: Record<string, string> }>;
  /** A service account token bound to the pod (TokenRequest); the token and when it expires (ms since the epoch). */
  createToken(
    namespace: string,
    serviceAccount: string,
    request: { audiences: string[]; expirationSeconds: number; pod: { name: string; uid: string } },
  ): Promise<{ token: string; expiresAt: number }>;
  /** Posts an event (the event it answers with is not read). */
  createEvent(event: Event): Promise<void>;
  /** Who a bearer token belongs to (TokenReview); undefined when the apiserver does not accept it. */
  reviewToken(token: string): Promise<{ user: string; groups: string[] } | undefined>;
  /** Whether a user may do this to this node (SubjectAccessReview), and why not. */
  reviewAccess(request: {
    user: string;
    groups: string[];
    verb: string;
    resource: string;
    subresource: string;
    name: string;
  }): Promise<{ allowed: boolean; reason: string }>;
  /** Counts an event again (the event it answers with is not read). */
  patchEvent(namespace: string, name: string, patch: object): Promise<void>;
}

/**
 * What a node needs of an apiserver for its pods that are not static: the
 * api source (list and watch), pod status, ConfigMaps and Secrets. A cluster's
 * apiserver, or a standalone node's local object store (LocalApi).
 */
export type PodApi = Pick<
  ClusterClient,
  'server' | 'listPods' | 'watchPods' | 'patchPodStatus' | 'deletePod' | 'getConfigMap' | 'getSecret'
>;

/**
 * A standalone node's local apiserver: the object store its workload
 * controllers run over. Manifests' objects of other kinds than Pod go into it
 * per source; the pods the controllers make come back through the api source.
 */
export interface LocalApi extends PodApi {
  /** The full set of objects SOURCE holds now: new ones are created, changed ones updated, missing ones deleted. */
  applyObjects(source: string, objects: KubeObject[]): void;
  /**
   * The host directory of a PersistentVolumeClaim, made when missing; a
   * ClusterError 404 when the claim does not exist (the pod waits for it).
   */
  claimPath?(namespace: string, name: string): Promise<string>;
}

/** The kubelet's request timeout towards the apiserver (client-go's default for the kubelet is 10 s for lease calls). */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * Loads the kubeconfig as the kubelet's --kubeconfig does: a file; or, with
 * `default`, as kubectl finds one ($KUBECONFIG, ~/.kube/config, then the
 * in-cluster service account).
 */
export async function loadKubeConfig(path: string): Promise<KubeConfig> {
  const k8s = await import('./client-node.js');
  const kc = new k8s.KubeConfig();
  if (path === 'default') kc.loadFromDefault();
  else kc.loadFromFile(path);
  if (!kc.getCurrentCluster())
    throw new Error(`kubeconfig ${path === 'default' ? '($KUBECONFIG, ~/.kube/config or in-cluster)' : path}: no current cluster`);
  return kc;
}

/** A node's client of its real apiserver: a ClusterClient whose open connections can be cut. */
export interface ConnectedCluster extends ClusterClient {
  /**
   * Ends every open watch, as the kubelet closes its connections when its
   * client certificate rotates: each one is made again, on a new connection
   * with the new certificate, from the resourceVersion it had. Returns how many.
   */
  closeConnections(): number;
}

/** The API group and version of the node's heartbeat leases. */
const LEASES = 'coordination.k8s.io/v1';

/** A ClusterClient for the given kubeconfig. */
export async function connectCluster(kc: KubeConfig): Promise<ConnectedCluster> {
  const k8s = await import('./client-node.js');
  const { KeptConnections } = await import('./keep-alive.js');
  const { jsonRequests, resourcePath } = await import('./json-requests.js');
  const server = kc.getCurrentCluster()!.server;
  // Every call shares one kept-open HTTP/2 connection, authenticated as the kubeconfig says.
  const fetchLibrary = new k8s.IsomorphicFetchHttpLibrary();
  const kept = new KeptConnections(kc, {
    respond: (answer) =>
      new k8s.ResponseContext(answer.status, answer.headers, { text: async () => answer.body.toString(), binary: async () => answer.body }),
    fallback: { send: (request) => fetchLibrary.send(request).toPromise() },
  });
  const watch = new k8s.Watch(kc);
  const json = jsonRequests(new k8s.ServerConfiguration(server, {}), kept);
  const path = (namespace: string, resource: string, name = '', subresource = '') =>
    resourcePath({ namespace, resource, name, subresource });
  const patch = (body: object) => ({ body, contentType: 'application/strategic-merge-patch+json' });
  const watches = new Set<PodWatch>();

  /** REQUEST's answer (parsed JSON), within the request timeout; a failure as a ClusterError. */
  async function send<T = unknown>(what: string, request: () => Promise<unknown>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ClusterError(0, 'Timeout', `${what}: no answer from ${server} within ${REQUEST_TIMEOUT_MS / 1000}s`)),
        REQUEST_TIMEOUT_MS,
      );
    });
    try {
      return (await Promise.race([request(), timeout])) as T;
    } catch (err) {
      throw toClusterError(what, server, err);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    server,
    async listPods(fieldSelector) {
      const list = await send<{ items: Pod[]; metadata?: { resourceVersion?: string } }>('list pods', () =>
        json('GET', resourcePath({ resource: 'pods' }), { query: { fieldSelector } }),
      );
      return { items: list.items.map(withPodKind), resourceVersion: list.metadata?.resourceVersion ?? '' };
    },
    async watchPods(fieldSelector, resourceVersion, timeoutSeconds, onEvent) {
      let settle: (end: { error?: ClusterError }) => void = () => {};
      const done = new Promise<{ error?: ClusterError }>((resolve) => (settle = resolve));
      let stopped = false;
      const controller = await watch.watch(
        resourcePath({ resource: 'pods' }),
        { fieldSelector, resourceVersion, allowWatchBookmarks: true, timeoutSeconds },
        (type: string, object: Record<string, unknown>) => {
          if (!stopped) onEvent(type as WatchEventType, object);
        },
        (err: unknown) => settle(err && !stopped ? { error: toClusterError('watch pods', server, err) } : {}),
      );
      const live: PodWatch = {
        done,
        stop: () => {
          stopped = true;
          controller.abort();
          settle({});
        },
      };
      watches.add(live);
      void done.then(() => watches.delete(live));
      return live;
    },
    closeConnections() {
      const open = [...watches];
      for (const live of open) live.stop();
      kept.close();
      return open.length;
    },
    getPod: (namespace, name) =>
      send(`get pod ${namespace}/${name}`, () => json('GET', path(namespace, 'pods', name))).then((pod) => withPodKind(pod as Pod)),
    createPod: (pod) =>
      send(`create pod ${pod.metadata.namespace}/${pod.metadata.name}`, () =>
        json('POST', path(pod.metadata.namespace!, 'pods'), { body: pod }),
      ).then((created) => withPodKind(created as Pod)),
    async deletePod(namespace, name, uid, gracePeriodSeconds) {
      await send(`delete pod ${namespace}/${name}`, () =>
        json('DELETE', path(namespace, 'pods', name), {
          query: { gracePeriodSeconds },
          body: { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds, preconditions: { uid } },
        }),
      );
    },
    async patchPodStatus(namespace, name, body) {
      await send(`patch status of pod ${namespace}/${name}`, () => json('PATCH', path(namespace, 'pods', name, 'status'), patch(body)));
    },
    getNode: (name) => send<Node>(`get node ${name}`, () => json('GET', resourcePath({ resource: 'nodes', name }))),
    createNode: (node) =>
      send<Node>(`create node ${node.metadata.name}`, () => json('POST', resourcePath({ resource: 'nodes' }), { body: node })),
    patchNode: (name, body) =>
      send<Node>(`patch node ${name}`, () => json('PATCH', resourcePath({ resource: 'nodes', name }), patch(body))),
    patchNodeStatus: (name, body) =>
      send<Node>(`patch status of node ${name}`, () =>
        json('PATCH', resourcePath({ resource: 'nodes', name, subresource: 'status' }), patch(body)),
      ),
    getLease: (namespace, name) =>
      send<Lease>(`get lease ${namespace}/${name}`, () =>
        json('GET', resourcePath({ group: LEASES, namespace, resource: 'leases', name })),
      ),
    createLease: (lease) =>
      send<Lease>(`create lease ${lease.metadata.name}`, () =>
        json('POST', resourcePath({ group: LEASES, namespace: lease.metadata.namespace, resource: 'leases' }), { body: lease }),
      ),
    updateLease: (lease) =>
      send<Lease>(`update lease ${lease.metadata.name}`, () =>
        json('PUT', resourcePath({ group: LEASES, namespace: lease.metadata.namespace, resource: 'leases', name: lease.metadata.name }), {
          body: lease,
        }),
      ),
    getConfigMap: (namespace, name) =>
      send<Awaited<ReturnType<ClusterClient['getConfigMap']>>>(`get configmap ${namespace}/${name}`, () =>
        json('GET', path(namespace, 'configmaps', name)),
      ),
    getSecret: (namespace, name) =>
      send<Awaited<ReturnType<ClusterClient['getSecret']>>>(`get secret ${namespace}/${name}`, () =>
        json('GET', path(namespace, 'secrets', name)),
      ),
    async createToken(namespace, serviceAccount, request) {
      const body = {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: {
          audiences: request.audiences,
          expirationSeconds: request.expirationSeconds,
          boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: request.pod.name, uid: request.pod.uid },
        },
      };
      const answer = await send<{ status: { token: string; expirationTimestamp: string } }>(
        `create token for serviceaccount ${namespace}/${serviceAccount}`,
        () => json('POST', path(namespace, 'serviceaccounts', serviceAccount, 'token'), { body }),
      );
      return { token: answer.status.token, expiresAt: Date.parse(answer.status.expirationTimestamp) };
    },
    async reviewToken(token) {
      const body = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } };
      const review = await send<{ status?: { authenticated?: boolean; user?: { username?: string; groups?: string[] } } }>(
        'review a token',
        () => json('POST', resourcePath({ group: 'authentication.k8s.io/v1', resource: 'tokenreviews' }), { body }),
      );
      return review.status?.authenticated
        ? { user: review.status.user?.username ?? '', groups: review.status.user?.groups ?? [] }
        : undefined;
    },
    async reviewAccess(request) {
      const body = {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: request.user,
          groups: request.groups,
          resourceAttributes: { verb: request.verb, resource: request.resource, subresource: request.subresource, name: request.name },
        },
      };
      const review = await send<{ status?: { allowed?: boolean; reason?: string } }>('review access', () =>
        json('POST', resourcePath({ group: 'authorization.k8s.io/v1', resource: 'subjectaccessreviews' }), { body }),
      );
      return { allowed: review.status?.allowed === true, reason: review.status?.reason ?? '' };
    },
    async createEvent(event) {
      await send(`create event ${event.metadata.name}`, () => json('POST', path(event.metadata.namespace!, 'events'), { body: event }));
    },
    async patchEvent(namespace, name, body) {
      await send(`patch event ${name}`, () => json('PATCH', path(namespace, 'events', name), patch(body)));
    },
  };
}

function withPodKind(pod: Pod): Pod {
  return { apiVersion: 'v1', kind: 'Pod', ...pod };
}

/** A failed call (client-node's error or a JsonCallError) as a ClusterError: the HTTP status, the Status's reason and message, what was being done. */
export function toClusterError(what: string, server: string, err: unknown): ClusterError {
  if (err instanceof ClusterError) return err;
  const e = err as { code?: unknown; statusCode?: unknown; body?: unknown; message?: string };
  const status = typeof e.code === 'number' ? e.code : typeof e.statusCode === 'number' ? e.statusCode : 0;
  let reason = '';
  let detail = e.message ?? String(err);
  if (typeof e.body === 'string' || (e.body && typeof e.body === 'object')) {
    try {
      const body = (typeof e.body === 'string' ? JSON.parse(e.body) : e.body) as { reason?: string; message?: string };
      reason = body.reason ?? '';
      if (body.message) detail = body.message;
    } catch {
      // a body that is not a Status: keep the error's own message
    }
  }
  if (status === 0) return new ClusterError(0, 'Unreachable', `${what}: ${server}: ${detail}`);
  return new ClusterError(status, reason, `${what}: ${status}${reason ? ` ${reason}` : ''}: ${detail}`);
}
