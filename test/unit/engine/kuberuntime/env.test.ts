import { describe, expect, it } from 'vitest';
import type { Container, EnvVar, Pod } from '../../../../src/engine/api/v1.js';
import {
  expand,
  expandCommand,
  makeEnvironmentVariables,
  podFieldValue,
  type PodAddresses,
} from '../../../../src/engine/kuberuntime/env.js';
import { SyncError } from '../../../../src/engine/kuberuntime/sync-result.js';

// ---- builders ---------------------------------------------------------------

const addresses: PodAddresses = { podIP: '10.88.0.5', podIPs: ['10.88.0.5', 'fd00::5'], hostIP: '192.168.1.10', nodeName: 'node-a' };

function pod(over: { spec?: Partial<Pod['spec']>; metadata?: Partial<Pod['metadata']> } = {}): Pod {
  return {
    metadata: {
      name: 'web',
      namespace: 'shop',
      uid: 'uid-1',
      labels: { app: 'web', 'app.kubernetes.io/tier': 'front' },
      annotations: { 'example.com/owner': 'team-a' },
      ...over.metadata,
    },
    spec: { containers: [], serviceAccountName: 'builder', ...over.spec },
  };
}

const container = (env: EnvVar[], extra: Partial<Container> = {}): Container => ({ name: 'app', image: 'busybox', env, ...extra });
const value = (name: string, v?: string): EnvVar => ({ name, ...(v !== undefined ? { value: v } : {}) });
const field = (name: string, fieldPath: string): EnvVar => ({ name, valueFrom: { fieldRef: { fieldPath } } });
const lookupIn = (vars: Record<string, string>) => (name: string) => vars[name];

/** What the SyncError thrown by `fn` says, or fails the test if it does not throw one. */
function syncErrorOf(fn: () => unknown): SyncError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(SyncError);
    return err as SyncError;
  }
  throw new Error('expected a SyncError');
}

// ---- $(VAR) expansion -------------------------------------------------------

describe('expand', () => {
  const vars = { A: 'x', B: 'y', EMPTY: '', REF: '$(B)' };
  it.each([
    ['plain text', 'hello', 'hello'],
    ['a defined variable', 'echo $(A)', 'echo x'],
    ['two variables back to back', '$(A)$(B)', 'xy'],
    ['the same variable twice', '$(A)-$(A)', 'x-x'],
    ['a variable defined as empty', '[$(EMPTY)]', '[]'],
    ['an undefined variable stays as written', 'echo $(MISSING)', 'echo $(MISSING)'],
    ['$$ escapes to a single $', 'cost: $$5', 'cost: $5'],
    ['$$(A) is a literal $(A)', 'echo $$(A)', 'echo $(A)'],
    ['$$$(A) is a $ and then A', '$$$(A)', '$x'],
    ['$$$$ is two dollars', '$$$$', '$$'],
    ['a lone $ before another character stays', 'a$b', 'a$b'],
    ['a trailing $ stays', 'end$', 'end$'],
    ['an unterminated reference stays', 'echo $(A', 'echo $(A'],
    ['an unterminated reference at the very end', 'echo $(', 'echo $('],
    ['the empty name is undefined', '$()', '$()'],
    ['a reference stops at the first closing parenthesis', '$(A$(B))', '$(A$(B))'],
    ['a value is not expanded again', '$(REF)', '$(B)'],
    ['parentheses without $ are text', '(A)', '(A)'],
  ])('%s: %j → %j', (_name, input, want) => {
    expect(expand(input, lookupIn(vars))).toBe(want);
  });
});

// ---- the container's environment -------------------------------------------

