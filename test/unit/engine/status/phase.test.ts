import { describe, expect, it } from 'vitest';
import type { Container, ContainerState, ContainerStatus, Pod, PodPhase, PodSpec } from '../../../../src/engine/api/v1.js';
import { getPhase } from '../../../../src/engine/status/phase.js';

// ---- builders ---------------------------------------------------------------

const c = (name: string): Container => ({ name, image: 'busybox' });
const sidecar = (name: string): Container => ({ ...c(name), restartPolicy: 'Always' });
/** A container with its own restart policy, and a rule restarting it on these exit codes. */
const own = (name: string, restartPolicy: Container['restartPolicy'], restartOn?: number[]): Container => ({
  ...c(name),
  restartPolicy,
  ...(restartOn ? { restartPolicyRules: [{ action: 'Restart', exitCodes: { operator: 'In', values: restartOn } }] } : {}),
});

function pod(spec: Partial<PodSpec> & Pick<PodSpec, 'containers'>, annotations?: Record<string, string>): Pod {
  return { metadata: { name: 'web', namespace: 'default', uid: 'uid-1', ...(annotations ? { annotations } : {}) }, spec };
}
const staticSource = { 'kubernetes.io/config.source': 'file' };

function status(name: string, state: ContainerState, over: Partial<ContainerStatus> = {}): ContainerStatus {
  return { name, state, lastState: {}, ready: false, restartCount: 0, image: 'busybox', imageID: '', ...over };
}
const waiting = (name: string, reason = 'ContainerCreating', over: Partial<ContainerStatus> = {}) =>
  status(name, { waiting: { reason } }, over);
const running = (name: string, started = true) =>
  status(name, { running: { startedAt: '2024-01-02T03:04:05Z' } }, { started, ready: started });
