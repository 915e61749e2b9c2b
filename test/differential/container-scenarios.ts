// The differential's container-level scenarios: security contexts and what
// the container then sees (written to its termination message), a working
// directory the image lacks, a grace period of 0, lifecycle hooks that sleep
// or call a closed port, and a sidecar beside a failing container.
import type { Container, PodSpec } from '../../src/engine/api/v1.js';
import { pod, sh, SLEEP, STUBBORN } from './scenario-parts.js';
import type { Scenario } from './scenarios.js';

/** A pod whose one container runs SCRIPT (its output is its termination message) and stops. */
function once(script: string, extra: Partial<Container> = {}, podExtra: Partial<PodSpec> = {}): PodSpec {
  return pod([sh('main', script, extra)], { restartPolicy: 'Never', ...podExtra });
}

const TO_MESSAGE = '> /dev/termination-log 2>&1';
const CAPS = `grep -E '^Cap(Eff|Bnd)' /proc/self/status ${TO_MESSAGE}`;

export const containerScenarios: Scenario[] = [
  // Security contexts
  {
    name: 'run-as-nonroot-root',
    what: 'runAsNonRoot with an image that runs as root: CreateContainerConfigError',
    spec: once('id', { securityContext: { runAsNonRoot: true } }),
  },
  {
    name: 'run-as-user',
    what: 'runAsUser 1234, runAsGroup 5678 and supplemental group 42: what id says',
    spec: once(
      `id ${TO_MESSAGE}`,
      { securityContext: { runAsUser: 1234, runAsGroup: 5678 } },
      { securityContext: { supplementalGroups: [42] } },
    ),
  },
  {
    name: 'readonly-rootfs',
    what: 'readOnlyRootFilesystem: writing / fails, /tmp too',
    spec: once(`(touch /x; touch /tmp/x; echo rc=$?) ${TO_MESSAGE}`, { securityContext: { readOnlyRootFilesystem: true } }),
  },
  {
    name: 'caps-drop-all',
    what: 'capabilities drop ALL: the effective and bounding sets',
    spec: once(CAPS, { securityContext: { capabilities: { drop: ['ALL'] } } }),
  },
  {
    name: 'caps-default-add',
    what: "the runtime's default capabilities plus NET_ADMIN",
    spec: once(CAPS, { securityContext: { capabilities: { add: ['NET_ADMIN'] } } }),
  },
  {
    name: 'privileged-caps',
    what: 'privileged: every capability',
    spec: once(CAPS, { securityContext: { privileged: true } }),
  },
  {
    name: 'workingdir-missing',
    what: 'a workingDir the image lacks: made by the runtime',
    spec: once(`pwd ${TO_MESSAGE}`, { workingDir: '/made/by/runtime' }),
  },

  // A grace period of 0
  {
    name: 'grace-zero-deadline',
    what: 'terminationGracePeriodSeconds 0 and activeDeadlineSeconds 6, a container that ignores SIGTERM',
    spec: pod([sh('main', STUBBORN)], { terminationGracePeriodSeconds: 0, activeDeadlineSeconds: 6 }),
  },
  {
    name: 'grace-zero-liveness-never',
    what: 'terminationGracePeriodSeconds 0, a failing liveness probe, restartPolicy Never',
    spec: pod([sh('main', STUBBORN, { livenessProbe: { exec: { command: ['false'] }, periodSeconds: 3, failureThreshold: 1 } })], {
      terminationGracePeriodSeconds: 0,
      restartPolicy: 'Never',
    }),
  },
  {
    name: 'grace-zero-removed',
    what: 'terminationGracePeriodSeconds 0, removed 8 s after it began',
    spec: pod([sh('main', STUBBORN)], { terminationGracePeriodSeconds: 0 }),
    removeAt: 8,
  },

  // Lifecycle hooks
  {
    name: 'poststart-http-closed',
    what: 'a postStart HTTP hook to a closed port: PostStartHookError, the container killed',
    spec: pod([sh('main', STUBBORN, { lifecycle: { postStart: { httpGet: { path: '/hook', port: 18095 } } } })], {
      restartPolicy: 'Never',
    }),
  },
  {
    name: 'prestop-sleep-action',
    what: 'removed 8 s after it began: a preStop sleep action of 6 s in a 30 s grace period',
    spec: pod([sh('main', SLEEP, { lifecycle: { preStop: { sleep: { seconds: 6 } } } })], { terminationGracePeriodSeconds: 30 }),
    removeAt: 8,
    lasts: 25,
  },
  {
    name: 'poststart-sleep-action',
    what: 'a postStart sleep action of 5 s, then the container reports',
    spec: once(
      'echo started > /dev/termination-log',
      { lifecycle: { postStart: { sleep: { seconds: 5 } } } },
      { terminationGracePeriodSeconds: 10 },
    ),
  },

  // Sidecars under restartPolicy Never
  {
    name: 'sidecar-never-main-fails',
    what: 'restartPolicy Never: the container exits 1 after 5 s, then the sidecar is stopped; the pod fails',
    spec: pod([sh('main', 'sleep 5; exit 1')], {
      restartPolicy: 'Never',
      initContainers: [sh('side', SLEEP, { restartPolicy: 'Always' })],
    }),
  },
];
