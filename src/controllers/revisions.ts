// ControllerRevisions (pkg/controller/history) for the StatefulSet and
// DaemonSet controllers: each template an owner ran is kept as an apps/v1
// ControllerRevision `<owner>-<hash>` with a revision number, so pods can be
// made from an older template (a StatefulSet's partition) and a rollout
// tells old pods from new by their controller-revision-hash label.
import { isDeepStrictEqual } from 'node:util';
import { controllerOf, type ControllerRevision, type KubeObject, type PodTemplateSpec } from '../engine/api/workloads.js';
import { templateHash } from './deployment-util.js';
import type { ObjectStore } from './store.js';

export const REVISION_LABEL = 'controller-revision-hash';

/** The owner's revisions, oldest first. */
export function ownedRevisions(store: ObjectStore, owner: KubeObject): ControllerRevision[] {
  return store
    .list<ControllerRevision>('ControllerRevision', owner.metadata.namespace)
    .filter((r) => controllerOf(r.metadata)?.uid === owner.metadata.uid)
    .sort((a, b) => a.revision - b.revision);
}

/**
 * The revision of TEMPLATE, made (or, when an older one has the same
 * template, moved to the newest number, as a rollback is) so that it is the
 * owner's latest.
 */
export function latestRevision(
  store: ObjectStore,
  owner: KubeObject,
  template: PodTemplateSpec,
  revisions: ControllerRevision[],
  labels: Record<string, string>,
): ControllerRevision {
  const hash = templateHash(template);
  const newest = revisions.at(-1)?.revision ?? 0;
  const same = revisions.find((r) => isDeepStrictEqual(r.data.spec.template, template));
  if (same) return same.revision === newest ? same : store.update({ ...same, revision: newest + 1 });
  return store.create<ControllerRevision>({
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: `${owner.metadata.name}-${hash}`,
      namespace: owner.metadata.namespace,
      labels: { ...labels, [REVISION_LABEL]: hash },
      ownerReferences: [
        {
          apiVersion: owner.apiVersion,
          kind: owner.kind,
          name: owner.metadata.name!,
          uid: owner.metadata.uid!,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    data: { spec: { template: structuredClone(template) } },
    revision: newest + 1,
  });
}

/** Deletes the oldest revisions beyond LIMIT that no live revision or pod uses (truncateHistory). */
export function truncateHistory(store: ObjectStore, revisions: ControllerRevision[], live: Set<string>, limit: number): void {
  const old = revisions.filter((r) => !live.has(r.metadata.name!));
  for (const r of old.slice(0, Math.max(0, old.length - limit)))
    store.delete('ControllerRevision', r.metadata.namespace!, r.metadata.name!, { uid: r.metadata.uid });
}
