// The corners of pod validation: requests above limits, int32 fields the
// decoder cannot fit, lifecycle hooks, each with the apiserver's field path
// and words (pkg/apis/core/validation/validation.go, and the JSON decoder's
// message for a number that does not fit).
import { describe, expect, it } from 'vitest';
import { validatePod } from '../../../../src/engine/config/validation.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function pod(): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web' },
    spec: { containers: [{ name: 'main', image: 'busybox:1.36', ports: [{ containerPort: 8080 }] }] },
  };
}

const ctr = (p: Obj): Obj => p.spec.containers[0];
const C = 'spec.containers[0]';
const errorsOf = (mutate: (p: Obj) => void) => {
  const p = pod();
  mutate(p);
  return validatePod(p, { nameSuffixLength: 0 });
};

describe('validatePod: requests and limits', () => {
  it.each<[string, Obj, string]>([
    [
      'CPU above its limit',
      { requests: { cpu: '2' }, limits: { cpu: '1' } },
      'Invalid value: "2": must be less than or equal to cpu limit of 1',
    ],
    [
      'CPU in millicores, canonical in the message',
      { requests: { cpu: '1500m' }, limits: { cpu: '1000m' } },
      'Invalid value: "1500m": must be less than or equal to cpu limit of 1',
    ],
    [
      'memory above its limit, binary units',
      { requests: { memory: '2048Mi' }, limits: { memory: '1Gi' } },
      'Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi',
    ],
    [
      'an extended resource not equal to its limit',
      { requests: { 'example.com/gpu': '1' }, limits: { 'example.com/gpu': '2' } },
      'Invalid value: "1": must be equal to example.com/gpu limit of 2',
    ],
  ])('%s', (_what, resources, message) => {
    expect(errorsOf((p) => (ctr(p).resources = resources))).toEqual([{ field: `${C}.resources.requests`, message }]);
  });

  it('wants a limit for an extended resource', () => {
    expect(errorsOf((p) => (ctr(p).resources = { requests: { 'example.com/gpu': '1' } }))).toEqual([
      { field: `${C}.resources.limits`, message: 'Required value: Limit must be set for non overcommitable resources' },
    ]);
  });

  it.each<[string, Obj]>([
    ['requests equal to limits in other units', { requests: { cpu: '1000m', memory: '1024Mi' }, limits: { cpu: 1, memory: '1Gi' } }],
    ['requests below limits', { requests: { cpu: '100m', memory: '1G' }, limits: { cpu: '0.2', memory: '1Gi' } }],
    ['a request without a limit', { requests: { cpu: '64' } }],
  ])('accepts %s', (_what, resources) => {
    expect(errorsOf((p) => (ctr(p).resources = resources))).toEqual([]);
  });
});

describe('validatePod: int32 fields', () => {
  it.each<[string, (p: Obj) => void, string, string]>([
    [
      'a probe period past int32',
      (p) => (ctr(p).livenessProbe = { exec: { command: ['true'] }, periodSeconds: 3000000000 }),
      `${C}.livenessProbe.periodSeconds`,
      'json: cannot unmarshal number 3000000000 into Go struct field Probe.spec.containers.livenessProbe.periodSeconds of type int32',
    ],
    [
      'a containerPort past int32',
      (p) => (ctr(p).ports[0].containerPort = 4294967296),
      `${C}.ports[0].containerPort`,
      'json: cannot unmarshal number 4294967296 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32',
    ],
    [
      'a priority below int32',
      (p) => (p.spec.priority = -2147483649),
      'spec.priority',
      'json: cannot unmarshal number -2147483649 into Go struct field PodSpec.spec.priority of type int32',
    ],
    [
      'a containerPort in int32 but not a port',
      (p) => (ctr(p).ports[0].containerPort = 99999),
      `${C}.ports[0].containerPort`,
      'Invalid value: 99999: must be between 1 and 65535, inclusive',
    ],
  ])('%s', (_what, mutate, field, message) => {
    expect(errorsOf(mutate)).toEqual([{ field, message }]);
  });

  it('accepts the int32 bounds themselves', () => {
    expect(errorsOf((p) => (p.spec.priority = 2147483647))).toEqual([]);
    expect(errorsOf((p) => (ctr(p).livenessProbe = { exec: { command: ['true'] }, initialDelaySeconds: 2147483647 }))).toEqual([]);
  });
});

