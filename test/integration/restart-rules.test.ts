// A container's own restartPolicy and restartPolicyRules (ContainerRestartRules, and
// RestartAllContainers: the whole pod restarted in place)
// through the real path: the kubelet on a SkewClock (back-off skipped, not
// slept), the containers on the real embedded runtime.
import { expect, it } from 'vitest';
import { containerOf, sleepUntilTerm } from '../helpers/node.js';
import { ofType } from '../../src/engine/events.js';
import { eventually } from '../helpers/runtimes.js';
import { skewedNodeOnEmbeddedRuntime } from '../helpers/skew-node.js';

const t = skewedNodeOnEmbeddedRuntime();

/**
 * Exits `first` on its first run and `then` on every later one: a mark in the pod's emptyDir
 * remembers (a host process of the embedded runtime finds its mount in KNODE_MOUNT_DATA).
 */
const firstThen = (first: number, then: number) => [
  'sh',
  '-c',
  `d=\${KNODE_MOUNT_DATA:-/data}; [ -e "$d/ran" ] && exit ${then}; touch "$d/ran"; exit ${first}`,
];
const scratch = { volumes: [{ name: 'data', emptyDir: {} }] };
const mount = { volumeMounts: [{ name: 'data', mountPath: '/data' }] };

it('restarts a container Never under a pod Always only on the exit code its rule names', async () => {
  t.node.writePod('rules', {
    restartPolicy: 'Always',
    ...scratch,
    containers: [
      {
        name: 'once',
        image: 'busybox:1.36',
        command: firstThen(42, 3),
        ...mount,
        restartPolicy: 'Never',
        restartPolicyRules: [{ action: 'Restart', exitCodes: { operator: 'In', values: [42] } }],
      },
      { name: 'main', image: 'busybox:1.36', command: sleepUntilTerm() },
    ],
  });
  // Exit 42 matches the rule: started again (at once, the first restart has no back-off); exit 3 does not.
  const pod = await t.node.waitForPod(
    'rules',
    'done with its second run',
    (p) => containerOf(p, 'once')?.state?.terminated?.exitCode === 3,
  );
  const once = containerOf(pod, 'once')!;
  expect(once.restartCount).toBe(1);
  expect(once.lastState?.terminated).toMatchObject({ exitCode: 42, reason: 'Error' });
  expect(pod.status?.phase).toBe('Running');

  // Its own Never wins over the pod's Always: past any back-off, it stays terminated.
  const syncs = () => t.node.events.filter((e) => e.type === 'PodSynced' && e.pod.endsWith(`/rules-${t.node.nodeName}`)).length;
  const before = syncs();
  t.clock.skip(600_000);
  await eventually(() => syncs() > before, 'another sync of the pod', 10_000);
  const after = containerOf(t.node.pod('rules')!, 'once')!;
  expect(after.restartCount).toBe(1);
  expect(after.state?.terminated?.exitCode).toBe(3);
  expect(t.node.events.some((e) => e.type === 'ContainerWaiting' && e.container === 'once' && e.reason === 'CrashLoopBackOff')).toBe(false);
});

it('retries an init container OnFailure under a pod Never, and the pod succeeds', async () => {
  t.node.writePod('init-retry', {
    restartPolicy: 'Never',
    ...scratch,
    initContainers: [{ name: 'setup', image: 'busybox:1.36', command: firstThen(1, 0), ...mount, restartPolicy: 'OnFailure' }],
    containers: [{ name: 'main', image: 'busybox:1.36', command: ['true'] }],
  });
  const pod = await t.node.waitForPod('init-retry', 'Succeeded', (p) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed');
  expect(pod.status?.phase).toBe('Succeeded');
  const setup = containerOf(pod, 'setup')!;
  expect(setup.restartCount).toBe(1);
  expect(setup.state?.terminated?.exitCode).toBe(0);
});

it('restarts the whole pod in place on an exit its RestartAllContainers rule names, init containers first, sandbox kept', async () => {
  const all42 = { action: 'RestartAllContainers' as const, exitCodes: { operator: 'In' as const, values: [42] } };
  t.node.writePod('restart-all', {
    restartPolicy: 'Never',
    ...scratch,
    initContainers: [{ name: 'setup', image: 'busybox:1.36', command: ['true'] }],
    containers: [
      { name: 'main', image: 'busybox:1.36', command: sleepUntilTerm() },
      // Exits 42 on its first run (the emptyDir, kept with the sandbox, remembers); runs on after the restart.
      {
        name: 'trigger',
        image: 'busybox:1.36',
        command: [
          'sh',
          '-c',
          `d=\${KNODE_MOUNT_DATA:-/data}; if [ -e "$d/ran" ]; then ${sleepUntilTerm()[2]}; fi; touch "$d/ran"; exit 42`,
        ],
        ...mount,
        restartPolicy: 'Never',
        restartPolicyRules: [all42],
      },
    ],
  });
  const pod = await t.node.waitForPod(
    'restart-all',
    'every container running again after the restart in place',
    (p) =>
      ['setup', 'main', 'trigger'].every((n) => containerOf(p, n)?.restartCount === 1) &&
      !!containerOf(p, 'main')?.state?.running &&
      !!containerOf(p, 'trigger')?.state?.running,
  );
  expect(pod.status?.phase).toBe('Running');
  const removed = {
    exitCode: 137,
    reason: 'RestartingAllContainers',
    message: 'The container is removed because RestartAllContainers in place',
  };
  for (const name of ['setup', 'main', 'trigger']) expect(containerOf(pod, name)?.lastState?.terminated, name).toMatchObject(removed);
  // The init container ran again to completion before the containers started again.
  expect(containerOf(pod, 'setup')?.state?.terminated).toMatchObject({ exitCode: 0, reason: 'Completed' });
  const conditions = Object.fromEntries((pod.status?.conditions ?? []).map((c) => [c.type, c.status]));
  expect(conditions).toMatchObject({ AllContainersRestarting: 'False', Initialized: 'True', Ready: 'True' });

  const mine = t.node.events.filter((e) => e.pod.endsWith(`/restart-all-${t.node.nodeName}`));
  // The running container was killed for it (without grace), the sandbox kept: one sandbox, two starts of each container.
  const kills = mine.filter(ofType('ContainerKilling')).filter((e) => e.container === 'main');
  expect(kills.map((e) => [e.detail.reason, e.message])).toEqual([['RestartAllContainers', 'Stopping container main: killing']]);
  expect(mine.filter((e) => e.type === 'SandboxCreated')).toHaveLength(1);
  // Between the removal and the new runs, the pod showed why its containers waited.
  expect(mine.some((e) => e.type === 'StatusChanged' && e.message?.includes('RestartingAllContainers'))).toBe(true);
  for (const name of ['setup', 'main', 'trigger'])
    expect(
      mine.filter((e) => e.type === 'ContainerStarted' && e.container === name),
      name,
    ).toHaveLength(2);
});
