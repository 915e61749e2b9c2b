// The apiserver paths of a joined node's calls, one component; the real calls are in test/integration/cluster.test.ts.
import { describe, expect, it } from 'vitest';
import { resourcePath } from '../../../../src/engine/cluster/json-requests.js';

describe('resourcePath', () => {
  it('puts core kinds under /api/v1 and grouped kinds under /apis', () => {
    expect(resourcePath({ resource: 'pods' })).toBe('/api/v1/pods');
    expect(resourcePath({ resource: 'nodes', name: 'n1', subresource: 'status' })).toBe('/api/v1/nodes/n1/status');
    expect(resourcePath({ group: 'coordination.k8s.io/v1', namespace: 'kube-node-lease', resource: 'leases', name: 'n1' })).toBe(
      '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1',
    );
    expect(resourcePath({ group: 'authorization.k8s.io/v1', resource: 'subjectaccessreviews' })).toBe(
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
    );
  });

  it('escapes namespaces and names, and keeps a subresource only under a name', () => {
    expect(resourcePath({ namespace: 'a b', resource: 'serviceaccounts', name: 'x/y', subresource: 'token' })).toBe(
      '/api/v1/namespaces/a%20b/serviceaccounts/x%2Fy/token',
    );
    expect(resourcePath({ namespace: 'default', resource: 'pods', subresource: 'status' })).toBe('/api/v1/namespaces/default/pods');
  });
});
