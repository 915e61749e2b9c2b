// kubectl's type words, as logs/exec and describe read them (src/cli/target-kinds.ts).
import { describe, expect, it } from 'vitest';
import { deletedKind, describedKind, describedObjects, targetKind, TYPE_WORDS } from '../../../src/cli/target-kinds.js';

describe('the type words', () => {
  it("reads kubectl's singular, plural, short and grouped names, in any case", () => {
    for (const word of ['deploy', 'Deployments', 'deployment.apps', 'deployments.apps']) expect(targetKind(word)?.kind).toBe('Deployment');
    expect(targetKind('po')?.kind).toBe('Pod');
    expect(targetKind('jobs.batch')).toEqual({ kind: 'Job', resource: 'jobs.batch' });
    expect(targetKind('svc')).toBeUndefined();
    expect(targetKind('cj')).toBeUndefined(); // a CronJob has no pods to pick
    expect(describedKind('cj')).toBe('CronJob');
    expect(describedKind('sts')).toBe('StatefulSet');
    expect(TYPE_WORDS).toEqual(['daemonsets', 'deployments', 'jobs', 'pods', 'replicasets', 'statefulsets']);
  });

  it('gives each verb the kinds it takes: ConfigMaps, Secrets and claims are described and deleted', () => {
    for (const word of ['cm', 'ConfigMaps', 'configmap']) expect(deletedKind(word)).toBe('ConfigMap');
    expect(deletedKind('secrets')).toBe('Secret');
    expect(deletedKind('pvc')).toBe('PersistentVolumeClaim');
    expect(deletedKind('persistentvolumeclaims')).toBe('PersistentVolumeClaim');
    expect(deletedKind('cronjobs.batch')).toBe('CronJob');
    expect(deletedKind('rs')).toBe('ReplicaSet');
    expect(describedKind('cm')).toBe('ConfigMap');
    expect(describedKind('secrets')).toBe('Secret');
    expect(describedKind('pvc')).toBe('PersistentVolumeClaim');
    expect(targetKind('secret')).toBeUndefined();
    expect(deletedKind('svc')).toBeUndefined();
  });
});

describe("describe's objects", () => {
  it('reads TYPE NAME... and TYPE/NAME... as kubectl does', () => {
    expect(describedObjects(['deploy/web'])).toEqual([{ kind: 'Deployment', name: 'web' }]);
    expect(describedObjects(['pods', 'a', 'b'])).toEqual([
      { kind: 'Pod', name: 'a' },
      { kind: 'Pod', name: 'b' },
    ]);
    expect(describedObjects(['deploy/a', 'rs/b', 'cronjobs/c']).map((o) => o.kind)).toEqual(['Deployment', 'ReplicaSet', 'CronJob']);
    // knode's NAMESPACE/NAME after a TYPE, for the kind's command to read.
    expect(describedObjects(['po', 'kube-system/etcd'])).toEqual([{ kind: 'Pod', name: 'kube-system/etcd' }]);
  });

  it('reads TYPE,TYPE as kubectl does: each name of each type, type by type; alone, every object of each', () => {
    expect(describedObjects(['deploy,sts', 'a', 'b'])).toEqual([
      { kind: 'Deployment', name: 'a' },
      { kind: 'Deployment', name: 'b' },
      { kind: 'StatefulSet', name: 'a' },
      { kind: 'StatefulSet', name: 'b' },
    ]);
    expect(describedObjects(['deploy,jobs'])).toEqual([
      { kind: 'Deployment', name: '' },
      { kind: 'Job', name: '' },
    ]);
    expect(() => describedObjects(['deploy,svc'])).toThrow('the server doesn\'t have a resource type "svc"');
  });

  it('refuses what kubectl refuses, in its words', () => {
    const refusal = (words: string[]) => {
      try {
        describedObjects(words);
      } catch (err) {
        return (err as Error).message;
      }
      return 'no error';
    };
    expect(refusal([])).toBe('You must specify the type of resource to describe');
    expect(refusal(['svc/web'])).toBe('the server doesn\'t have a resource type "svc"');
    expect(refusal(['services', 'web'])).toBe('the server doesn\'t have a resource type "services"');
    expect(refusal(['deploy/a', 'b'])).toMatch(/^there is no need to specify a resource type as a separate argument/);
    expect(refusal(['deploy/a/b'])).toBe('arguments in resource/name form may not have more than one slash');
    expect(refusal(['deploy/'])).toBe('arguments in resource/name form must have a single resource and name');
  });

  it('reads a type alone as every object of it, as kubectl describe does', () => {
    expect(describedObjects(['pods'])).toEqual([{ kind: 'Pod', name: '' }]);
    expect(describedObjects(['deploy'])).toEqual([{ kind: 'Deployment', name: '' }]);
  });
});
