import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bulkOf, objectsSelected } from '../../../src/cli/delete-selected.js';
import { deletedKinds } from '../../../src/cli/target-kinds.js';
import type { KubeObject } from '../../../src/engine/api/workloads.js';
import { KubectlError, UserError } from '../../../src/util/user-error.js';

const flags = (over: Partial<{ all: boolean; selector: string; 'all-namespaces': boolean }>) => ({
  all: false,
  'all-namespaces': false,
  ...over,
});

function object(kind: string, namespace: string, name: string, labels?: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind, metadata: { name, namespace, uid: `${namespace}-${name}`, labels } };
}

/** A root dir whose local controllers saved OBJECTS. */
function rootWith(objects: KubeObject[]): string {
  const root = mkdtempSync(join(tmpdir(), 'knode-delete-selected-'));
  writeFileSync(join(root, 'objects.json'), JSON.stringify({ resourceVersion: '3', objects, applied: {} }));
  return root;
}

describe('bulkOf', () => {
  it('is nothing without --all or -l, and nothing with -f (where -l filters the manifests)', () => {
    expect(bulkOf(flags({}), ['pods'], 'default')).toBeUndefined();
    expect(bulkOf(flags({ selector: 'app=web' }), undefined, 'default')).toBeUndefined();
  });

  it('is every object of the namespace for --all, every namespace with -A', () => {
    expect(bulkOf(flags({ all: true }), ['pods'], 'team')).toEqual({ selector: {}, namespace: 'team' });
    expect(bulkOf(flags({ all: true, 'all-namespaces': true }), ['pods'], 'team')).toEqual({ selector: {}, namespace: undefined });
  });

  it('reads -l as apimachinery does', () => {
    expect(bulkOf(flags({ selector: 'app=web,tier!=db' }), ['deploy'], 'default')?.selector).toEqual({
      matchLabels: { app: 'web' },
      matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }],
    });
  });

  it("refuses what kubectl's builder refuses, in its words", () => {
    const refusal = (f: Parameters<typeof flags>[0], words: string[] | undefined) => {
      try {
        bulkOf(flags(f), words, 'default');
      } catch (err) {
        return [(err as Error).constructor.name, (err as Error).message];
      }
      return undefined;
    };
    expect(refusal({ all: true, selector: 'a=b' }, ['pods'])).toEqual([
      KubectlError.name,
      'error: cannot set --all and --selector at the same time',
    ]);
    // Checked before -f is looked at, as kubectl validates its flags first.
    expect(refusal({ all: true, selector: 'a=b' }, undefined)?.[1]).toBe('error: cannot set --all and --selector at the same time');
    expect(refusal({ all: true }, [])).toEqual([UserError.name, 'at least one resource must be specified to use a selector']);
    expect(refusal({ all: true }, ['pods', 'web'])?.[1]).toBe('name cannot be provided when a selector is specified');
    expect(refusal({ selector: 'a' }, ['pod/web'])?.[1]).toBe(
      'selectors and the all flag cannot be used when passing resource/name arguments',
    );
  });
});

describe('deletedKinds', () => {
  it('reads TYPE,TYPE in order, by any of their names', () => {
    expect(deletedKinds('po,deploy,jobs.batch,cm')).toEqual(['Pod', 'Deployment', 'Job', 'ConfigMap']);
  });

  it("says kubectl's words for a type it does not know", () => {
    expect(() => deletedKinds('pods,svc')).toThrow('the server doesn\'t have a resource type "svc"');
  });
});

describe('objectsSelected', () => {
  const root = rootWith([
    object('Deployment', 'default', 'web', { app: 'web' }),
    object('Deployment', 'default', 'api', { app: 'api' }),
    object('Deployment', 'team', 'web', { app: 'web' }),
    object('ConfigMap', 'default', 'web', { app: 'web' }),
    object('Pod', 'default', 'web-abc-x1', { app: 'web' }),
  ]);

  it('takes the saved objects of each kind in turn, by namespace and labels, sorted as the apiserver lists them', () => {
    const web = objectsSelected(['Deployment', 'ConfigMap'], { selector: { matchLabels: { app: 'web' } }, namespace: 'default' }, root);
    expect(web.objects.map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`)).toEqual([
      'Deployment/default/web',
      'ConfigMap/default/web',
    ]);
    expect(web.objects[0].apiVersion).toBe('apps/v1');
    expect(web.runtimePods).toBe(false);
    const every = objectsSelected(['Deployment'], { selector: {}, namespace: undefined }, root);
    expect(every.objects.map((o) => `${o.metadata.namespace}/${o.metadata.name}`)).toEqual(['default/api', 'default/web', 'team/web']);
  });

  it("takes the controllers' pods as objects, and asks for the runtime's beside them", () => {
    const pods = objectsSelected(['Pod'], { selector: {}, namespace: 'default' }, root);
    expect(pods.objects.map((o) => o.metadata.name)).toEqual(['web-abc-x1']);
    expect(pods).toMatchObject({ pods: [], runtimePods: true });
  });

  it('finds nothing in a root dir that has no saved objects', () => {
    const empty = mkdtempSync(join(tmpdir(), 'knode-delete-selected-'));
    expect(objectsSelected(['Deployment', 'Pod'], { selector: {}, namespace: 'default' }, empty).objects).toEqual([]);
  });
});
