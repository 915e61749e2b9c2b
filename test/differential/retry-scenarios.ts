// The differential's container-history scenarios: containers (init and
// regular) that fail, are retried after their crash-loop back-off, and then
// succeed or run. What is compared is the back-off itself (a failed init
// container under OnFailure waits in CrashLoopBackOff) and the last state a
// container keeps once a retry succeeded: the failed run, even after the
// runtime's record of it is pruned (init containers) or collected (the
// kubelet's container GC keeps one dead instance per container, every minute).
//
// A container counts its runs in an emptyDir, which outlives its restarts. The
// first restart after a failure is at once on both agents; the back-off (10 s,
// doubling) starts with the second.
import type { Container, PodSpec } from '../../src/engine/api/v1.js';
import type { Scenario } from './scenarios.js';

const DATA = { name: 'runs', mountPath: '/runs' };

/** A busybox container that fails (exit 1) on its first FAILS runs, then runs SCRIPT. */
function failing(name: string, fails: number, script: string): Container {
  return {
    name,
    image: 'busybox:1.36',
    imagePullPolicy: 'IfNotPresent',
    // No `$(` in it: both agents expand `$(NAME)` in commands.
    command: [
      'sh',
      '-c',
      `n=0; [ -f /runs/${name} ] && read n < /runs/${name}; n=\`expr $n + 1\`; echo $n > /runs/${name}; [ $n -gt ${fails} ] || exit 1; ${script}`,
    ],
    volumeMounts: [DATA],
  };
}

/** A pod spec on the host network with a 2 s grace period and the emptyDir that counts runs. */
function pod(containers: Container[], extra: Partial<PodSpec>): PodSpec {
  return { hostNetwork: true, terminationGracePeriodSeconds: 2, containers, volumes: [{ name: 'runs', emptyDir: {} }], ...extra };
}

/** Runs until killed, exiting 0 on SIGTERM. */
const SLEEP = "trap 'exit 0' TERM; sleep 3600 & wait";

export const retryScenarios: Scenario[] = [
  {
    name: 'init-fail-onfailure',
    what: 'an init container that exits 1, restartPolicy OnFailure (restarted with back-off)',
    spec: pod([failing('main', 0, SLEEP)], { restartPolicy: 'OnFailure', initContainers: [failing('prep', 1000, 'exit 0')] }),
    loop: true,
  },
  {
    name: 'init-fails-twice-onfailure',
    what: 'an init container that exits 1 twice (restarted at once, then after a 10 s back-off), then 0; restartPolicy OnFailure',
    spec: pod([failing('main', 0, SLEEP)], { restartPolicy: 'OnFailure', initContainers: [failing('prep', 2, 'exit 0')] }),
    lasts: 30,
  },
  {
    name: 'retry-succeeds-onfailure',
    what: 'a container that exits 1, then 0 on its retry; restartPolicy OnFailure (the pod succeeds)',
    spec: pod([failing('main', 1, 'exit 0')], { restartPolicy: 'OnFailure' }),
  },
  {
    name: 'retry-then-runs-always',
    what: 'a container that exits 1, then runs on its retry; restartPolicy Always',
    spec: pod([failing('main', 1, SLEEP)], { restartPolicy: 'Always' }),
  },
];
