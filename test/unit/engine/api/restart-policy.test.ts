import { describe, expect, it } from 'vitest';
import {
  allContainersCouldRestart,
  containerShouldRestart,
  findMatchingContainerRestartRule,
  podRunsForever,
  restartsWithoutExitCode,
  triggersRestartAll,
} from '../../../../src/engine/api/restart-policy.js';
import type { Container, ContainerRestartRule, PodSpec } from '../../../../src/engine/api/v1.js';

// The rows of upstream's TestContainerShouldRestart (pkg/api/v1/pod/util_test.go), in knode's form.

const rule = (operator: 'In' | 'NotIn', values: number[]): ContainerRestartRule => ({ action: 'Restart', exitCodes: { operator, values } });
const ctr = (over: Partial<Container> = {}): Container => ({ name: 'main', image: 'busybox', ...over });

interface Row {
  name: string;
  container: Container;
  pod: PodSpec['restartPolicy'];
  exitCode: number;
  want: boolean;
}

const rows: Row[] = [
  // No policy of its own: the pod's.
  { name: 'pod Always, exit 0', container: ctr(), pod: 'Always', exitCode: 0, want: true },
  { name: 'pod unset is Always', container: ctr(), pod: undefined, exitCode: 0, want: true },
  { name: 'pod OnFailure, exit 0', container: ctr(), pod: 'OnFailure', exitCode: 0, want: false },
  { name: 'pod OnFailure, exit 1', container: ctr(), pod: 'OnFailure', exitCode: 1, want: true },
  { name: 'pod Never, exit 1', container: ctr(), pod: 'Never', exitCode: 1, want: false },
  // Its own policy wins over the pod's.
  { name: 'container Never under pod Always', container: ctr({ restartPolicy: 'Never' }), pod: 'Always', exitCode: 1, want: false },
  { name: 'container Always under pod Never', container: ctr({ restartPolicy: 'Always' }), pod: 'Never', exitCode: 0, want: true },
  { name: 'container OnFailure, exit 0', container: ctr({ restartPolicy: 'OnFailure' }), pod: 'Always', exitCode: 0, want: false },
  { name: 'container OnFailure, exit 2', container: ctr({ restartPolicy: 'OnFailure' }), pod: 'Never', exitCode: 2, want: true },
  // Rules first, in order; the policy when none matches.
  {
    name: 'In rule matches',
    container: ctr({ restartPolicy: 'Never', restartPolicyRules: [rule('In', [42])] }),
    pod: 'Never',
    exitCode: 42,
    want: true,
  },
  {
    name: 'In rule does not match: the container policy',
    container: ctr({ restartPolicy: 'Never', restartPolicyRules: [rule('In', [42])] }),
    pod: 'Always',
    exitCode: 1,
    want: false,
  },
  {
    name: 'NotIn rule matches another code',
    container: ctr({ restartPolicy: 'Never', restartPolicyRules: [rule('NotIn', [0, 1])] }),
    pod: 'Never',
    exitCode: 2,
    want: true,
  },
  {
    name: 'NotIn rule does not match a listed code',
    container: ctr({ restartPolicy: 'Never', restartPolicyRules: [rule('NotIn', [0, 1])] }),
    pod: 'Always',
    exitCode: 1,
    want: false,
  },
  {
    name: 'no rule matches exit 0 under OnFailure',
    container: ctr({ restartPolicy: 'OnFailure', restartPolicyRules: [rule('In', [42])] }),
    pod: 'Always',
    exitCode: 0,
    want: false,
  },
  {
    name: 'rules without a policy of its own are not read (validation refuses them)',
    container: ctr({ restartPolicyRules: [rule('In', [42])] }),
    pod: 'Never',
    exitCode: 42,
    want: false,
  },
];

describe('containerShouldRestart', () => {
  it.each(rows)('$name', ({ container, pod, exitCode, want }) => {
    expect(containerShouldRestart(container, { restartPolicy: pod }, exitCode)).toBe(want);
  });
});