describe('validatePod: lifecycle hooks', () => {
  const L = `${C}.lifecycle`;
  it.each<[string, Obj, string, string]>([
    ['a hook without a handler', { preStop: {} }, `${L}.preStop`, 'Required value: must specify a handler type'],
    [
      'a hook with two handlers',
      { postStart: { exec: { command: ['true'] }, httpGet: { port: 80 } } },
      `${L}.postStart.httpGet`,
      'Forbidden: may not specify more than 1 handler type',
    ],
    ['an exec hook without a command', { postStart: { exec: {} } }, `${L}.postStart.exec.command`, 'Required value'],
    [
      'a tcpSocket hook on port 0',
      { preStop: { tcpSocket: { port: 0 } } },
      `${L}.preStop.tcpSocket.port`,
      'Invalid value: 0: must be between 1 and 65535, inclusive',
    ],
    [
      'an httpGet hook with a bad scheme',
      { preStop: { httpGet: { port: 80, scheme: 'FTP' } } },
      `${L}.preStop.httpGet.scheme`,
      'Unsupported value: "FTP": supported values: "HTTP", "HTTPS"',
    ],
    [
      'a sleep longer than the default grace period',
      { preStop: { sleep: { seconds: 31 } } },
      `${L}.preStop.sleep`,
      'Invalid value: 31: must be non-negative and less than terminationGracePeriodSeconds (30)',
    ],
  ])('%s', (_what, lifecycle, field, message) => {
    expect(errorsOf((p) => (ctr(p).lifecycle = lifecycle))).toEqual([{ field, message }]);
  });

  it("bounds a sleep by the pod's own grace period", () => {
    const errors = errorsOf((p) => {
      p.spec.terminationGracePeriodSeconds = 5;
      ctr(p).lifecycle = { preStop: { sleep: { seconds: 6 } } };
    });
    expect(errors).toEqual([
      { field: `${L}.preStop.sleep`, message: 'Invalid value: 6: must be non-negative and less than terminationGracePeriodSeconds (5)' },
    ]);
  });

  it('bounds a sleep by a grace period of 0 as 0, and by a negative one as its default 1 (SetDefaults_PodSpec)', () => {
    const sleep = (grace: number) =>
      errorsOf((p) => {
        p.spec.terminationGracePeriodSeconds = grace;
        ctr(p).lifecycle = { preStop: { sleep: { seconds: 5 } } };
      });
    expect(sleep(0)).toEqual([
      { field: `${L}.preStop.sleep`, message: 'Invalid value: 5: must be non-negative and less than terminationGracePeriodSeconds (0)' },
    ]);
    expect(sleep(-3)).toEqual([
      { field: `${L}.preStop.sleep`, message: 'Invalid value: 5: must be non-negative and less than terminationGracePeriodSeconds (1)' },
    ]);
  });

  it('forbids hooks and probes on an init container that is not a sidecar, and checks a sidecar hook', () => {
    const init = (extra: Obj) => (p: Obj) => (p.spec.initContainers = [{ name: 'init', image: 'busybox:1.36', ...extra }]);
    expect(errorsOf(init({ lifecycle: { preStop: { exec: { command: ['true'] } } } }))).toEqual([
      { field: 'spec.initContainers[0].lifecycle', message: 'Forbidden: may not be set for init containers without restartPolicy=Always' },
    ]);
    expect(errorsOf(init({ restartPolicy: 'Always', lifecycle: { preStop: {} } }))).toEqual([
      { field: 'spec.initContainers[0].lifecycle.preStop', message: 'Required value: must specify a handler type' },
    ]);
  });

  it('accepts one handler per hook', () => {
    expect(
      errorsOf((p) => (ctr(p).lifecycle = { postStart: { exec: { command: ['true'] } }, preStop: { sleep: { seconds: 30 } } })),
    ).toEqual([]);
  });
});

describe('bad values the apiserver prints its own way', () => {
  it('a resource claim without a source: the claim as its Go struct', () => {
    expect(errorsOf((p) => (p.spec.resourceClaims = [{ name: 'gpu' }]))).toEqual([
      {
        field: 'spec.resourceClaims[0]',
        message:
          'Invalid value: {"Name":"gpu","ResourceClaimName":null,"ResourceClaimTemplateName":null}: must specify one of: `resourceClaimName`, `resourceClaimTemplateName`',
      },
    ]);
  });

  it('an AppArmor profile name beside a type that takes none: the name', () => {
    expect(errorsOf((p) => (ctr(p).securityContext = { appArmorProfile: { type: 'RuntimeDefault', localhostProfile: 'x' } }))).toEqual([
      {
        field: `${C}.securityContext.appArmorProfile.localhostProfile`,
        message: 'Invalid value: "x": can only be set when AppArmor type is Localhost',
      },
    ]);
  });

  it('a DNS search domain: its length and its form apart, without its trailing dot (IsDNS1123SubdomainWithUnderscore)', () => {
    const long = `${'x'.repeat(2000)}.`;
    const errors = errorsOf((p) => (p.spec.dnsConfig = { searches: ['_srv.example.com.', '.', long, 'Bad.example'] }));
    expect(errors).toEqual([
      { field: 'spec.dnsConfig.searches[2]', message: `Invalid value: "${'x'.repeat(2000)}": must be no more than 253 characters` },
      {
        field: 'spec.dnsConfig.searches[3]',
        message:
          "Invalid value: \"Bad.example\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*')",
      },
    ]);
  });
});

describe('container names as the apiserver reads an unset one ("")', () => {
  it('an unnamed init container repeats an unnamed regular one; two unnamed init containers do not repeat each other', () => {
    const errors = errorsOf((p) => {
      p.spec.containers = [{ image: 'busybox:1.36' }];
      p.spec.initContainers = [{ image: 'busybox:1.36' }, { image: 'busybox:1.36' }];
    });
    expect(errors.filter((e) => e.field.endsWith('.name'))).toEqual([
      { field: 'spec.containers[0].name', message: 'Required value' },
      { field: 'spec.initContainers[0].name', message: 'Required value' },
      { field: 'spec.initContainers[0].name', message: 'Duplicate value: ""' },
      { field: 'spec.initContainers[1].name', message: 'Required value' },
      { field: 'spec.initContainers[1].name', message: 'Duplicate value: ""' },
    ]);
    const inits = errorsOf((p) => (p.spec.initContainers = [{ image: 'busybox:1.36' }, { image: 'busybox:1.36' }]));
    expect(inits.filter((e) => e.message.startsWith('Duplicate'))).toEqual([]);
  });
});
