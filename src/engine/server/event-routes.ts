import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventFilter } from '../event-log.js';
import type { HostInterface } from './host.js';

/** The fields of involvedObject a selector may name, as kubectl's field selectors do. */
const SELECTABLE: Record<string, keyof EventFilter> = {
  'involvedObject.kind': 'kind',
  'involvedObject.name': 'name',
  'involvedObject.uid': 'uid',
  'involvedObject.namespace': 'namespace',
};

/** `/api/v1/events` or `/api/v1/namespaces/NS/events`, as the apiserver serves them. */
export const EVENTS_PATH = /^\/api\/v1\/(namespaces\/[^/]+\/)?events\/?$/;

/**
 * The node's Kubernetes Events as the apiserver serves them: a v1 EventList,
 * or with `watch=true` a stream of watch events (`{"type":"ADDED","object":…}`
 * per line): the events kept, then each change. `fieldSelector` takes involvedObject's kind, name,
 * uid and namespace, as `kubectl events --for` and `kubectl describe` send them.
 */
export function serveEvents(k: HostInterface, url: URL, req: IncomingMessage, res: ServerResponse, streams: Set<ServerResponse>): void {
  const namespace = /^\/api\/v1\/namespaces\/([^/]+)\//.exec(url.pathname)?.[1];
  const filter: EventFilter = namespace ? { namespace: decodeURIComponent(namespace) } : {};
  for (const term of (url.searchParams.get('fieldSelector') ?? '').split(',').filter(Boolean)) {
    const [field, value] = term.split('=', 2);
    const key = SELECTABLE[field];
    if (!key || value === undefined) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        `${JSON.stringify({ message: `field selector ${term}: only ${Object.keys(SELECTABLE).join(', ')} (with =) are supported` })}\n`,
      );
      return;
    }
    filter[key] = value;
  }
  const watching = url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1';
  if (!watching) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      `${JSON.stringify({ apiVersion: 'v1', kind: 'EventList', metadata: { resourceVersion: '' }, items: k.eventLog.list(filter) }, null, 2)}\n`,
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache' });
  res.flushHeaders();
  // As the apiserver's watch from no resourceVersion: what is kept first, as ADDED, then the changes.
  for (const object of k.eventLog.list(filter)) res.write(`${JSON.stringify({ type: 'ADDED', object })}\n`);
  const unsubscribe = k.eventLog.watch((change) => res.write(`${JSON.stringify(change)}\n`), filter);
  streams.add(res);
  res.on('close', () => {
    unsubscribe();
    streams.delete(res);
  });
}
