// Apiserver calls written and read as plain JSON. client-node's typed API
// walks every request and answer through its model classes: without TurboFan
// that was about half of a call's CPU in a node's process, and a pod's start
// makes several (its token, two status patches, its events). These calls keep
// client-node's authentication and connections: a request is a client-node
// RequestContext, authenticated and sent as its typed calls would be.
import type { HttpMethod, KubeConfig, RequestContext, ResponseContext, ServerConfiguration } from '@kubernetes/client-node';

export type JsonMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface JsonRequest {
  /** Query parameters; undefined ones are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  /** Sent as JSON. */
  body?: unknown;
  /** The body's media type: application/json unless a patch says otherwise. */
  contentType?: string;
}

/** Where an object or its collection is: `group` empty for the core API (`/api/v1`), `namespace` empty for cluster-scoped kinds. */
export interface ResourceRef {
  group?: string;
  namespace?: string;
  resource: string;
  name?: string;
  subresource?: string;
}

/** The apiserver path of REF, its names escaped: `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1`. */
export function resourcePath(ref: ResourceRef): string {
  const root = ref.group ? `/apis/${ref.group}` : '/api/v1';
  const scope = ref.namespace ? `/namespaces/${encodeURIComponent(ref.namespace)}` : '';
  const name = ref.name ? `/${encodeURIComponent(ref.name)}` : '';
  const sub = ref.subresource && ref.name ? `/${ref.subresource}` : '';
  return `${root}${scope}/${ref.resource}${name}${sub}`;
}

/** How a request is authenticated and sent (keep-alive.ts's KeptConnections). */
export interface JsonTransport {
  applySecurityAuthentication(context: RequestContext): Promise<void>;
  send(context: RequestContext): Promise<ResponseContext>;
}

/** A failed call as client-node reports one (an HTTP status and the body), for toClusterError. */
export class JsonCallError extends Error {
  override readonly name = 'JsonCallError';
  constructor(
    readonly code: number,
    readonly body: string,
  ) {
    super(`HTTP ${code}${body ? `: ${body.slice(0, 200)}` : ''}`);
  }
}

/**
 * A function that sends one call to the apiserver of `base` and gives its
 * answer as parsed JSON (undefined for an empty body), or throws a
 * JsonCallError for a status outside 2xx.
 */
export function jsonRequests(
  base: ServerConfiguration<Record<string, string>>,
  transport: JsonTransport,
): (method: JsonMethod, path: string, request?: JsonRequest) => Promise<unknown> {
  return async (method, path, request = {}) => {
    const context = base.makeRequestContext(path, method as HttpMethod);
    context.setHeaderParam('Accept', 'application/json');
    for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined) context.setQueryParam(name, String(value));
    if (request.body !== undefined) {
      context.setHeaderParam('Content-Type', request.contentType ?? 'application/json');
      context.setBody(JSON.stringify(request.body));
    }
    await transport.applySecurityAuthentication(context);
    const answer = await transport.send(context);
    const text = await answer.body.text();
    if (answer.httpStatusCode < 200 || answer.httpStatusCode > 299) throw new JsonCallError(answer.httpStatusCode, text);
    return text ? JSON.parse(text) : undefined;
  };
}

/**
 * Calls to the cluster of a kubeconfig, authenticated as it says and each
 * sent as client-node sends one (a connection of its own): for the few
 * calls of a node's bootstrap, before it has a client of its own.
 */
export async function kubeconfigRequests(kc: KubeConfig): Promise<ReturnType<typeof jsonRequests>> {
  const k8s = await import('./client-node.js');
  const fetchLibrary = new k8s.IsomorphicFetchHttpLibrary();
  return jsonRequests(new k8s.ServerConfiguration(kc.getCurrentCluster()?.server ?? '', {}), {
    applySecurityAuthentication: (context) => kc.applySecurityAuthentication(context),
    send: (context) => fetchLibrary.send(context).toPromise(),
  });
}
