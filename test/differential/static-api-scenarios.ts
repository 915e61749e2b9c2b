// The differential's static pods that name API objects (ConfigMaps, Secrets, a
// service account token), none of which exists. The kubelet refuses such a
// static pod outright; knode reads them from its sources' object store, so it
// shows a container it cannot configure, a volume it cannot mount, an optional
// source left out (D19 in README.md: deliberate).
import type { Container } from '../../src/engine/api/v1.js';
import { pod, sh, SLEEP } from './scenario-parts.js';
import type { Scenario } from './scenarios.js';

/** A container that writes $V to its termination message and exits 0. */
const showV = (extra: Partial<Container>) => sh('main', 'echo "v=[$V]" > /dev/termination-log', extra);
const mountAt = (name: string) => ({ volumeMounts: [{ name, mountPath: '/mnt' }] });

export const staticApiScenarios: Scenario[] = [
  {
    name: 'static-configmap-env',
    what: 'env from a ConfigMap key (not optional)',
    spec: pod([showV({ env: [{ name: 'V', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k' } } }] })], { restartPolicy: 'Never' }),
  },
  {
    name: 'static-configmap-env-optional',
    what: 'env from an optional ConfigMap key',
    spec: pod([showV({ env: [{ name: 'V', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k', optional: true } } }] })], {
      restartPolicy: 'Never',
    }),
  },
  {
    name: 'static-secret-envfrom',
    what: 'envFrom a Secret (not optional)',
    spec: pod([showV({ envFrom: [{ secretRef: { name: 'creds' } }] })], { restartPolicy: 'Never' }),
  },
  {
    name: 'static-secret-volume',
    what: 'a Secret volume (not optional)',
    spec: pod([sh('main', SLEEP, mountAt('s'))], { volumes: [{ name: 's', secret: { secretName: 'creds' } }] }),
  },
  {
    name: 'static-configmap-volume-optional',
    what: 'an optional ConfigMap volume',
    spec: pod([sh('main', 'ls /mnt > /dev/termination-log', mountAt('c'))], {
      restartPolicy: 'Never',
      volumes: [{ name: 'c', configMap: { name: 'cfg', optional: true } }],
    }),
  },
  {
    name: 'static-token-volume',
    what: 'a projected service account token volume',
    spec: pod([sh('main', SLEEP, mountAt('t'))], {
      volumes: [{ name: 't', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }] } }],
    }),
  },
];
