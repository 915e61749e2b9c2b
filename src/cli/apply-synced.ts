// Apply over pods already running: a ConfigMap or Secret the manifests
// changed reaches the files of a running pod that mounts it only at the
// pod's next sync, where the kubelet's volume manager writes them again.
import type { LocalWorkloads } from '../controllers/index.js';
import { isTerminalPhase } from '../engine/api/pod-util.js';
import type { Pod, Volume } from '../engine/api/v1.js';
import type { KubeObject } from '../engine/api/workloads.js';
import type { EventStream } from '../engine/events.js';

const MOUNTED_KINDS = ['ConfigMap', 'Secret'];

/**
 * Notes the ConfigMaps and Secrets of WORKLOADS and follows EVENTS from now
 * on (before the node reads its sources). `mountersOfChanged` then names the
 * running pods of the workloads KEYS names whose volumes show a ConfigMap or
 * Secret made or changed since; `wait` resolves once the node has synced
 * each of them and READY says it is ready (the status that sync wrote goes
 * to the saved objects as the node stops), or a sync of it failed, or STOP
 * fires. Only a changed ConfigMap or Secret costs that wait.
 */
export function changedMounts(events: Pick<EventStream, 'subscribe'>, workloads: LocalWorkloads, ready: (uid: string) => boolean) {
  const versions = (o: KubeObject) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`;
  const before = new Set(MOUNTED_KINDS.flatMap((kind) => workloads.store.list<KubeObject>(kind)).map(versions));
  const synced = new Set<string>();
  const failed = new Set<string>();
  let changed: (() => void) | undefined;
  const unsubscribe = events.subscribe((e) => {
    if (e.type === 'PodSynced') synced.add(e.uid);
    else if (e.type === 'SyncFailed') failed.add(e.uid);
    changed?.();
  });
  return {
    mountersOfChanged(keys: string[]): Pod[] {
      const fresh = MOUNTED_KINDS.flatMap((kind) => workloads.store.list<KubeObject>(kind)).filter((o) => !before.has(versions(o)));
      if (fresh.length === 0) return [];
      const names = new Set(fresh.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`));
      return (workloads.withDependents(keys).filter((o) => o.kind === 'Pod') as unknown as Pod[]).filter(
        (p) =>
          !p.metadata.deletionTimestamp &&
          !isTerminalPhase(p) &&
          (p.spec.volumes ?? []).some((v) => mountedObjects(v).some((ref) => names.has(ref.replace('/', `/${p.metadata.namespace}/`)))),
      );
    },
    wait(pods: Pod[], stop: AbortSignal): Promise<void> {
      return new Promise<void>((resolve) => {
        const finish = () => {
          changed = undefined;
          stop.removeEventListener('abort', finish);
          resolve();
        };
        // Synced, and ready in the node's eyes, or a sync that failed.
        const done = (uid: string) => failed.has(uid) || (synced.has(uid) && ready(uid));
        changed = () => {
          if (pods.every((p) => done(p.metadata.uid!))) finish();
        };
        stop.addEventListener('abort', finish, { once: true });
        if (stop.aborted) finish();
        else changed();
      });
    },
    close: unsubscribe,
  };
}

/** The ConfigMaps and Secrets a volume shows, as `Kind/name`. */
function mountedObjects(v: Volume): string[] {
  const named = (kind: string, source: unknown, key = 'name') => {
    const name = (source as Record<string, unknown> | undefined)?.[key];
    return typeof name === 'string' ? [`${kind}/${name}`] : [];
  };
  const sources = ((v.projected as { sources?: Record<string, unknown>[] } | undefined)?.sources ?? []).flatMap((s) => [
    ...named('ConfigMap', s.configMap),
    ...named('Secret', s.secret),
  ]);
  return [...named('ConfigMap', v.configMap), ...named('Secret', v.secret, 'secretName'), ...sources];
}
