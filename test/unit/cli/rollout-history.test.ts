import { describe, expect, it } from 'vitest';
import { rolloutHistory } from '../../../src/cli/rollout-history.js';
import type { KubeObject, PodTemplateSpec } from '../../../src/engine/api/workloads.js';

const template = (image: string): PodTemplateSpec => ({
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'web', image }] },
});

const owner = (kind: string, name: string, uid: string): KubeObject => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name, namespace: 'default', uid },
});

const controlledBy = (o: KubeObject) => [
  { apiVersion: 'apps/v1', kind: o.kind, name: o.metadata.name!, uid: o.metadata.uid!, controller: true },
];

const web = owner('Deployment', 'web', 'd1');
const db = owner('StatefulSet', 'db', 's1');

const replicaSet = (name: string, revision: string, image: string, cause?: string): KubeObject =>
  ({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name,
      namespace: 'default',
      annotations: { 'deployment.kubernetes.io/revision': revision, ...(cause ? { 'kubernetes.io/change-cause': cause } : {}) },
      ownerReferences: controlledBy(web),
    },
    spec: { template: template(image) },
  }) as KubeObject;

const saved: KubeObject[] = [
  web,
  db,
  replicaSet('web-b', '12', 'busybox:1.37', 'kubectl set image deploy/web web=busybox:1.37'),
  replicaSet('web-a', '3', 'busybox:1.36'),
  // Another Deployment's ReplicaSet, and one whose revision does not parse: neither is web's history.
  { ...replicaSet('api-a', '1', 'busybox:1.36'), metadata: { name: 'api-a', namespace: 'default', ownerReferences: [] } },
  { ...replicaSet('web-c', 'x', 'busybox:1.36') },
  {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: { name: 'db-7f9', namespace: 'default', ownerReferences: controlledBy(db) },
    data: { spec: { template: template('busybox:1.36') } },
    revision: 1,
  } as KubeObject,
];

describe('rolloutHistory', () => {
  it("lists a Deployment's ReplicaSets by revision, with their change causes, as kubectl's table", () => {
    expect(rolloutHistory(saved, 'Deployment', 'default', 'web', 0)).toBe(
      'deployment.apps/web \nREVISION  CHANGE-CAUSE\n3         <none>\n12        kubectl set image deploy/web web=busybox:1.37\n\n',
    );
  });

  it("lists a StatefulSet's ControllerRevisions", () => {
    expect(rolloutHistory(saved, 'StatefulSet', 'default', 'db', 0)).toBe(
      'statefulset.apps/db \nREVISION  CHANGE-CAUSE\n1         <none>\n\n',
    );
  });

  it("prints one revision's pod template, its tabs left as they are", () => {
    const text = rolloutHistory(saved, 'Deployment', 'default', 'web', 12);
    expect(text.split('\n').slice(0, 3)).toEqual(['deployment.apps/web with revision #12', 'Pod Template:', '  Labels:\tapp=web']);
    expect(text).toContain('    Image:\tbusybox:1.37\n');
  });

  it("says kubectl's words for no history, a revision not there, an object not there and a kind without a viewer", () => {
    expect(rolloutHistory([owner('DaemonSet', 'agent', 'a1')], 'DaemonSet', 'default', 'agent', 0)).toBe(
      'daemonset.apps/agent \nNo rollout history found.\n',
    );
    expect(() => rolloutHistory(saved, 'Deployment', 'default', 'web', 4)).toThrow('error: unable to find the specified revision');
    expect(() => rolloutHistory(saved, 'Deployment', 'shop', 'web', 0)).toThrow(
      'Error from server (NotFound): deployments.apps "web" not found',
    );
    expect(() => rolloutHistory(saved, 'Job', 'default', 'web', 0)).toThrow(
      'error: no history viewer has been implemented for "Job.batch"',
    );
  });
});
