import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/engine/api/workloads.js';
import { workloadTables } from '../../../src/ui/workload-table.js';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const meta = (name: string, namespace = 'default') => ({ name, namespace, creationTimestamp: '2026-01-01T00:00:00Z' });

describe('workload tables', () => {
  it('prints each kind as kubectl get does when asked for several kinds', () => {
    const objects: KubeObject[] = [
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: meta('count'),
        spec: { completions: 3, parallelism: 2, template: { spec: { containers: [] } } },
        status: {
          succeeded: 3,
          startTime: '2026-01-01T00:00:01Z',
          completionTime: '2026-01-01T00:00:08Z',
          conditions: [{ type: 'Complete', status: 'True' }],
        },
      },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: meta('web'),
        spec: { replicas: 2, selector: {}, template: { spec: { containers: [] } } },
        status: { readyReplicas: 1, updatedReplicas: 2, availableReplicas: 1 },
      },
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta('other', 'team'), spec: { replicas: 1 } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('settings') },
    ];
    // In the order of the objects' kinds: the order they were asked for.
    expect(workloadTables(objects, NOW, 'default')).toEqual([
      ['NAME              STATUS     COMPLETIONS   DURATION   AGE', 'job.batch/count   Complete   3/3           7s         10m'].join('\n'),
      ['NAME                  READY   UP-TO-DATE   AVAILABLE   AGE', 'deployment.apps/web   1/2     2            1           10m'].join(
        '\n',
      ),
      ['NAME                 DATA   AGE', 'configmap/settings   0      10m'].join('\n'),
    ]);
    expect(workloadTables(objects, NOW, undefined)[1].split('\n')).toEqual([
      'NAMESPACE   NAME                    READY   UP-TO-DATE   AVAILABLE   AGE',
      'default     deployment.apps/web     1/2     2            1           10m',
      'team        deployment.apps/other   0/1     0            0           10m',
    ]);
  });

  it('prints ConfigMaps, Secrets and claims as kubectl does: a claim’s capacity and access modes once it names its volume', () => {
    const objects: KubeObject[] = [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('site'), data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } },
      { apiVersion: 'v1', kind: 'Secret', metadata: meta('token'), type: 'Opaque', data: { t: 'eA==' } },
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: meta('data'),
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } },
      },
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: meta('pinned'),
        spec: { volumeName: 'pv-1', storageClassName: 'local', accessModes: ['ReadWriteMany', 'ReadWriteOnce'] },
        status: { phase: 'Bound', accessModes: ['ReadWriteMany', 'ReadWriteOnce'], capacity: { storage: '1024Mi' } },
      },
    ];
    expect(workloadTables(objects, NOW, 'default', false)).toEqual([
      ['NAME   DATA   AGE', 'site   3      10m'].join('\n'),
      ['NAME    TYPE     DATA   AGE', 'token   Opaque   1      10m'].join('\n'),
      [
        'NAME     STATUS   VOLUME   CAPACITY   ACCESS MODES   STORAGECLASS   VOLUMEATTRIBUTESCLASS   AGE',
        'data     Bound                                                      <unset>                 10m',
        'pinned   Bound    pv-1     1Gi        RWO,RWX        local          <unset>                 10m',
      ].join('\n'),
    ]);
  });

  it('adds -o wide’s containers, images and selector (a Deployment’s empty one left empty, as kubectl leaves it)', () => {
    const template = {
      spec: {
        containers: [
          { name: 'app', image: 'busybox:1.36' },
          { name: 'log', image: 'alpine' },
        ],
      },
    };
    const objects: KubeObject[] = [
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta('web'), spec: { replicas: 1, selector: {}, template } },
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: meta('web-1'),
        spec: {
          replicas: 1,
          selector: { matchLabels: { b: '2', a: '1' }, matchExpressions: [{ key: 'c', operator: 'Exists' }] },
          template,
        },
      },
      { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: meta('db'), spec: { replicas: 1, selector: {}, template } },
    ];
    const lines = workloadTables(objects, NOW, 'default', true, true).map((t) => t.split('\n'));
    expect(lines[0][0]).toMatch(/ AGE +CONTAINERS +IMAGES +SELECTOR$/);
    expect(lines[0][1]).toMatch(/ 10m +app,log +busybox:1\.36,alpine +$/);
    expect(lines[1][1]).toMatch(/ app,log +busybox:1\.36,alpine +a=1,b=2,c$/);
    expect(lines[2]).toEqual([
      'NAME                  READY   AGE   CONTAINERS   IMAGES',
      'statefulset.apps/db   0/1     10m   app,log      busybox:1.36,alpine',
    ]);
  });

  it('says Running for a Job under way, and prints nothing when there are no workloads', () => {
    const job: KubeObject = {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: meta('work'),
      spec: { parallelism: 2, template: { spec: { containers: [] } } },
      status: { succeeded: 1, startTime: '2026-01-01T00:09:00Z' },
    };
    expect(workloadTables([job], NOW, 'default')[0].split('\n')[1]).toBe('job.batch/work   Running   1/1 of 2      60s        10m');
    expect(workloadTables([], NOW, 'default')).toEqual([]);
  });
});