describe('findMatchingContainerRestartRule', () => {
  it('returns the first rule that matches, in order', () => {
    const first = rule('NotIn', [0]);
    const second = rule('In', [3]);
    expect(findMatchingContainerRestartRule(ctr({ restartPolicy: 'Never', restartPolicyRules: [first, second] }), 3)).toBe(first);
    expect(findMatchingContainerRestartRule(ctr({ restartPolicy: 'Never', restartPolicyRules: [first, second] }), 0)).toBeUndefined();
  });

  it('never matches a rule without exitCodes or with an operator it does not know', () => {
    const odd = [{ action: 'Restart' }, { action: 'Restart', exitCodes: { operator: 'Is', values: [1] } }] as ContainerRestartRule[];
    expect(findMatchingContainerRestartRule(ctr({ restartPolicy: 'Never', restartPolicyRules: odd }), 1)).toBeUndefined();
  });
});

describe('restartsWithoutExitCode: a failed probe or an unknown state, no exit code to read', () => {
  it.each([
    { container: ctr(), pod: 'Never' as const, want: false },
    { container: ctr(), pod: 'OnFailure' as const, want: true },
    { container: ctr({ restartPolicy: 'Never' }), pod: 'Always' as const, want: false },
    { container: ctr({ restartPolicy: 'Never', restartPolicyRules: [rule('In', [42])] }), pod: 'Always' as const, want: false },
    { container: ctr({ restartPolicy: 'OnFailure' }), pod: 'Never' as const, want: true },
  ])('$container.restartPolicy under pod $pod', ({ container, pod, want }) => {
    expect(restartsWithoutExitCode(container, { restartPolicy: pod })).toBe(want);
  });
});

describe('podRunsForever', () => {
  it.each([
    { name: 'pod Always', spec: { restartPolicy: 'Always' as const, containers: [ctr()] }, want: true },
    { name: 'pod Never', spec: { restartPolicy: 'Never' as const, containers: [ctr()] }, want: false },
    {
      name: 'pod Always, its one container Never',
      spec: { restartPolicy: 'Always' as const, containers: [ctr({ restartPolicy: 'Never' })] },
      want: false,
    },
    {
      name: 'pod Never, one container Always',
      spec: { restartPolicy: 'Never' as const, containers: [ctr(), ctr({ name: 'b', restartPolicy: 'Always' })] },
      want: true,
    },
  ])('$name', ({ spec, want }) => {
    expect(podRunsForever(spec)).toBe(want);
  });
});

describe('RestartAllContainers rules', () => {
  const all = (values: number[]): ContainerRestartRule => ({ action: 'RestartAllContainers', exitCodes: { operator: 'In', values } });
  it.each([
    { name: 'its rule matches', container: ctr({ restartPolicy: 'Never', restartPolicyRules: [all([3])] }), exitCode: 3, want: true },
    {
      name: 'its rule does not match',
      container: ctr({ restartPolicy: 'Never', restartPolicyRules: [all([3])] }),
      exitCode: 4,
      want: false,
    },
    {
      name: 'the first matching rule is Restart: this container alone',
      container: ctr({ restartPolicy: 'Never', restartPolicyRules: [rule('In', [3]), all([3])] }),
      exitCode: 3,
      want: false,
    },
    { name: 'no rules', container: ctr(), exitCode: 3, want: false },
  ])('triggersRestartAll: $name', ({ container, exitCode, want }) => {
    expect(triggersRestartAll(container, exitCode)).toBe(want);
    // Either action restarts the container itself.
    if (want) expect(containerShouldRestart(container, { restartPolicy: 'Never' }, exitCode)).toBe(true);
  });

  it('allContainersCouldRestart: a RestartAllContainers rule on any container, init ones included', () => {
    const withAll = ctr({ name: 'x', restartPolicy: 'Never', restartPolicyRules: [all([1])] });
    expect(allContainersCouldRestart({ containers: [ctr()] })).toBe(false);
    expect(allContainersCouldRestart({ containers: [ctr({ restartPolicy: 'Never', restartPolicyRules: [rule('In', [1])] })] })).toBe(false);
    expect(allContainersCouldRestart({ containers: [ctr(), withAll] })).toBe(true);
    expect(allContainersCouldRestart({ initContainers: [withAll], containers: [ctr()] })).toBe(true);
  });
});
