import type { Pod, PodList } from '../engine/api/v1.js';
import { defaultRootDir, rootPaths } from '../util/paths.js';
import { socketAnswers } from '../util/socket.js';
import { NodeClient } from './node-client.js';
import { wantsObjects, type PodPlace, type PodToComplete, type ToComplete, type ObjectToComplete } from './complete-pods.js';

/** How long a completion waits for the node or the runtime: a TAB must not hang the shell. */
const ANSWER_MS = 2_000;

/**
 * The pods and other objects a completion offers: the objects the node
 * saved under the root dir (when the place takes them), and the pods.
 */
export async function toComplete(place: PodPlace): Promise<ToComplete> {
  const rootDir = place.rootDir ?? defaultRootDir();
  const [pods, objects] = await Promise.all([podsToComplete(place, rootDir), wantsObjects(place) ? savedObjects(rootDir) : []]);
  return { pods, objects };
}

/** The objects but pods that the node under ROOT_DIR saved last (the running node saves each change), a workload with its pod template's containers. */
async function savedObjects(rootDir: string): Promise<ObjectToComplete[]> {
  const { readSavedObjects } = await import('../controllers/local-api.js');
  return readSavedObjects(rootPaths(rootDir).objects).flatMap((o) => {
    if (o.kind === 'Pod') return [];
    type Templates = { template?: { spec?: Pod['spec'] }; jobTemplate?: { spec?: { template?: { spec?: Pod['spec'] } } } };
    const templates = (o as { spec?: Templates }).spec;
    const spec = (templates?.template ?? templates?.jobTemplate?.spec?.template)?.spec;
    const object = { kind: o.kind, namespace: o.metadata.namespace ?? 'default', name: o.metadata.name ?? '' };
    return [spec ? { ...object, containers: containerNames(spec) } : object];
  });
}

const containerNames = (spec: Pod['spec']) => [...(spec.initContainers ?? []), ...spec.containers].map((c) => c.name);

/**
 * The pods a completion offers: the running node's under the root dir; else
 * the ready sandboxes of the runtime (--runtime-endpoint, or the embedded
 * runtime when it already runs: a TAB never starts one). Nothing when
 * neither answers.
 */
async function podsToComplete(place: PodPlace, rootDir: string): Promise<PodToComplete[]> {
  const signal = AbortSignal.timeout(ANSWER_MS);
  const node = place.runtimeEndpoint ? undefined : await NodeClient.find(rootDir);
  if (node) {
    const res = await node.open('/pods', signal);
    let body = '';
    for await (const chunk of res) body += chunk;
    return (JSON.parse(body) as PodList).items.map((p) => ({
      namespace: p.metadata.namespace ?? 'default',
      name: p.metadata.name ?? '',
      containers: containerNames(p.spec),
    }));
  }
  const socket = rootPaths(rootDir).runtimeSocket;
  if (!place.runtimeEndpoint && !(await socketAnswers(socket))) return [];
  const { CriClient } = await import('../cri/client.js');
  const { KubeletLabels } = await import('../cri/types.js');
  const client = new CriClient(place.runtimeEndpoint ?? `unix://${socket}`, { requestTimeoutMs: ANSWER_MS });
  try {
    const sandboxes = await client.listPodSandbox({ state: { state: 'SANDBOX_READY' } });
    const containers = place.containerOf === undefined ? [] : await client.listContainers({});
    return sandboxes.map((s) => ({
      namespace: s.labels[KubeletLabels.podNamespace] ?? 'default',
      name: s.labels[KubeletLabels.podName] ?? '',
      containers: containers
        .filter((c) => c.podSandboxId === s.id)
        .map((c) => c.labels[KubeletLabels.containerName] ?? c.metadata?.name ?? ''),
    }));
  } finally {
    client.close();
  }
}