describe('makeEnvironmentVariables', () => {
  const rows: [string, EnvVar[], { name: string; value: string }[]][] = [
    ['no env', [], []],
    [
      'plain values in spec order',
      [value('B', '2'), value('A', '1')],
      [
        { name: 'B', value: '2' },
        { name: 'A', value: '1' },
      ],
    ],
    ['a variable without a value is empty', [value('E')], [{ name: 'E', value: '' }]],
    [
      'later variables see earlier ones',
      [value('HOST', 'db'), value('PORT', '5432'), value('URL', 'postgres://$(HOST):$(PORT)/app')],
      [
        { name: 'HOST', value: 'db' },
        { name: 'PORT', value: '5432' },
        { name: 'URL', value: 'postgres://db:5432/app' },
      ],
    ],
    [
      'earlier variables do not see later ones',
      [value('URL', 'http://$(HOST)'), value('HOST', 'db')],
      [
        { name: 'URL', value: 'http://$(HOST)' },
        { name: 'HOST', value: 'db' },
      ],
    ],
    ['a variable does not see itself', [value('PATH', '/bin:$(PATH)')], [{ name: 'PATH', value: '/bin:$(PATH)' }]],
    [
      'escaped references stay literal',
      [value('A', '1'), value('B', '$$(A)')],
      [
        { name: 'A', value: '1' },
        { name: 'B', value: '$(A)' },
      ],
    ],
    [
      'downward API values can be referenced',
      [field('POD', 'metadata.name'), value('GREETING', 'hi from $(POD)')],
      [
        { name: 'POD', value: 'web' },
        { name: 'GREETING', value: 'hi from web' },
      ],
    ],
    [
      'downward API values are not expanded',
      [value('A', '1'), { name: 'L', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['example.com/owner']" } } }],
      [
        { name: 'A', value: '1' },
        { name: 'L', value: 'team-a' },
      ],
    ],
    [
      'an optional ConfigMap key is skipped, and references to it stay literal',
      [
        { name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'mode', optional: true } } },
        value('ARGS', '--mode=$(MODE)'),
      ],
      [{ name: 'ARGS', value: '--mode=$(MODE)' }],
    ],
    [
      'an optional Secret key is skipped',
      [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'creds', key: 'token', optional: true } } }, value('A', '1')],
      [{ name: 'A', value: '1' }],
    ],
  ];
  it.each(rows)('%s', (_name, env, want) => {
    expect(makeEnvironmentVariables(pod(), container(env), addresses)).toEqual(want);
  });

  it('a redefined variable takes the later value, and later references see it', () => {
    const env = makeEnvironmentVariables(
      pod(),
      container([value('A', '1'), value('B', '$(A)'), value('A', '2'), value('C', '$(A)')]),
      addresses,
    );
    expect(Object.fromEntries(env.map((e) => [e.name, e.value]))).toEqual({ A: '2', B: '1', C: '2' });
    expect(env.filter((e) => e.name === 'A')).toHaveLength(1);
  });

  it.each([
    ['a ConfigMap key', { configMapKeyRef: { name: 'settings', key: 'mode' } }, /configmap "settings"/],
    [
      'a ConfigMap key marked optional: false',
      { configMapKeyRef: { name: 'settings', key: 'mode', optional: false } },
      /configmap "settings"/,
    ],
    ['a Secret key', { secretKeyRef: { name: 'creds', key: 'token' } }, /secret "creds"/],
  ])('%s that is not optional fails with CreateContainerConfigError', (_name, valueFrom, message) => {
    const err = syncErrorOf(() => makeEnvironmentVariables(pod(), container([value('A', '1'), { name: 'X', valueFrom }]), addresses));
    expect(err.reason).toBe('CreateContainerConfigError');
    expect(err.message).toMatch(message);
  });
});

// ---- resourceFieldRef -------------------------------------------------------

describe('makeEnvironmentVariables: resourceFieldRef', () => {
  const resource = (name: string, ref: string, divisor?: string): EnvVar => ({
    name,
    valueFrom: { resourceFieldRef: { resource: ref, ...(divisor ? { divisor } : {}) } },
  });
  const sized: Container['resources'] = { requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } };
  const allocatable = { cpu: 2000, memory: 8589934592 };

  it.each<[string, EnvVar, Container['resources'], PodAddresses['allocatable'], string]>([
    ['limits.memory in bytes', resource('MEM', 'limits.memory'), sized, undefined, '134217728'],
    ['limits.cpu rounded up to whole cores', resource('CPU', 'limits.cpu'), sized, undefined, '1'],
    ['requests.cpu with divisor 1m', resource('CPU', 'requests.cpu', '1m'), sized, undefined, '250'],
    ['requests.memory with divisor 1Mi', resource('MEM', 'requests.memory', '1Mi'), sized, undefined, '64'],
    ["limits.cpu without a limit: the node's allocatable", resource('CPU', 'limits.cpu'), {}, allocatable, '2'],
    ["limits.memory without a limit: the node's allocatable", resource('MEM', 'limits.memory'), {}, allocatable, '8589934592'],
    ['requests.cpu without a request: the limit', resource('CPU', 'requests.cpu', '1m'), { limits: { cpu: '500m' } }, undefined, '500'],
  ])('%s', (_name, env, resources, nodeAllocatable, want) => {
    const vars = makeEnvironmentVariables(pod(), container([env], { resources }), {
      ...addresses,
      ...(nodeAllocatable ? { allocatable: nodeAllocatable } : {}),
    });
    expect(vars).toEqual([{ name: env.name, value: want }]);
  });
});

