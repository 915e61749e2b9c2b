// The differential's scenarios for a container's own restart policy and rules
// (ContainerRestartRules, on by default since v1.35): the container's
// restartPolicyRules, then its restartPolicy, win over the pod's, for regular
// and init containers, and the pod's phase follows.
//
// A container counts its runs in an emptyDir, which outlives its restarts (as
// in retry-scenarios.ts). The first restart after an exit is at once on both
// agents, so these settle without a back-off.
import type { Container, PodSpec } from '../../src/engine/api/v1.js';
import { IMAGE, sh, SLEEP, type Scenario } from './scenario-parts.js';

const DATA = { name: 'runs', mountPath: '/runs' };

/** A busybox container that exits FIRST on its first run and THEN on every later one. */
function exits(name: string, first: number, then: number, own: Partial<Container> = {}): Container {
  return {
    name,
    image: IMAGE,
    imagePullPolicy: 'IfNotPresent',
    // No `$(` in it: both agents expand `$(NAME)` in commands.
    command: ['sh', '-c', `[ -f /runs/${name} ] && exit ${then}; touch /runs/${name}; exit ${first}`],
    volumeMounts: [DATA],
    ...own,
  };
}

/** A pod spec on the host network with a 2 s grace period and the emptyDir that counts runs. */
function pod(containers: Container[], extra: Partial<PodSpec>): PodSpec {
  return { hostNetwork: true, terminationGracePeriodSeconds: 2, containers, volumes: [{ name: 'runs', emptyDir: {} }], ...extra };
}

/** Runs until killed, exiting 0 on SIGTERM. */
const MAIN = sh('main', SLEEP);

const ON_42 = { action: 'Restart' as const, exitCodes: { operator: 'In' as const, values: [42] } };

export const restartRulesScenarios: Scenario[] = [
  {
    name: 'rule-restarts-on-42',
    what: 'a container restartPolicy Never with a rule restarting on exit 42, under a pod Always: exits 42 (restarted), then 3 (stays terminated)',
    spec: pod([exits('once', 42, 3, { restartPolicy: 'Never', restartPolicyRules: [ON_42] }), MAIN], { restartPolicy: 'Always' }),
  },
  {
    name: 'container-never-under-always',
    what: 'the one container, restartPolicy Never, exits 1 under a pod Always: not restarted, the pod fails',
    spec: pod([exits('once', 1, 1, { restartPolicy: 'Never' })], { restartPolicy: 'Always' }),
  },
  {
    name: 'init-onfailure-under-never',
    what: 'an init container restartPolicy OnFailure exits 1, then 0, under a pod Never; the container exits 0 (the pod succeeds)',
    spec: pod([exits('done', 0, 0)], { restartPolicy: 'Never', initContainers: [exits('prep', 1, 0, { restartPolicy: 'OnFailure' })] }),
  },
];
