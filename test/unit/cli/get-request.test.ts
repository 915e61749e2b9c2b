import { describe, expect, it } from 'vitest';
import { documentOf, getRequest, getTables, podNamed, shows, throwNotFound, wanted, workloadsAsked } from '../../../src/cli/get-request.js';
import type { Pod } from '../../../src/engine/api/v1.js';
import type { KubeObject } from '../../../src/engine/api/workloads.js';

const object = (kind: string, name: string, namespace = 'default'): KubeObject => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name, namespace },
});
const pod = (name: string, namespace = 'default') => ({ metadata: { name, namespace }, spec: { containers: [] } }) as unknown as Pod;

describe('getRequest', () => {
  it('is every pod and workload for no words, and one pod for a name that is no type, as status always took it', () => {
    expect(getRequest([])).toEqual({ names: new Map(), notFound: [] });
    expect(getRequest(['web-myhost'])).toEqual({ names: new Map(), pod: 'web-myhost', notFound: [] });
    expect(getRequest(['shop/web-myhost']).pod).toBe('shop/web-myhost');
  });

  it('reads TYPE[,TYPE] [NAME...] by any of kubectl’s names, all as pods and every workload kind', () => {
    expect(getRequest(['po'])).toEqual({ kinds: ['Pod'], names: new Map(), notFound: [] });
    expect(getRequest(['jobs.batch,deploy', 'web'])).toEqual({
      kinds: ['Job', 'Deployment'],
      names: new Map([
        ['Job', ['web']],
        ['Deployment', ['web']],
      ]),
      notFound: [],
    });
    expect(getRequest(['all']).kinds).toEqual(['Pod', 'DaemonSet', 'Deployment', 'ReplicaSet', 'StatefulSet', 'CronJob', 'Job']);
    expect(getRequest(['cm,secret,pvc']).kinds).toEqual(['ConfigMap', 'Secret', 'PersistentVolumeClaim']);
  });

  it('reads TYPE/NAME words, the kinds in the order first named', () => {
    const request = getRequest(['job/count', 'deploy/web', 'deploy/api']);
    expect(request.kinds).toEqual(['Job', 'Deployment']);
    expect(request.names.get('Deployment')).toEqual(['web', 'api']);
  });

  it('refuses a type it does not list, by its words', () => {
    expect(() => getRequest(['svc'])).toThrow('knode get does not list svc');
    expect(() => getRequest(['ev'])).toThrow(expect.objectContaining({ hint: expect.stringContaining('`knode events`') }));
    expect(() => getRequest(['deploy/web', 'web'])).toThrow("'knode get resource/<resource_name>'");
    expect(() => getRequest(['pods,widgets'])).toThrow('the server doesn\'t have a resource type "widgets"');
    expect(() => getRequest(['widgets', 'a'])).toThrow('the server doesn\'t have a resource type "widgets"');
  });
});

describe('what a request shows', () => {
  const saved = [object('Deployment', 'web'), object('Deployment', 'api'), object('Deployment', 'web', 'shop'), object('Job', 'count')];

  it('is every kind without types, only those named otherwise', () => {
    expect(shows(getRequest([]), 'CronJob')).toBe(true);
    expect(shows(getRequest(['deploy']), 'Pod')).toBe(false);
    expect(wanted(getRequest(['pods', 'b', 'a']), 'Pod', [pod('a'), pod('b'), pod('c')]).map((p) => p.metadata.name)).toEqual(['b', 'a']);
  });

  it('takes the workloads of the namespace kind by kind, by name, and keeps kubectl’s NotFound of each name not there for the end', () => {
    expect(workloadsAsked(getRequest(['deploy']), saved, 'default').map((o) => o.metadata.name)).toEqual(['api', 'web']);
    expect(workloadsAsked(getRequest([]), saved, undefined).map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'Deployment/api',
      'Deployment/web',
      'Deployment/web',
      'Job/count',
    ]);
    const request = getRequest(['deploy,cj', 'nightly', 'web']);
    expect(workloadsAsked(request, [...saved, object('ConfigMap', 'web')], 'default').map((o) => o.metadata.name)).toEqual(['web']);
    expect(() => throwNotFound(request)).toThrow(
      [
        'Error from server (NotFound): deployments.apps "nightly" not found',
        'Error from server (NotFound): cronjobs.batch "nightly" not found',
        'Error from server (NotFound): cronjobs.batch "web" not found',
      ].join('\n'),
    );
    expect(() => throwNotFound(getRequest(['deploy']))).not.toThrow();
  });

  it('prints the pods first, as pod/NAME beside other types, then each type in the order asked for', () => {
    const now = Date.parse('2026-01-01T00:10:00Z');
    const running = { ...pod('web-1'), status: { phase: 'Running' } } as Pod;
    const job = { ...object('Job', 'count'), spec: { completions: 1, template: { spec: { containers: [] } } } };
    const objects = [job, object('ConfigMap', 'site')];
    const request = getRequest(['cm,pods,job']);
    const tables = getTables(request, [running], workloadsAsked(request, objects, 'default'), { now, namespace: 'default' });
    expect(tables.map((t) => t.split('\n')[1].split(' ')[0])).toEqual(['pod/web-1', 'configmap/site', 'job.batch/count']);
    expect(getTables(getRequest(['pods']), [running], [], { now, namespace: 'default' })[0]).toMatch(/^NAME +READY.*\nweb-1 /);
    expect(getTables(getRequest(['pods']), [], [], { now, namespace: 'default' })).toEqual([]);
  });

  it('prints one named object as itself, else a v1 List', () => {
    expect(documentOf([saved[0]], getRequest(['deploy/web']))).toBe(saved[0]);
    expect(documentOf(saved.slice(0, 2), getRequest(['deploy']))).toMatchObject({ kind: 'List', items: saved.slice(0, 2) });
  });

  it('finds a pod by name or namespace/name, and says NotFound with the names near it', () => {
    expect(podNamed([pod('web'), pod('web', 'shop')], 'shop/web')).toHaveLength(1);
    expect(() => podNamed([pod('web-myhost')], 'web')).toThrow('pods "web" not found');
  });
});
