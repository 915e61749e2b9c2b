// Pod validation as the apiserver's (pkg/apis/core/validation/validation.go):
// each row breaks one rule of a valid pod and names the field path and the
// message the apiserver gives for it (`kubectl create --dry-run=server`).
import { describe, expect, it } from 'vitest';
import { validatePod } from '../../../../src/engine/config/validation.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A valid pod with one container, a volume it mounts, and a port. */
function pod(): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web' },
    spec: {
      containers: [
        {
          name: 'main',
          image: 'busybox:1.36',
          ports: [{ name: 'http', containerPort: 8080 }],
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
        },
      ],
      volumes: [{ name: 'data', emptyDir: {} }],
    },
  };
}

type Row = [what: string, mutate: (p: Obj) => void, field: string, message: string];

const ctr = (p: Obj): Obj => p.spec.containers[0];
const C = 'spec.containers[0]';

function check(rows: Row[]): void {
  it.each(rows)('%s', (_what, mutate, field, message) => {
    const p = pod();
    mutate(p);
    expect(validatePod(p, { nameSuffixLength: 0 })).toContainEqual({ field, message });
  });
}

function accepts(rows: [what: string, mutate: (p: Obj) => void][]): void {
  it.each(rows)('accepts %s', (_what, mutate) => {
    const p = pod();
    mutate(p);
    expect(validatePod(p, { nameSuffixLength: 0 })).toEqual([]);
  });
}

