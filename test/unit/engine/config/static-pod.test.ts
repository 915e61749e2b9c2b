import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../../src/engine/api/v1.js';
import {
  applyStaticPodDefaults,
  canonicalJson,
  defaultPullPolicy,
  staticPodUid,
  type StaticPodOrigin,
} from '../../../../src/engine/config/static-pod.js';

const SEEN = Date.UTC(2026, 2, 4, 5, 6, 7, 890);
const origin: StaticPodOrigin = { source: 'file', location: '/etc/kubernetes/manifests/web.yaml', nodeName: 'Node-A', seenAt: SEEN };

function manifest(): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: {
      containers: [
        { name: 'nginx', image: 'nginx', ports: [{ containerPort: 80 }], livenessProbe: { httpGet: { path: '/', port: 80 } } as never },
        { name: 'pinned', image: 'busybox:1.36', readinessProbe: { periodSeconds: 3, failureThreshold: 9 } },
      ],
      initContainers: [{ name: 'init', image: 'busybox:latest' }],
    },
  };
}

describe('applyStaticPodDefaults', () => {
  const pod = applyStaticPodDefaults(manifest(), origin);

  it('names the pod <name>-<node>, with the node lower-cased, in the default namespace', () => {
    expect(pod.metadata.name).toBe('web-node-a');
    expect(pod.metadata.namespace).toBe('default');
    expect(pod.spec.nodeName).toBe('Node-A');
    expect(pod.apiVersion).toBe('v1');
    expect(pod.kind).toBe('Pod');
    expect(pod.metadata.labels).toEqual({ app: 'web' });
  });

  it('keeps a namespace the manifest sets', () => {
    const m = manifest();
    m.metadata.namespace = 'kube-system';
    expect(applyStaticPodDefaults(m, origin).metadata.namespace).toBe('kube-system');
  });

  it("sets the hash, source and seen annotations, beside the manifest's own", () => {
    const m = manifest();
    m.metadata.annotations = { owner: 'me' };
    const p = applyStaticPodDefaults(m, origin);
    expect(p.metadata.uid).toMatch(/^[0-9a-f]{32}$/);
    expect(p.metadata.annotations).toEqual({
      owner: 'me',
      'kubernetes.io/config.hash': p.metadata.uid,
      'kubernetes.io/config.source': 'file',
      'kubernetes.io/config.seen': new Date(SEEN).toISOString(),
    });
    expect(
      applyStaticPodDefaults(manifest(), { ...origin, source: 'http', location: 'http://x/pod.yaml' }).metadata.annotations?.[
        'kubernetes.io/config.source'
      ],
    ).toBe('http');
  });

  it('sets creationTimestamp to the seen time, in whole seconds, and the phase to Pending', () => {
    expect(pod.metadata.creationTimestamp).toBe('2026-03-04T05:06:07Z');
    expect(pod.status).toEqual({ phase: 'Pending' });
  });

  it("adds a NoExecute toleration for every taint after the manifest's own", () => {
    expect(pod.spec.tolerations).toEqual([{ operator: 'Exists', effect: 'NoExecute' }]);
    const m = manifest();
    m.spec.tolerations = [{ key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' }];
    expect(applyStaticPodDefaults(m, origin).spec.tolerations).toEqual([
      { key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' },
      { operator: 'Exists', effect: 'NoExecute' },
    ]);
  });

  it("applies the API server's pod defaults", () => {
    expect(pod.spec).toMatchObject({
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      securityContext: {},
      enableServiceLinks: true,
    });
  });

  it('keeps pod fields the manifest sets, even falsy ones', () => {
    const m = manifest();
    m.spec.restartPolicy = 'Never';
    m.spec.terminationGracePeriodSeconds = 0;
    m.spec.enableServiceLinks = false;
    expect(applyStaticPodDefaults(m, origin).spec).toMatchObject({
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 0,
      enableServiceLinks: false,
    });
  });

  it('applies container defaults to regular and init containers', () => {
    const [nginx, pinned] = pod.spec.containers;
    const [init] = pod.spec.initContainers!;
    expect(nginx).toMatchObject({
      imagePullPolicy: 'Always',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
    expect(nginx.ports).toEqual([{ containerPort: 80, protocol: 'TCP' }]);
    expect(pinned.imagePullPolicy).toBe('IfNotPresent');
    expect(init).toMatchObject({ imagePullPolicy: 'Always', terminationMessagePath: '/dev/termination-log' });
  });

  it('keeps a pull policy the manifest sets', () => {
    const m = manifest();
    m.spec.containers[0].imagePullPolicy = 'Never';
    expect(applyStaticPodDefaults(m, origin).spec.containers[0].imagePullPolicy).toBe('Never');
  });

  it("defaults an image volume's pullPolicy as a container's (Always for latest), and keeps one the manifest sets", () => {
    const m = manifest();
    m.spec.volumes = [
      { name: 'latest', image: { reference: 'tools' } },
      { name: 'pinned', image: { reference: 'tools:1.0' } },
      { name: 'never', image: { reference: 'tools', pullPolicy: 'Never' } },
    ];
    expect(applyStaticPodDefaults(m, origin).spec.volumes!.map((v) => v.image?.pullPolicy)).toEqual(['Always', 'IfNotPresent', 'Never']);
  });

  it('fills the probe defaults and keeps what the manifest sets', () => {
    const [nginx, pinned] = pod.spec.containers;
    expect(nginx.livenessProbe).toEqual({
      httpGet: { path: '/', port: 80 },
      timeoutSeconds: 1,
      periodSeconds: 10,
      successThreshold: 1,
      failureThreshold: 3,
    });
    expect(pinned.readinessProbe).toEqual({ timeoutSeconds: 1, periodSeconds: 3, successThreshold: 1, failureThreshold: 9 });
    expect(pinned.livenessProbe).toBeUndefined();
  });

  it('does not change the manifest it was given', () => {
    const m = manifest();
    const before = structuredClone(m);
    applyStaticPodDefaults(m, origin);
    expect(m).toEqual(before);
  });

  it('keeps an explicit metadata.uid, and uses it as the config hash', () => {
    const m = manifest();
    m.metadata.uid = 'my-own-uid';
    const p = applyStaticPodDefaults(m, origin);
    expect(p.metadata.uid).toBe('my-own-uid');
    expect(p.metadata.annotations?.['kubernetes.io/config.hash']).toBe('my-own-uid');
  });

  it('uses the UID staticPodUid computes, whatever the seen time', () => {
    expect(pod.metadata.uid).toBe(staticPodUid(manifest(), origin));
    expect(applyStaticPodDefaults(manifest(), { ...origin, seenAt: SEEN + 60_000 }).metadata.uid).toBe(pod.metadata.uid);
  });

  it('gives a probe field set to 0 its default, as SetDefaults_Probe does', () => {
    const m = manifest();
    m.spec.containers[1].readinessProbe = { periodSeconds: 0, timeoutSeconds: 0, successThreshold: 0, failureThreshold: 0 };
    const p = applyStaticPodDefaults(m, origin);
    expect(p.spec.containers[1].readinessProbe).toEqual({ timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
  });

  it('makes a volume with no source an emptyDir, as SetDefaults_Volume does, and leaves the others', () => {
    const m = manifest();
    m.spec.volumes = [
      { name: 'bare' },
      { name: 'unknown-key', bogus: {} },
      { name: 'null-source', hostPath: null as never },
      { name: 'host', hostPath: { path: '/tmp' } },
      { name: 'cm', configMap: { name: 'c' } },
    ];
    const p = applyStaticPodDefaults(m, origin);
    expect(p.spec.volumes?.map((v) => v.emptyDir)).toEqual([{}, {}, {}, undefined, undefined]);
    expect(p.spec.volumes?.[3].hostPath).toEqual({ path: '/tmp' });
    expect(m.spec.volumes?.[0]).toEqual({ name: 'bare' });
  });
});

describe('staticPodUid', () => {
  const uid = staticPodUid(manifest(), origin);

  it('is the same for the same manifest, source and node', () => {
    expect(staticPodUid(manifest(), { ...origin })).toBe(uid);
    expect(uid).toMatch(/^[0-9a-f]{32}$/);
  });

  it('does not depend on the order of keys in the manifest', () => {
    const m = manifest();
    const reordered = {
      spec: {
        initContainers: m.spec.initContainers,
        containers: m.spec.containers.map((c) => Object.fromEntries(Object.entries(c).reverse())),
      },
      metadata: { labels: m.metadata.labels, name: m.metadata.name },
      kind: m.kind,
      apiVersion: m.apiVersion,
    } as unknown as Pod;
    expect(JSON.stringify(reordered)).not.toBe(JSON.stringify(m));
    expect(staticPodUid(reordered, origin)).toBe(uid);
  });

  it.each<[string, (m: Pod) => void, Partial<StaticPodOrigin>]>([
    ['another file path', () => {}, { location: '/etc/kubernetes/manifests/other.yaml' }],
    ['another node', () => {}, { nodeName: 'node-b' }],
    ['the http source at the same location', () => {}, { source: 'http' }],
    ['another image', (m) => (m.spec.containers[0].image = 'nginx:1.27'), {}],
    ['another container order', (m) => m.spec.containers.reverse(), {}],
  ])('differs for %s', (_case, change, originChange) => {
    const m = manifest();
    change(m);
    expect(staticPodUid(m, { ...origin, ...originChange })).not.toBe(uid);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
  });
});

describe('defaultPullPolicy', () => {
  it.each([
    ['nginx', 'Always'],
    ['nginx:latest', 'Always'],
    ['library/nginx', 'Always'],
    ['docker.io/library/nginx:latest', 'Always'],
    ['localhost:5000/nginx', 'Always'],
    ['localhost:5000/team/nginx:latest', 'Always'],
    ['nginx:1.27', 'IfNotPresent'],
    ['localhost:5000/nginx:v2', 'IfNotPresent'],
    ['registry.k8s.io/pause:3.10', 'IfNotPresent'],
    ['nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 'IfNotPresent'],
    ['nginx:latestish', 'IfNotPresent'],
    ['nginx:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 'Always'],
    ['nginx:1.27@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 'IfNotPresent'],
    ['localhost:5000/app', 'Always'],
  ])('%s → %s', (image, policy) => {
    expect(defaultPullPolicy(image)).toBe(policy);
  });
});
