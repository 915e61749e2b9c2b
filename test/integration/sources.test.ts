// The URL source through the real path: a local HTTP server serves the
// manifests, a kubelet polls it, the embedded runtime runs what it says.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { CriClient } from '../../src/cri/client.js';
import { KubeletLabels } from '../../src/cri/types.js';
import { ensureImage } from '../helpers/cri.js';
import { containerOf, startNode, type TestNode } from '../helpers/node.js';
import { eventually, startEmbeddedRuntime, type EmbeddedRuntimeProcess } from '../helpers/runtimes.js';

let runtime: EmbeddedRuntimeProcess;
let server: Server;
let url: string;
let node: TestNode;
let body = '';
let status = 200;
let truncate = false;
const requests: IncomingMessage[] = [];

/** Ends at once on SIGTERM (as PID 1 of its container, a bare sleep would not). */
const SLEEP = 'trap "exit 143" TERM; sleep 300 & wait';
const pod = (name: string, command: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'main', image: 'busybox:1.36', command: ['sh', '-c', command] }] },
});

beforeAll(async () => {
  runtime = await startEmbeddedRuntime();
  const client = new CriClient(runtime.endpoint);
  await ensureImage(client);
  client.close();
  server = createServer((req, res) => {
    requests.push(req);
    if (truncate) {
      // Promises more than it sends, then hangs up: a response cut mid-stream.
      res.writeHead(200, { 'content-length': String(body.length * 2) });
      res.write(body.slice(0, body.length / 2));
      res.socket?.destroy();
      return;
    }
    res.statusCode = status;
    res.end(status === 200 ? body : 'boom');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pods.yaml`;
});

afterAll(async () => {
  await node?.stop();
  server.close();
  await runtime.stop();
});

it('runs the pods a manifest URL serves, with the configured headers, and follows changes but not failures', async () => {
  body = stringify({ apiVersion: 'v1', kind: 'PodList', items: [pod('from-url', SLEEP)] });
  node = await startNode(runtime.endpoint, {
    config: {
      staticPodPath: undefined,
      staticPodURL: url,
      staticPodURLHeader: { Authorization: ['Bearer knode-test'], 'X-Team': ['a', 'b'] },
      httpCheckFrequency: 200,
    },
  });
  const first = await node.waitForPod('from-url', 'Running', (p) => p.status?.phase === 'Running');
  expect(first.metadata.annotations?.['kubernetes.io/config.source']).toBe('http');
  expect(requests[0].headers.authorization).toBe('Bearer knode-test');
  expect(requests[0].headers['x-team']).toBe('a, b');
  expect(node.events.some((e) => e.type === 'SourceReady' && e.detail?.source === 'http')).toBe(true);

  // The server fails: nothing changes, and the failure is reported once.
  status = 500;
  const seen = requests.length;
  await eventually(() => requests.length >= seen + 3, 'three failed polls');
  expect(node.pod('from-url')?.status?.phase).toBe('Running');
  expect(node.events.filter((e) => e.type === 'ManifestError' && /500/.test(e.message ?? ''))).toHaveLength(1);

  // It answers 200 with garbage, then with a body cut off mid-stream: neither is applied.
  status = 200;
  const good = body;
  body = '{{{{ not: [a manifest';
  await eventually(() => node.events.some((e) => e.type === 'ManifestError' && /YAML/.test(e.message ?? '')), 'the garbage to be reported');
  body = stringify({ apiVersion: 'v1', kind: 'PodList', items: [pod('from-url', SLEEP), pod('half', SLEEP)] });
  truncate = true;
  const cut = requests.length;
  await eventually(() => requests.length >= cut + 3, 'three polls of the cut response');
  truncate = false;
  body = good;
  expect(node.kubelet.podManager.getPods().map((p) => p.metadata.name)).toEqual([`from-url-${node.nodeName}`]);
  expect(node.pod('from-url')?.status?.phase).toBe('Running');
  expect(containerOf(node.pod('from-url')!, 'main')?.restartCount).toBe(0);

  // The server answers again with another pod: the old one goes, the new one runs.
  status = 200;
  body = stringify(pod('replacement', SLEEP));
  await node.waitForPod('replacement', 'Running', (p) => p.status?.phase === 'Running' && !!containerOf(p, 'main')?.state?.running);
  const client = new CriClient(runtime.endpoint);
  await eventually(
    async () => (await client.listContainers({ labelSelector: { [KubeletLabels.podUid]: first.metadata.uid! } })).length === 0,
    'the old pod to be removed',
  );
  client.close();
});
