import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/engine/api/v1.js';
import type { PersistentVolumeClaim } from '../../../src/engine/api/workloads.js';
import { claimUsers, describeClaim } from '../../../src/ui/describe-claim.js';

const claim = (extra: Partial<PersistentVolumeClaim> = {}): PersistentVolumeClaim => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data', namespace: 'shop', uid: 'c1', finalizers: ['kubernetes.io/pvc-protection'] },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '500Mi' } }, volumeMode: 'Filesystem' },
  status: { phase: 'Bound', accessModes: ['ReadOnlyMany', 'ReadWriteOnce'], capacity: { storage: '1024Mi' } },
  ...extra,
});

const pod = (name: string, claims: string[], namespace = 'shop', uid = name): Pod =>
  ({
    metadata: { name, namespace, uid },
    spec: { containers: [], volumes: claims.map((claimName, i) => ({ name: `v${i}`, persistentVolumeClaim: { claimName } })) },
  }) as Pod;

describe('describe persistentvolumeclaim', () => {
  it("lays the claim out as kubectl's describer, capacity and access modes shown once it names its volume", () => {
    const bound = claim({ spec: { ...claim().spec, volumeName: 'pv-1', storageClassName: 'manual' } });
    expect(describeClaim(bound, [pod('web-b', ['data']), pod('web-a', ['data']), pod('other', ['logs'])], undefined, 0)).toBe(
      [
        'Name:          data',
        'Namespace:     shop',
        'StorageClass:  manual',
        'Status:        Bound',
        'Volume:        pv-1',
        'Labels:        <none>',
        'Annotations:   <none>',
        'Finalizers:    [kubernetes.io/pvc-protection]',
        'Capacity:      1Gi',
        'Access Modes:  RWO,ROX',
        'VolumeMode:    Filesystem',
        'Used By:       web-a',
        '               web-b',
        '',
      ].join('\n'),
    );
    const waiting = describeClaim(claim({ status: { phase: 'Pending' } }), [], [], 0);
    expect(waiting).toContain(
      '\nCapacity:      \nAccess Modes:  \nVolumeMode:    Filesystem\nUsed By:       <none>\nEvents:        <none>\n',
    );
  });

  it('finds its users in its namespace, once a volume, then the pod that owns it', () => {
    const owned = claim({
      metadata: { ...claim().metadata, ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'eph', uid: 'e1' }] },
    });
    const pods = [pod('twice', ['data', 'data']), pod('elsewhere', ['data'], 'default'), pod('eph', [], 'shop', 'e1')];
    expect(claimUsers(owned, pods).map((p) => p.metadata.name)).toEqual(['eph', 'twice', 'twice']);
  });
});