const terminated = (name: string, exitCode: number) =>
  status(name, { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error' } });
/** Waiting to restart after a run that ended with `exitCode` (CrashLoopBackOff). */
const restarting = (name: string, exitCode: number) =>
  waiting(name, 'CrashLoopBackOff', {
    lastState: { terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error' } },
    restartCount: 1,
  });

// ---- the table --------------------------------------------------------------

interface Row {
  name: string;
  pod: Pod;
  statuses: ContainerStatus[];
  podIsTerminal?: boolean;
  want: PodPhase;
}

const two = { containers: [c('a'), c('b')] };
const withInit = { initContainers: [c('setup')], containers: [c('a')] };
const withSidecar = { initContainers: [sidecar('proxy')], containers: [c('a')] };

const rows: Row[] = [
  // Regular containers only.
  { name: 'every container waiting to be created', pod: pod(two), statuses: [waiting('a'), waiting('b')], want: 'Pending' },
  { name: 'one running, one still waiting', pod: pod(two), statuses: [running('a'), waiting('b')], want: 'Pending' },
  { name: 'every container running', pod: pod(two), statuses: [running('a'), running('b')], want: 'Running' },
  { name: 'one running, one with no status (unknown)', pod: pod(two), statuses: [running('a')], want: 'Pending' },
  { name: 'no statuses at all', pod: pod(two), statuses: [], want: 'Pending' },
  { name: 'one running, one exited (Always)', pod: pod(two), statuses: [running('a'), terminated('b', 1)], want: 'Running' },
  {
    name: 'all succeeded under Never',
    pod: pod({ ...two, restartPolicy: 'Never' }),
    statuses: [terminated('a', 0), terminated('b', 0)],
    want: 'Succeeded',
  },
  {
    name: 'all succeeded under OnFailure',
    pod: pod({ ...two, restartPolicy: 'OnFailure' }),
    statuses: [terminated('a', 0), terminated('b', 0)],
    want: 'Succeeded',
  },
  {
    name: 'all exited, one failed, under Never',
    pod: pod({ ...two, restartPolicy: 'Never' }),
    statuses: [terminated('a', 0), terminated('b', 1)],
    want: 'Failed',
  },
  {
    name: 'all exited under Always: they will restart',
    pod: pod(two),
    statuses: [terminated('a', 0), terminated('b', 1)],
    want: 'Running',
  },
  {
    name: 'all succeeded under Always: they will restart',
    pod: pod(two),
    statuses: [terminated('a', 0), terminated('b', 0)],
    want: 'Running',
  },
  {
    name: 'all exited, one failed, under OnFailure: the failed one restarts',
    pod: pod({ ...two, restartPolicy: 'OnFailure' }),
    statuses: [terminated('a', 0), terminated('b', 1)],
    want: 'Running',
  },
  {
    name: 'waiting with a last termination counts as stopped, under Never',
    pod: pod({ ...two, restartPolicy: 'Never' }),
    statuses: [restarting('a', 1), terminated('b', 0)],
    want: 'Failed',
  },
  // As the kubelet: only a terminated state counts as a success, a last termination does not.
  {
    name: 'waiting after a success counts as stopped, not succeeded, under Never',
    pod: pod({ ...two, restartPolicy: 'Never' }),
    statuses: [restarting('a', 0), terminated('b', 0)],
    want: 'Failed',
  },
  {
    name: 'waiting without a last termination is not stopped, under Never',
    pod: pod({ ...two, restartPolicy: 'Never' }),
    statuses: [waiting('a', 'ErrImagePull'), terminated('b', 0)],
    want: 'Pending',
  },

  // Init containers.
  {
    name: 'init container not started yet',
    pod: pod(withInit),
    statuses: [waiting('setup', 'PodInitializing'), waiting('a', 'PodInitializing')],
    want: 'Pending',
  },
  { name: 'init container running', pod: pod(withInit), statuses: [running('setup'), waiting('a', 'PodInitializing')], want: 'Pending' },
  {
    name: 'init container failed under Never',
    pod: pod({ ...withInit, restartPolicy: 'Never' }),
    statuses: [terminated('setup', 1), waiting('a', 'PodInitializing')],
    want: 'Failed',
  },
  {
    name: 'init container failed, waiting to restart, under Never',
    pod: pod({ ...withInit, restartPolicy: 'Never' }),
    statuses: [restarting('setup', 1), waiting('a', 'PodInitializing')],
    want: 'Failed',
  },
  {
    name: 'init container failed under Always: it restarts',
    pod: pod(withInit),
    statuses: [restarting('setup', 1), waiting('a', 'PodInitializing')],
    want: 'Pending',
  },
  {
    name: 'init container failed under OnFailure: it restarts',
    pod: pod({ ...withInit, restartPolicy: 'OnFailure' }),
    statuses: [terminated('setup', 1), waiting('a', 'PodInitializing')],
    want: 'Pending',
  },
  {
    name: 'init container succeeded, regular container running',
    pod: pod(withInit),
    statuses: [terminated('setup', 0), running('a')],
    want: 'Running',
  },
  {
    name: 'init container succeeded, regular container succeeded under Never',
    pod: pod({ ...withInit, restartPolicy: 'Never' }),
    statuses: [terminated('setup', 0), terminated('a', 0)],
    want: 'Succeeded',
  },

  // Sidecars (restartable init containers).
  {
    name: 'sidecar not started yet',
    pod: pod(withSidecar),
    statuses: [waiting('proxy', 'PodInitializing'), waiting('a', 'PodInitializing')],
    want: 'Pending',
  },
  {
    name: 'sidecar running but its startup probe has not passed',
    pod: pod(withSidecar),
    statuses: [running('proxy', false), waiting('a', 'PodInitializing')],
    want: 'Pending',
  },
  {
    name: 'sidecar started, regular container running',
    pod: pod(withSidecar),
    statuses: [running('proxy'), running('a')],
    want: 'Running',
  },
  {
    name: 'sidecar restarting (not started) after the regular container ran',
    pod: pod(withSidecar),
    statuses: [running('proxy', false), running('a')],
    want: 'Running',
  },
  {
    name: 'sidecar stopped, regular container succeeded under OnFailure: the sidecar does not count',
    pod: pod({ ...withSidecar, restartPolicy: 'OnFailure' }),
    statuses: [terminated('proxy', 137), terminated('a', 0)],
    want: 'Succeeded',
  },
  {
    name: 'sidecar still running, regular container succeeded under Never',
    pod: pod({ ...withSidecar, restartPolicy: 'Never' }),
    statuses: [running('proxy'), terminated('a', 0)],
    want: 'Running',
  },

  // A terminal pod (its containers will not restart whatever the policy).
  {
    name: 'terminal pod, all succeeded under Always',
    pod: pod(two),
    statuses: [terminated('a', 0), terminated('b', 0)],
    podIsTerminal: true,
    want: 'Succeeded',
  },
  {
    name: 'terminal pod, one failed under Always',
    pod: pod(two),
    statuses: [terminated('a', 0), terminated('b', 1)],
    podIsTerminal: true,
    want: 'Failed',
  },
  {
    name: 'terminal pod, one failed under OnFailure',
    pod: pod({ ...two, restartPolicy: 'OnFailure' }),
    statuses: [terminated('a', 0), terminated('b', 1)],
    podIsTerminal: true,
    want: 'Failed',
  },
  {
    name: 'terminal static pod keeps the restart-policy answer under Always',
    pod: pod(two, staticSource),
    statuses: [terminated('a', 0), terminated('b', 1)],
    podIsTerminal: true,
    want: 'Running',
  },
  {
    name: 'terminal static pod keeps the restart-policy answer under OnFailure',
    pod: pod({ ...two, restartPolicy: 'OnFailure' }, staticSource),
    statuses: [terminated('a', 0), terminated('b', 1)],
    podIsTerminal: true,
    want: 'Running',
  },
  {
    name: 'terminal pod from the apiserver source is not static',
    pod: pod(two, { 'kubernetes.io/config.source': 'api' }),
    statuses: [terminated('a', 0), terminated('b', 0)],
    podIsTerminal: true,
    want: 'Succeeded',
  },
  {
    name: 'terminal pod with a container still running stays Running',
    pod: pod(two),
    statuses: [running('a'), terminated('b', 0)],
    podIsTerminal: true,
    want: 'Running',
  },

  // A container's own restart policy and rules (ContainerRestartRules): upstream's
  // TestPodPhaseWithContainerRestartPolicy and ...InitContainers.
  {
    name: 'container Never failed under pod Always',
    pod: pod({ restartPolicy: 'Always', containers: [own('a', 'Never')] }),
    statuses: [terminated('a', 1)],
    want: 'Failed',
  },
  {
    name: 'container OnFailure failed under pod Always: restarting',
    pod: pod({ restartPolicy: 'Always', containers: [own('a', 'OnFailure')] }),
    statuses: [terminated('a', 1)],
    want: 'Running',
  },
  {
    name: 'one container Always failed under pod Never, the other succeeded: restarting',
    pod: pod({ restartPolicy: 'Never', containers: [c('a'), own('b', 'Always')] }),
    statuses: [terminated('a', 0), terminated('b', 1)],
    want: 'Running',
  },
  {
    name: 'no container restartable under pod Always, one failed',
    pod: pod({ restartPolicy: 'Always', containers: [own('a', 'Never'), own('b', 'OnFailure')] }),
    statuses: [terminated('a', 1), terminated('b', 0)],
    want: 'Failed',
  },
  {
    name: 'no container restartable under pod Always, all succeeded',
    pod: pod({ restartPolicy: 'Always', containers: [own('a', 'Never'), own('b', 'OnFailure')] }),
    statuses: [terminated('a', 0), terminated('b', 0)],
    want: 'Succeeded',
  },
  {
    name: 'a rule In [42] matched: waiting to restart',
    pod: pod({ restartPolicy: 'Never', containers: [own('a', 'Never', [42])] }),
    statuses: [restarting('a', 42)],
    want: 'Running',
  },
  {
    name: 'a rule In [42] not matched by exit 1: Failed',
    pod: pod({ restartPolicy: 'Always', containers: [own('a', 'Never', [42])] }),
    statuses: [terminated('a', 1)],
    want: 'Failed',
  },
  {
    name: 'init container Never failed under pod Always',
    pod: pod({ restartPolicy: 'Always', initContainers: [own('setup', 'Never')], containers: [c('a')] }),
    statuses: [terminated('setup', 1), waiting('a', 'PodInitializing')],
    want: 'Failed',
  },
  {
    name: 'init container OnFailure failed under pod Never: restarting',
    pod: pod({ restartPolicy: 'Never', initContainers: [own('setup', 'OnFailure')], containers: [c('a')] }),
    statuses: [terminated('setup', 1), waiting('a', 'PodInitializing')],
    want: 'Pending',
  },
  {
    name: 'init container with a rule In [42] under pod Never, back-off after exit 42',
    pod: pod({ restartPolicy: 'Never', initContainers: [own('setup', 'Never', [42])], containers: [c('a')] }),
    statuses: [restarting('setup', 42), waiting('a', 'PodInitializing')],
    want: 'Pending',
  },
];

describe('getPhase', () => {
  it.each(rows.map((row) => [row.name, row.want, row] as const))('%s → %s', (_name, _want, { pod: p, statuses, podIsTerminal, want }) => {
    expect(getPhase(p, statuses, podIsTerminal ?? false)).toBe(want);
  });
});
