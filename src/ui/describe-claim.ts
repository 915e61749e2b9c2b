// `kubectl describe persistentvolumeclaim`, laid out as kubectl's describer
// lays it out (k8s.io/kubectl/pkg/describe), written anew: the claim, the
// pods that use it, its conditions and events.
import type { Event } from '../engine/api/cluster.js';
import type { Pod } from '../engine/api/v1.js';
import type { PersistentVolumeClaim } from '../engine/api/workloads.js';
import { compareStrings } from '../util/compare.js';
import { age, annotationsMultiline, finishDescription, labelsMultiline, PrefixWriter, rfc1123z } from './describe-parts.js';
import { claimStorage } from './workload-table.js';

/**
 * The pods of the claim's namespace that use it, as kubectl finds them: each
 * pod once for every volume naming the claim, then a pod that owns the
 * claim (a generic ephemeral volume's) if not there yet; sorted by name.
 */
export function claimUsers(claim: PersistentVolumeClaim, pods: Pod[]): Pod[] {
  const { namespace, name } = claim.metadata;
  const inNamespace = pods.filter((p) => (p.metadata.namespace ?? 'default') === (namespace ?? 'default'));
  const users = inNamespace.flatMap((p) => (p.spec.volumes ?? []).filter((v) => v.persistentVolumeClaim?.claimName === name).map(() => p));
  for (const owner of claim.metadata.ownerReferences ?? []) {
    const pod = owner.kind === 'Pod' ? inNamespace.find((p) => p.metadata.uid === owner.uid) : undefined;
    if (pod && !users.includes(pod)) users.push(pod);
  }
  return users.sort((a, b) => compareStrings(a.metadata.name!, b.metadata.name!));
}

/** `kubectl describe pvc`: the claim, the pods using it (PODS, its namespace's or more), conditions, events. */
export function describeClaim(claim: PersistentVolumeClaim, pods: Pod[], events: Event[] | undefined, now: number): string {
  const w = new PrefixWriter();
  const { metadata, spec } = claim;
  const { storageClass, capacity, accessModes } = claimStorage(claim);
  w.write(0, `Name:\t${metadata.name ?? ''}\n`);
  w.write(0, `Namespace:\t${metadata.namespace ?? 'default'}\n`);
  w.write(0, `StorageClass:\t${storageClass}\n`);
  const terminating = metadata.deletionTimestamp ? `Terminating (lasts ${age(metadata.deletionTimestamp, now)})` : undefined;
  w.write(0, `Status:\t${terminating ?? claim.status?.phase ?? ''}\n`);
  w.write(0, `Volume:\t${spec.volumeName ?? ''}\n`);
  labelsMultiline(w, 'Labels', metadata.labels);
  annotationsMultiline(w, 'Annotations', metadata.annotations);
  w.write(0, `Finalizers:\t[${(metadata.finalizers ?? []).join(' ')}]\n`);
  w.write(0, `Capacity:\t${capacity}\n`);
  w.write(0, `Access Modes:\t${accessModes}\n`);
  if (spec.volumeMode) w.write(0, `VolumeMode:\t${spec.volumeMode}\n`);
  if (spec.dataSource) {
    w.write(0, 'DataSource:\n');
    if (spec.dataSource.apiGroup !== undefined) w.write(1, `APIGroup:\t${spec.dataSource.apiGroup}\n`);
    w.write(1, `Kind:\t${spec.dataSource.kind}\n`);
    w.write(1, `Name:\t${spec.dataSource.name}\n`);
  }
  const users = claimUsers(claim, pods);
  w.write(0, `Used By:\t${users.length === 0 ? '<none>\n' : ''}`);
  users.forEach((p, i) => w.write(0, `${i ? '\t' : ''}${p.metadata.name}\n`));
  const conditions = claim.status?.conditions ?? [];
  if (conditions.length > 0) {
    w.write(0, 'Conditions:\n');
    w.write(1, 'Type\tStatus\tLastProbeTime\tLastTransitionTime\tReason\tMessage\n');
    w.write(1, '----\t------\t-----------------\t------------------\t------\t-------\n');
    // Go prints a time never set as its zero time.
    const time = (t: string | undefined) => (t ? rfc1123z(t) : 'Mon, 01 Jan 0001 00:00:00 +0000');
    for (const c of conditions)
      w.write(
        1,
        `${c.type} \t${c.status} \t${time(c.lastProbeTime)} \t${time(c.lastTransitionTime)} \t${c.reason ?? ''} \t${c.message ?? ''}\n`,
      );
  }
  return finishDescription(w, events, now);
}
