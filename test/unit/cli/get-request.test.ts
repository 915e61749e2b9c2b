import { describe, expect, it } from 'vitest';
import { documentOf, getRequest, podNamed, shows, wanted, workloadsAsked } from '../../../src/cli/get-request.js';
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
    expect(getRequest([])).toEqual({ names: new Map() });
    expect(getRequest(['web-myhost'])).toEqual({ names: new Map(), pod: 'web-myhost' });
    expect(getRequest(['shop/web-myhost']).pod).toBe('shop/web-myhost');
  });

  it('reads TYPE[,TYPE] [NAME...] by any of kubectl’s names, all as pods and every workload kind', () => {
    expect(getRequest(['po'])).toEqual({ kinds: ['Pod'], names: new Map() });
    expect(getRequest(['deploy,jobs.batch', 'web'])).toEqual({
      kinds: ['Deployment', 'Job'],
      names: new Map([
        ['Deployment', ['web']],
        ['Job', ['web']],
      ]),
    });
    expect(getRequest(['all']).kinds).toEqual(['Pod', 'Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob']);
  });

  it('reads TYPE/NAME words, the kinds in kubectl’s order', () => {
    const request = getRequest(['job/count', 'deploy/web', 'deploy/api']);
    expect(request.kinds).toEqual(['Deployment', 'Job']);
    expect(request.names.get('Deployment')).toEqual(['web', 'api']);
  });

  it('refuses a type it does not list, by its words', () => {
    expect(() => getRequest(['svc'])).toThrow('knode get does not list svc');
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

  it('takes the workloads of the namespace kind by kind, and says kubectl’s NotFound for a name not there', () => {
    expect(workloadsAsked(getRequest(['deploy']), saved, 'default').map((o) => o.metadata.name)).toEqual(['web', 'api']);
    expect(workloadsAsked(getRequest([]), saved, undefined)).toHaveLength(4);
    expect(() => workloadsAsked(getRequest(['cj', 'nightly']), saved, 'default')).toThrow(
      'Error from server (NotFound): cronjobs.batch "nightly" not found',
    );
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