// ---- downward API -----------------------------------------------------------

describe('podFieldValue', () => {
  it.each([
    ['metadata.name', 'web', pod()],
    ['metadata.namespace', 'shop', pod()],
    ['metadata.uid', 'uid-1', pod()],
    ["metadata.labels['app']", 'web', pod()],
    ["metadata.labels['app.kubernetes.io/tier']", 'front', pod()],
    ["metadata.labels['missing']", '', pod()],
    ["metadata.annotations['example.com/owner']", 'team-a', pod()],
    ["metadata.annotations['missing']", '', pod({ metadata: { annotations: undefined } })],
    ['spec.nodeName', 'node-b', pod({ spec: { nodeName: 'node-b' } })],
    ['spec.nodeName', 'node-a', pod()],
    ['spec.serviceAccountName', 'builder', pod()],
    ['spec.serviceAccountName', '', pod({ spec: { serviceAccountName: undefined } })],
    ['status.podIP', '10.88.0.5', pod()],
    ['status.podIPs', '10.88.0.5,fd00::5', pod()],
    ['status.hostIP', '192.168.1.10', pod()],
    ['status.hostIPs', '192.168.1.10', pod()],
  ])('%s → %j', (fieldPath, want, p) => {
    expect(podFieldValue(p, fieldPath, addresses)).toBe(want);
  });

  it.each(['metadata.labels', 'spec.containers', 'status.phase', "metadata.labels['unterminated"])(
    'refuses %j with CreateContainerConfigError',
    (fieldPath) => {
      const err = syncErrorOf(() => podFieldValue(pod(), fieldPath, addresses, 'X'));
      expect(err.reason).toBe('CreateContainerConfigError');
      expect(err.message).toContain(fieldPath);
    },
  );

  it('an unsupported field in env fails the whole environment', () => {
    const err = syncErrorOf(() => makeEnvironmentVariables(pod(), container([field('PHASE', 'status.phase')]), addresses));
    expect(err.reason).toBe('CreateContainerConfigError');
    expect(err.message).toContain('PHASE');
  });
});

// ---- command and args -------------------------------------------------------

describe('expandCommand', () => {
  const env = [
    { name: 'GREETING', value: 'hello' },
    { name: 'NAME', value: 'web' },
  ];
  it.each([
    ['nothing to expand', {}, { command: [], args: [] }],
    [
      'command and args expanded',
      { command: ['sh', '-c', 'echo $(GREETING)'], args: ['$(NAME)'] },
      { command: ['sh', '-c', 'echo hello'], args: ['web'] },
    ],
    [
      'undefined references stay',
      { command: ['run', '$(MISSING)'], args: ['--name=$(NAME)', '$(OTHER)'] },
      { command: ['run', '$(MISSING)'], args: ['--name=web', '$(OTHER)'] },
    ],
    [
      'escaped references become literal',
      { command: ['sh', '-c', 'echo $$(HOME) $$HOME'] },
      { command: ['sh', '-c', 'echo $(HOME) $HOME'], args: [] },
    ],
    ['one element is never split', { args: ['$(GREETING) $(NAME)'] }, { command: [], args: ['hello web'] }],
  ] as const)('%s', (_name, spec, want) => {
    expect(expandCommand({ name: 'app', ...spec } as Container, env)).toEqual(want);
  });

  it('expands from the environment makeEnvironmentVariables built', () => {
    const c = container([value('DIR', '/data'), value('FILE', '$(DIR)/in.txt')], { command: ['cat', '$(FILE)'] });
    expect(expandCommand(c, makeEnvironmentVariables(pod(), c, addresses))).toEqual({ command: ['cat', '/data/in.txt'], args: [] });
  });
});