describe('validatePod: probes', () => {
  check([
    [
      'a probe without a handler',
      (p) => (ctr(p).livenessProbe = { periodSeconds: 5 }),
      `${C}.livenessProbe`,
      'Required value: must specify a handler type',
    ],
    [
      'a probe with two handlers',
      (p) => (ctr(p).readinessProbe = { exec: { command: ['true'] }, tcpSocket: { port: 80 } }),
      `${C}.readinessProbe.tcpSocket`,
      'Forbidden: may not specify more than 1 handler type',
    ],
    [
      'a negative period',
      (p) => (ctr(p).livenessProbe = { exec: { command: ['true'] }, periodSeconds: -1 }),
      `${C}.livenessProbe.periodSeconds`,
      'Invalid value: -1: must be greater than or equal to 0',
    ],
    ['an exec probe without a command', (p) => (ctr(p).startupProbe = { exec: {} }), `${C}.startupProbe.exec.command`, 'Required value'],
    [
      'successThreshold 2 on a liveness probe',
      (p) => (ctr(p).livenessProbe = { tcpSocket: { port: 80 }, successThreshold: 2 }),
      `${C}.livenessProbe.successThreshold`,
      'Invalid value: 2: must be 1',
    ],
    [
      'successThreshold 3 on a startup probe',
      (p) => (ctr(p).startupProbe = { tcpSocket: { port: 80 }, successThreshold: 3 }),
      `${C}.startupProbe.successThreshold`,
      'Invalid value: 3: must be 1',
    ],
    [
      'terminationGracePeriodSeconds on a readiness probe',
      (p) => (ctr(p).readinessProbe = { tcpSocket: { port: 80 }, terminationGracePeriodSeconds: 5 }),
      `${C}.readinessProbe.terminationGracePeriodSeconds`,
      'Invalid value: 5: must not be set for readinessProbes',
    ],
    [
      'terminationGracePeriodSeconds 0 on a liveness probe',
      (p) => (ctr(p).livenessProbe = { tcpSocket: { port: 80 }, terminationGracePeriodSeconds: 0 }),
      `${C}.livenessProbe.terminationGracePeriodSeconds`,
      'Invalid value: 0: must be greater than 0',
    ],
    [
      'port 0',
      (p) => (ctr(p).livenessProbe = { tcpSocket: { port: 0 } }),
      `${C}.livenessProbe.tcpSocket.port`,
      'Invalid value: 0: must be between 1 and 65535, inclusive',
    ],
    [
      'port -1',
      (p) => (ctr(p).livenessProbe = { httpGet: { port: -1 } }),
      `${C}.livenessProbe.httpGet.port`,
      'Invalid value: -1: must be between 1 and 65535, inclusive',
    ],
    [
      'port 99999',
      (p) => (ctr(p).readinessProbe = { grpc: { port: 99999 } }),
      `${C}.readinessProbe.grpc.port`,
      'Invalid value: 99999: must be between 1 and 65535, inclusive',
    ],
    [
      'no port at all',
      (p) => (ctr(p).readinessProbe = { tcpSocket: {} }),
      `${C}.readinessProbe.tcpSocket.port`,
      'Invalid value: 0: must be between 1 and 65535, inclusive',
    ],
    [
      'a port name over 15 characters',
      (p) => (ctr(p).livenessProbe = { httpGet: { port: 'a-very-long-port-name' } }),
      `${C}.livenessProbe.httpGet.port`,
      'Invalid value: "a-very-long-port-name": must be no more than 15 characters',
    ],
    [
      'a port name in capitals',
      (p) => (ctr(p).livenessProbe = { httpGet: { port: 'HTTP' } }),
      `${C}.livenessProbe.httpGet.port`,
      'Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    ],
    [
      'a port name of digits',
      (p) => (ctr(p).livenessProbe = { tcpSocket: { port: '8080' } }),
      `${C}.livenessProbe.tcpSocket.port`,
      'Invalid value: "8080": must contain at least one letter (a-z)',
    ],
    [
      'a port name with two hyphens in a row',
      (p) => (ctr(p).livenessProbe = { tcpSocket: { port: 'a--b' } }),
      `${C}.livenessProbe.tcpSocket.port`,
      'Invalid value: "a--b": must not contain consecutive hyphens',
    ],
    [
      'a port name ending in a hyphen',
      (p) => (ctr(p).livenessProbe = { tcpSocket: { port: 'web-' } }),
      `${C}.livenessProbe.tcpSocket.port`,
      'Invalid value: "web-": must not begin or end with a hyphen',
    ],
    [
      'an httpGet scheme other than HTTP or HTTPS',
      (p) => (ctr(p).livenessProbe = { httpGet: { port: 80, scheme: 'FTP' } }),
      `${C}.livenessProbe.httpGet.scheme`,
      'Unsupported value: "FTP": supported values: "HTTP", "HTTPS"',
    ],
    [
      'a bad probe in an init container',
      (p) => (p.spec.initContainers = [{ name: 'init', image: 'busybox', restartPolicy: 'Always', startupProbe: {} }]),
      'spec.initContainers[0].startupProbe',
      'Required value: must specify a handler type',
    ],
  ]);
  accepts([
    [
      'successThreshold 1 and 0 (the default) on liveness and startup probes',
      (p) => {
        ctr(p).livenessProbe = { tcpSocket: { port: 80 }, successThreshold: 1 };
        ctr(p).startupProbe = { tcpSocket: { port: 'http' }, successThreshold: 0 };
      },
    ],
    ['successThreshold 3 on a readiness probe', (p) => (ctr(p).readinessProbe = { exec: { command: ['true'] }, successThreshold: 3 })],
    ['an httpGet probe with no path and no scheme (defaulted)', (p) => (ctr(p).livenessProbe = { httpGet: { port: 8080 } })],
    ['an HTTPS probe on a named port', (p) => (ctr(p).livenessProbe = { httpGet: { port: 'http', scheme: 'HTTPS' } })],
    [
      'terminationGracePeriodSeconds on a liveness probe',
      (p) => (ctr(p).livenessProbe = { grpc: { port: 9000 }, terminationGracePeriodSeconds: 3 }),
    ],
  ]);
});

describe('validatePod: tolerations', () => {
  const tol = (t: Obj) => (p: Obj) => (p.spec.tolerations = [t]);
  const T = 'spec.tolerations[0]';
  check([
    [
      'an effect Kubernetes does not have',
      tol({ key: 'k', operator: 'Exists', effect: 'NoRun' }),
      `${T}.effect`,
      'Unsupported value: "NoRun": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    ],
    [
      'tolerationSeconds without NoExecute',
      tol({ key: 'k', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 30 }),
      `${T}.effect`,
      'Invalid value: "NoSchedule": effect must be \'NoExecute\' when `tolerationSeconds` is set',
    ],
    [
      'tolerationSeconds with no effect',
      tol({ key: 'k', operator: 'Exists', tolerationSeconds: 30 }),
      `${T}.effect`,
      'Invalid value: "": effect must be \'NoExecute\' when `tolerationSeconds` is set',
    ],
    [
      'a value with operator Exists',
      tol({ key: 'k', operator: 'Exists', value: 'v' }),
      `${T}.operator`,
      'Invalid value: "v": value must be empty when `operator` is \'Exists\'',
    ],
    [
      'an operator Kubernetes does not have',
      tol({ key: 'k', operator: 'In', value: 'v' }),
      `${T}.operator`,
      'Unsupported value: "In": supported values: "Equal", "Exists"',
    ],
    [
      'no key with operator Equal',
      tol({ operator: 'Equal', value: 'v' }),
      `${T}.operator`,
      'Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
    ],
    [
      'a value that is not a label value',
      tol({ key: 'k', value: 'a b' }),
      `${T}.operator`,
      "Invalid value: \"a b\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ],
  ]);
  accepts([
    ['a toleration of everything', tol({ operator: 'Exists' })],
    ['an Equal toleration with tolerationSeconds and NoExecute', tol({ key: 'k', value: 'v', effect: 'NoExecute', tolerationSeconds: 30 })],
    ['a key with no operator (Equal) and no value', tol({ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' })],
  ]);
});

describe('validatePod: container ports', () => {
  const P = `${C}.ports`;
  check([
    ['two ports of one name', (p) => ctr(p).ports.push({ name: 'http', containerPort: 8081 }), `${P}[1].name`, 'Duplicate value: "http"'],
    [
      'a port name over 15 characters',
      (p) => (ctr(p).ports[0].name = 'a-very-long-port-name'),
      `${P}[0].name`,
      'Invalid value: "a-very-long-port-name": must be no more than 15 characters',
    ],
    [
      'a port name with an underscore',
      (p) => (ctr(p).ports[0].name = 'my_port'),
      `${P}[0].name`,
      'Invalid value: "my_port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    ],
    [
      'hostPort other than containerPort under hostNetwork',
      (p) => {
        p.spec.hostNetwork = true;
        ctr(p).ports[0].hostPort = 9090;
      },
      `${P}[0].hostPort`,
      'Invalid value: 9090: must match `containerPort` when `hostNetwork` is true',
    ],
  ]);
  accepts([
    [
      'hostNetwork with hostPort unset (defaulted) or equal',
      (p) => {
        p.spec.hostNetwork = true;
        ctr(p).ports.push({ containerPort: 9090, hostPort: 9090 });
      },
    ],
    ['hostPort other than containerPort without hostNetwork', (p) => (ctr(p).ports[0].hostPort = 9090)],
    [
      'the same name in two containers',
      (p) => p.spec.containers.push({ name: 'b', image: 'busybox', ports: [{ name: 'http', containerPort: 81 }] }),
    ],
  ]);
});

describe('validatePod: env', () => {
  const env = (e: Obj) => (p: Obj) => (ctr(p).env = [e]);
  const E = `${C}.env[0]`;
  check([
    [
      'value with valueFrom',
      env({ name: 'X', value: 'v', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }),
      `${E}.valueFrom`,
      'Invalid value: "": may not be specified when `value` is not empty',
    ],
    [
      'two sources in one valueFrom',
      env({ name: 'X', valueFrom: { fieldRef: { fieldPath: 'metadata.name' }, configMapKeyRef: { name: 'c', key: 'k' } } }),
      `${E}.valueFrom`,
      'Invalid value: "": may not have more than one field specified at a time',
    ],
    [
      'an empty valueFrom',
      env({ name: 'X', valueFrom: {} }),
      `${E}.valueFrom`,
      'Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`',
    ],
    [
      'a fieldPath the downward API does not have',
      env({ name: 'X', valueFrom: { fieldRef: { fieldPath: 'spec.bogus' } } }),
      `${E}.valueFrom.fieldRef.fieldPath`,
      'Invalid value: "spec.bogus": error converting fieldPath: field label not supported: spec.bogus',
    ],
    [
      'a fieldPath env does not support',
      env({ name: 'X', valueFrom: { fieldRef: { fieldPath: 'status.phase' } } }),
      `${E}.valueFrom.fieldRef.fieldPath`,
      'Unsupported value: "status.phase": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"',
    ],
    [
      'a subscript on a field without one',
      env({ name: 'X', valueFrom: { fieldRef: { fieldPath: "metadata.name['x']" } } }),
      `${E}.valueFrom.fieldRef.fieldPath`,
      "Invalid value: \"metadata.name['x']\": error converting fieldPath: field label does not support subscript: metadata.name['x']",
    ],
    [
      'a fieldRef apiVersion other than v1',
      env({ name: 'X', valueFrom: { fieldRef: { apiVersion: 'v2', fieldPath: 'metadata.name' } } }),
      `${E}.valueFrom.fieldRef.fieldPath`,
      'Invalid value: "metadata.name": error converting fieldPath: unsupported pod version: v2',
    ],
  ]);
  accepts([
    ['a fieldRef of the pod IP', env({ name: 'X', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } })],
    ['a fieldRef of a label', env({ name: 'X', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: "metadata.labels['app']" } } })],
    ['an empty value with valueFrom', env({ name: 'X', value: '', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } })],
    ['a resourceFieldRef', env({ name: 'X', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } })],
  ]);
});

describe('validatePod: volume mounts and volumes', () => {
  const M = `${C}.volumeMounts`;
  check([
    [
      'two mounts at one path',
      (p) => ctr(p).volumeMounts.push({ name: 'data', mountPath: '/data' }),
      `${M}[1].mountPath`,
      'Invalid value: "/data": must be unique',
    ],
    ['a mount naming no volume', (p) => (ctr(p).volumeMounts[0].name = 'nope'), `${M}[0].name`, 'Not found: "nope"'],
    [
      'a mount in an init container naming no volume',
      (p) => (p.spec.initContainers = [{ name: 'init', image: 'busybox', volumeMounts: [{ name: 'nope', mountPath: '/x' }] }]),
      'spec.initContainers[0].volumeMounts[0].name',
      'Not found: "nope"',
    ],
    [
      'a hostPath type Kubernetes does not have',
      (p) => (p.spec.volumes[0] = { name: 'data', hostPath: { path: '/tmp', type: 'Bogus' } }),
      'spec.volumes[0].hostPath.type',
      'Unsupported value: "Bogus": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
    ],
  ]);
  accepts([
    ['one volume at two paths', (p) => ctr(p).volumeMounts.push({ name: 'data', mountPath: '/other' })],
    [
      'the same path in two containers',
      (p) => p.spec.containers.push({ name: 'b', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] }),
    ],
    ['a hostPath of type Directory', (p) => (p.spec.volumes[0] = { name: 'data', hostPath: { path: '/tmp', type: 'Directory' } })],
    ['a hostPath of type ""', (p) => (p.spec.volumes[0] = { name: 'data', hostPath: { path: '/tmp', type: '' } })],
    ['a volume with no source (an emptyDir by default)', (p) => (p.spec.volumes[0] = { name: 'data' })],
  ]);
});

describe('validatePod: pod-wide rules', () => {
  check([
    [
      'a dnsPolicy Kubernetes does not have',
      (p) => (p.spec.dnsPolicy = 'Cluster'),
      'spec.dnsPolicy',
      'Unsupported value: "Cluster": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"',
    ],
    [
      'dnsPolicy None without dnsConfig',
      (p) => (p.spec.dnsPolicy = 'None'),
      'spec.dnsConfig',
      'Required value: must provide `dnsConfig` when `dnsPolicy` is None',
    ],
    [
      'dnsPolicy None without nameservers',
      (p) => Object.assign(p.spec, { dnsPolicy: 'None', dnsConfig: { searches: ['a.example'] } }),
      'spec.dnsConfig.nameservers',
      'Required value: must provide at least one DNS nameserver when `dnsPolicy` is None',
    ],
    [
      'four nameservers',
      (p) => (p.spec.dnsConfig = { nameservers: ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'] }),
      'spec.dnsConfig.nameservers',
      'Invalid value: ["10.0.0.1","10.0.0.2","10.0.0.3","10.0.0.4"]: must not have more than 3 nameservers',
    ],
    [
      'a nameserver that is not an IP',
      (p) => (p.spec.dnsConfig = { nameservers: ['dns.example'] }),
      'spec.dnsConfig.nameservers[0]',
      'Invalid value: "dns.example": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    ],
    [
      '33 search paths',
      (p) => (p.spec.dnsConfig = { searches: Array.from({ length: 33 }, (_, i) => `s${i}.example`) }),
      'spec.dnsConfig.searches',
      expect.stringMatching(/^Invalid value: \["s0\.example",.*"s32\.example"\]: must not have more than 32 search paths$/),
    ],
    [
      'a search list over 2048 characters',
      (p) => (p.spec.dnsConfig = { searches: Array.from({ length: 9 }, (_, i) => `${String(i).repeat(63)}.${'x'.repeat(170)}`) }),
      'spec.dnsConfig.searches',
      expect.stringMatching(/: must not have more than 2048 characters \(including spaces\) in the search list$/),
    ],
    [
      'an option without a name',
      (p) => (p.spec.dnsConfig = { options: [{ value: '2' }] }),
      'spec.dnsConfig.options[0]',
      'Required value: must not be empty',
    ],
    [
      'an os Kubernetes does not have',
      (p) => (p.spec.os = { name: 'plan9' }),
      'spec.os',
      'Unsupported value: "plan9": supported values: "linux", "windows"',
    ],
    ['an os without a name', (p) => (p.spec.os = {}), 'spec.os.name', 'Required value'],
    [
      'shareProcessNamespace with hostPID',
      (p) => Object.assign(p.spec, { shareProcessNamespace: true, hostPID: true }),
      'spec.shareProcessNamespace',
      'Invalid value: true: ShareProcessNamespace and HostPID cannot both be enabled',
    ],
    [
      'ephemeralContainers on create',
      (p) => (p.spec.ephemeralContainers = [{ name: 'debug', image: 'busybox' }]),
      'spec.ephemeralContainers',
      'Forbidden: cannot be set on create',
    ],
    [
      'annotations over 256 KiB in all',
      (p) => (p.metadata.annotations = { a: 'x'.repeat(200 * 1024), b: 'y'.repeat(100 * 1024) }),
      'metadata.annotations',
      'Too long: may not be more than 262144 bytes',
    ],
  ]);
  accepts([
    ['dnsPolicy None with a nameserver', (p) => Object.assign(p.spec, { dnsPolicy: 'None', dnsConfig: { nameservers: ['1.1.1.1'] } })],
    ['dnsPolicy ClusterFirstWithHostNet', (p) => (p.spec.dnsPolicy = 'ClusterFirstWithHostNet')],
    ['os linux', (p) => (p.spec.os = { name: 'linux' })],
    ['shareProcessNamespace alone', (p) => (p.spec.shareProcessNamespace = true)],
    ['annotations of just under 256 KiB', (p) => (p.metadata.annotations = { a: 'x'.repeat(256 * 1024 - 1) })],
  ]);
});
