import { describe, expect, it } from 'vitest';
import { decodeManifest, formatManifestError, type ManifestError } from '../../../../src/engine/config/manifest.js';
import { validatePod, type FieldError } from '../../../../src/engine/config/validation.js';

const SOURCE = '/etc/kubernetes/manifests/pods.yaml';

/** A valid pod as YAML, with `extra` lines appended to its first container. */
function podYaml(name: string, containerExtra = ''): string {
  return [
    'apiVersion: v1',
    'kind: Pod',
    'metadata:',
    `  name: ${name}`,
    'spec:',
    '  containers:',
    '  - name: main',
    '    image: busybox:1.36',
    ...(containerExtra ? [containerExtra] : []),
  ].join('\n');
}

/** A valid pod as an object, with `patch` applied to its spec. */
function podObject(name: string, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'main', image: 'busybox:1.36' }], ...spec },
  };
}

const names = (decoded: ReturnType<typeof decodeManifest>) => decoded.pods.map((p) => p.pod.metadata.name);

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      containers:
        - name: web
          image: busybox
`;

describe('decodeManifest', () => {
  it('returns the good pods of a multi-document file and names every bad one by source, document, pod and field', () => {
    const text = [
      podYaml('good-a'),
      '---',
      // document 1: the image is missing
      ['apiVersion: v1', 'kind: Pod', 'metadata:', '  name: no-image', 'spec:', '  containers:', '  - name: main'].join('\n'),
      '---',
      podYaml('good-b'),
      '---',
      // document 3: two problems in one pod
      podYaml('Bad_Name', '    command: "sleep 1"'),
    ].join('\n');

    const decoded = decodeManifest(SOURCE, text);

    expect(decoded.unreadable).toBe(false);
    expect(decoded.pods.map((p) => [p.pod.metadata.name, p.document])).toEqual([
      ['good-a', 0],
      ['good-b', 2],
    ]);
    expect(decoded.errors).toEqual([
      { source: SOURCE, document: 1, pod: 'no-image', field: 'spec.containers[0].image', message: 'Required value' },
      {
        source: SOURCE,
        document: 3,
        pod: 'Bad_Name',
        field: 'metadata.name',
        message: expect.stringMatching(/^Invalid value: "Bad_Name"/),
      },
      { source: SOURCE, document: 3, pod: 'Bad_Name', field: 'spec.containers[0].command', message: 'expected an array, got string' },
    ]);
  });

  it('reads JSON', () => {
    const decoded = decodeManifest('/m/pod.json', JSON.stringify(podObject('from-json')));
    expect(decoded.errors).toEqual([]);
    expect(names(decoded)).toEqual(['from-json']);
    expect(decoded.pods[0].pod.spec.containers[0].image).toBe('busybox:1.36');
  });

  it('reads the items of a v1 List and of a PodList', () => {
    const list = { apiVersion: 'v1', kind: 'List', items: [podObject('in-list-a'), podObject('in-list-b')] };
    // PodList items may leave out kind and apiVersion; they are Pods by the list's type.
    const { kind: _k, apiVersion: _a, ...bare } = podObject('in-podlist');
    const podList = { apiVersion: 'v1', kind: 'PodList', items: [bare] };

    const decoded = decodeManifest(SOURCE, `${JSON.stringify(list)}\n---\n${JSON.stringify(podList)}`);

    expect(decoded.errors).toEqual([]);
    expect(decoded.pods.map((p) => [p.pod.metadata.name, p.document])).toEqual([
      ['in-list-a', 0],
      ['in-list-b', 0],
      ['in-podlist', 1],
    ]);
    expect(decoded.pods[2].pod.kind).toBe('Pod');
    expect(decoded.pods[2].pod.apiVersion).toBe('v1');
  });

  it('reports the bad items of a List and keeps the good ones', () => {
    const list = {
      apiVersion: 'v1',
      kind: 'List',
      items: [
        podObject('ok'),
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' } },
        podObject('no-containers', { containers: [] }),
      ],
    };
    const decoded = decodeManifest(SOURCE, JSON.stringify(list));
    expect(names(decoded)).toEqual(['ok']);
    expect(decoded.skipped).toEqual([
      { source: SOURCE, document: 0, object: 'Service "svc"', message: expect.stringContaining('a Service is not run on a node; skipped') },
    ]);
    expect(decoded.errors).toEqual([
      {
        source: SOURCE,
        document: 0,
        pod: 'no-containers',
        field: 'items[2].spec.containers',
        message: expect.stringContaining('Required value'),
      },
    ]);
  });

  it('names a bad List item by its index in the field path and keeps the good ones', () => {
    const noImage = podObject('b', { containers: [{ name: 'main' }] });
    const decoded = decodeManifest(SOURCE, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [podObject('a'), noImage] }));
    expect(names(decoded)).toEqual(['a']);
    expect(decoded.errors).toEqual([
      { source: SOURCE, document: 0, pod: 'b', field: 'items[1].spec.containers[0].image', message: 'Required value' },
    ]);
  });

  it('reports a List without an items array', () => {
    const decoded = decodeManifest(SOURCE, 'apiVersion: v1\nkind: PodList\nitems: nope\n');
    expect(decoded.pods).toEqual([]);
    expect(decoded.errors).toEqual([{ source: SOURCE, document: 0, field: 'items', message: 'a PodList needs an items array' }]);
  });

  it('takes a Deployment as an object for the local controllers, validated as the apiserver would', () => {
    const good = decodeManifest(SOURCE, DEPLOYMENT);
    expect(good.errors).toEqual([]);
    expect(good.objects.map((o) => [o.object.kind, o.object.metadata.name, o.document])).toEqual([['Deployment', 'web', 0]]);
    const bad = decodeManifest(SOURCE, 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n');
    expect(bad.objects).toEqual([]);
    expect(bad.errors).toEqual([{ source: SOURCE, document: 0, object: 'Deployment "web"', field: 'spec', message: 'Required value' }]);
    expect(formatManifestError(bad.errors[0])).toBe(`${SOURCE}, document 0, Deployment "web": spec: Required value`);
  });

  it('names each object of a kind a node does not run once, and keeps the rest', () => {
    const decoded = decodeManifest(SOURCE, `apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n---\n${DEPLOYMENT}`);
    expect(decoded.errors).toEqual([]);
    expect(decoded.skipped).toEqual([
      { source: SOURCE, document: 0, object: 'Service "web"', message: expect.stringContaining('a Service is not run on a node') },
    ]);
    expect(decoded.objects).toHaveLength(1);
  });

  it.each([
    ['a scalar', 'just a string\n', 'got string'],
    ['an array', '- a\n- b\n', 'got an array'],
  ])('rejects a document that is %s', (_case, text, got) => {
    const decoded = decodeManifest(SOURCE, text);
    expect(decoded.pods).toEqual([]);
    expect(decoded.errors).toHaveLength(1);
    expect(decoded.errors[0]).toMatchObject({ source: SOURCE, document: 0 });
    expect(decoded.errors[0].message).toContain(got);
  });

  it.each([
    ['an unclosed flow mapping', `${podYaml('a')}\n---\nmetadata: {name: broken\n`],
    ['bad indentation', 'kind: Pod\nmetadata:\n  name: a\n   namespace: b\n'],
    ['a duplicate key', 'kind: Pod\nkind: Pod\n'],
  ])('marks the file unreadable on a YAML syntax error: %s', (_case, text) => {
    const decoded = decodeManifest(SOURCE, text);
    expect(decoded.unreadable).toBe(true);
    expect(decoded.errors.length).toBeGreaterThan(0);
    expect(decoded.errors.some((e) => e.message.startsWith('YAML: '))).toBe(true);
  });

  it('gives an error for an alias bomb instead of expanding it', () => {
    const lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i <= 9; i++)
      lines.push(
        `a${i}: &a${i} [${Array(9)
          .fill(`*a${i - 1}`)
          .join(',')}]`,
      );
    const bomb = ['kind: Pod', 'metadata:', '  name: bomb', 'laughs:', ...lines.map((l) => `  ${l}`)].join('\n');

    const started = performance.now();
    const decoded = decodeManifest(SOURCE, `${podYaml('fine')}\n---\n${bomb}`);
    expect(performance.now() - started).toBeLessThan(2000);

    expect(names(decoded)).toEqual(['fine']);
    expect(decoded.errors).toHaveLength(1);
    expect(decoded.errors[0]).toMatchObject({ source: SOURCE, document: 1 });
    expect(decoded.errors[0].message).toMatch(/^YAML: .*alias/i);
  });

  it.each([
    [
      'kind',
      'kind',
      'apiVersion: v1\nmetadata:\n  name: web\n',
      `Object 'Kind' is missing in '{"apiVersion":"v1","metadata":{"name":"web"}}'`,
    ],
    [
      'apiVersion',
      'apiVersion',
      'kind: Pod\nmetadata:\n  name: web\n',
      `Object 'apiVersion' is missing in '{"kind":"Pod","metadata":{"name":"web"}}'`,
    ],
    ['both (kind is named first)', 'kind', 'metadata:\n  name: web\n', `Object 'Kind' is missing in '{"metadata":{"name":"web"}}'`],
  ])('refuses a document without %s, as the kubelet decoder words it', (_case, field, text, message) => {
    const decoded = decodeManifest(SOURCE, text);
    expect(decoded.pods).toEqual([]);
    expect(decoded.errors).toEqual([{ source: SOURCE, document: 0, pod: 'web', field, message }]);
  });

  it('allows a few aliases', () => {
    const text = [
      'apiVersion: v1',
      'kind: Pod',
      'metadata:',
      '  name: aliased',
      '  labels: &l {app: web}',
      '  annotations: *l',
      'spec:',
      '  containers:',
      '  - name: main',
      '    image: busybox',
    ].join('\n');
    const decoded = decodeManifest(SOURCE, text);
    expect(decoded.errors).toEqual([]);
    expect(decoded.pods[0].pod.metadata.annotations).toEqual({ app: 'web' });
  });

  it('reads YAML 1.1 as the kubelet does: y/n/on/off are booleans, 0644 is octal (420); no sexagesimals or timestamps', () => {
    const text = [
      'apiVersion: v1',
      'kind: Pod',
      'metadata:',
      '  name: yaml11',
      '  annotations: {when: 2026-01-01, ratio: 1:20}',
      'spec:',
      '  terminationGracePeriodSeconds: 0644',
      '  containers:',
      '  - name: main',
      '    image: busybox',
    ].join('\n');
    const decoded = decodeManifest(SOURCE, text);
    expect(decoded.errors).toEqual([]);
    expect(decoded.pods[0].pod.spec.terminationGracePeriodSeconds).toBe(0o644);
    expect(decoded.pods[0].pod.metadata.annotations).toEqual({ when: '2026-01-01', ratio: '1:20' });
    // An env var named N is the boolean false: refused with its field, as the kubelet refuses the file.
    const env = [
      'apiVersion: v1',
      'kind: Pod',
      'metadata:',
      '  name: yaml11-env',
      'spec:',
      '  containers:',
      '  - name: main',
      '    image: busybox',
      '    env:',
      '    - name: N',
      '      value: x',
    ].join('\n');
    const refused = decodeManifest(SOURCE, env);
    expect(refused.pods).toEqual([]);
    expect(refused.errors).toEqual([expect.objectContaining({ pod: 'yaml11-env', field: 'spec.containers[0].env[0].name' })]);
  });

  it('skips empty documents and keeps counting them', () => {
    const text = `---\n---\n# only a comment\n---\n${podYaml('third')}\n---\n`;
    const decoded = decodeManifest(SOURCE, text);
    expect(decoded.errors).toEqual([]);
    expect(decoded.pods.map((p) => [p.pod.metadata.name, p.document])).toEqual([['third', 2]]);
  });

  it('returns nothing for an empty file', () => {
    expect(decodeManifest(SOURCE, '')).toEqual({ pods: [], objects: [], skipped: [], errors: [], unreadable: false });
  });

  it('leaves room in the name for the node suffix', () => {
    const name = 'a'.repeat(250);
    expect(decodeManifest(SOURCE, podYaml(name), 0).errors).toEqual([]);
    const decoded = decodeManifest(SOURCE, podYaml(name), 6);
    expect(decoded.pods).toEqual([]);
    expect(decoded.errors).toEqual([
      {
        source: SOURCE,
        document: 0,
        pod: name,
        field: 'metadata.name',
        message: expect.stringContaining('must be no more than 247 characters'),
      },
    ]);
  });

  it('rejects a manifest larger than 10 MiB without parsing it', () => {
    const decoded = decodeManifest(SOURCE, `# ${'x'.repeat(10 * 1024 * 1024)}`);
    expect(decoded.unreadable).toBe(true);
    expect(decoded.errors).toEqual([{ source: SOURCE, document: 0, message: expect.stringContaining('larger than') }]);
  });
});

describe('formatManifestError', () => {
  it.each<[ManifestError, string]>([
    [
      { source: 'f.yaml', document: 2, pod: 'web', field: 'spec.containers[0].image', message: 'Required value' },
      'f.yaml, document 2, pod "web": spec.containers[0].image: Required value',
    ],
    [{ source: 'f.yaml', document: 0, message: 'YAML: bad' }, 'f.yaml, document 0: YAML: bad'],
  ])('formats %j', (error, text) => {
    expect(formatManifestError(error)).toBe(text);
  });
});

describe('validatePod', () => {
  const errorsOf = (spec: Record<string, unknown>, meta: Record<string, unknown> = { name: 'p' }): FieldError[] =>
    validatePod({ apiVersion: 'v1', kind: 'Pod', metadata: meta, spec }, { nameSuffixLength: 0 });
  const c = (extra: Record<string, unknown> = {}) => ({ name: 'main', image: 'busybox', ...extra });

  it('accepts a full, valid pod', () => {
    expect(
      errorsOf({
        restartPolicy: 'OnFailure',
        terminationGracePeriodSeconds: 0,
        hostNetwork: true,
        initContainers: [c({ name: 'init' }), c({ name: 'sidecar', restartPolicy: 'Always' })],
        containers: [
          c({
            command: ['sh', '-c'],
            args: ['sleep 1'],
            env: [
              { name: 'A_B.c-d', value: 'x' },
              { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            ],
            ports: [{ containerPort: 80, hostPort: 80, protocol: 'TCP', name: 'http' }],
            livenessProbe: { exec: { command: ['true'] }, initialDelaySeconds: 0, periodSeconds: 5 },
            volumeMounts: [{ name: 'data', mountPath: '/data' }],
          }),
        ],
        volumes: [{ name: 'data', emptyDir: {} }],
      }),
    ).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, FieldError[]]>([
    ['containers missing', {}, [{ field: 'spec.containers', message: 'Required value' }]],
    ['no containers', { containers: [] }, [{ field: 'spec.containers', message: 'Required value' }]],
    ['missing image', { containers: [{ name: 'main' }] }, [{ field: 'spec.containers[0].image', message: 'Required value' }]],
    ['empty image', { containers: [c({ image: '' })] }, [{ field: 'spec.containers[0].image', message: 'Required value' }]],
    [
      'image with a space around it (the apiserver takes one inside: the pull fails)',
      { containers: [c({ image: ' busybox' })] },
      [{ field: 'spec.containers[0].image', message: 'Invalid value: " busybox": must not have leading or trailing whitespace' }],
    ],
    ['missing container name', { containers: [{ image: 'busybox' }] }, [{ field: 'spec.containers[0].name', message: 'Required value' }]],
    [
      'container name not a DNS label',
      { containers: [c({ name: 'Main_1' })] },
      [
        {
          field: 'spec.containers[0].name',
          message: expect.stringMatching(/^Invalid value: "Main_1": a lowercase RFC 1123 label must consist of/),
        },
      ],
    ],
    [
      'duplicate regular container names',
      { containers: [c(), c()] },
      [{ field: 'spec.containers[1].name', message: 'Duplicate value: "main"' }],
    ],
    [
      'duplicate names across init and regular containers: the init container is the duplicate',
      { initContainers: [c()], containers: [c()] },
      [{ field: 'spec.initContainers[0].name', message: 'Duplicate value: "main"' }],
    ],
    [
      'command as a string',
      { containers: [c({ command: 'sleep 10' })] },
      [{ field: 'spec.containers[0].command', message: 'expected an array, got string' }],
    ],
    [
      'an arg that is a number',
      { containers: [c({ args: ['x', 5] })] },
      [{ field: 'spec.containers[0].args[1]', message: 'expected a string, got number' }],
    ],
    [
      'a hostAlias without a valid IP',
      { containers: [c()], hostAliases: [{ ip: '10.0.0.300', hostnames: ['db'] }] },
      [
        {
          field: 'spec.hostAliases[0].ip',
          message: 'Invalid value: "10.0.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
        },
      ],
    ],
    [
      'a hostAlias hostname that is not a DNS name',
      { containers: [c()], hostAliases: [{ ip: '::1', hostnames: ['ok.example', 'Bad_Name'] }] },
      [
        {
          field: 'spec.hostAliases[0].hostnames[1]',
          message: expect.stringMatching(/^Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of/),
        },
      ],
    ],
    [
      'containerPort 0',
      { containers: [c({ ports: [{ containerPort: 0 }] })] },
      [{ field: 'spec.containers[0].ports[0].containerPort', message: 'Required value' }],
    ],
    [
      'containerPort 70000',
      { containers: [c({ ports: [{ containerPort: 70000 }] })] },
      [{ field: 'spec.containers[0].ports[0].containerPort', message: 'Invalid value: 70000: must be between 1 and 65535, inclusive' }],
    ],
    [
      'containerPort as a string',
      { containers: [c({ ports: [{ containerPort: '80' }] })] },
      [{ field: 'spec.containers[0].ports[0].containerPort', message: 'expected an integer, got string' }],
    ],
    [
      'containerPort missing',
      { containers: [c({ ports: [{ hostPort: 80 }] })] },
      [{ field: 'spec.containers[0].ports[0].containerPort', message: 'Required value' }],
    ],
    [
      'hostPort out of range',
      { containers: [c({ ports: [{ containerPort: 80, hostPort: 65536 }] })] },
      [{ field: 'spec.containers[0].ports[0].hostPort', message: 'Invalid value: 65536: must be between 1 and 65535, inclusive' }],
    ],
    [
      'bad protocol',
      { containers: [c({ ports: [{ containerPort: 80, protocol: 'tcp' }] })] },
      [{ field: 'spec.containers[0].ports[0].protocol', message: 'Unsupported value: "tcp": supported values: "SCTP", "TCP", "UDP"' }],
    ],
    ['a container restartPolicy of its own (ContainerRestartRules)', { containers: [c({ restartPolicy: 'Never' })] }, []],
    [
      'an init container restartPolicy other than Always, with a rule',
      {
        initContainers: [
          c({
            name: 'init',
            restartPolicy: 'Never',
            restartPolicyRules: [{ action: 'Restart', exitCodes: { operator: 'In', values: [42] } }],
          }),
        ],
        containers: [c()],
      },
      [],
    ],
    [
      'a container restartPolicy the apiserver does not know',
      { containers: [c({ restartPolicy: 'Sometimes' })] },
      [
        {
          field: 'spec.containers[0].restartPolicy',
          message: 'Unsupported value: "Sometimes": supported values: "Always", "Never", "OnFailure"',
        },
      ],
    ],
    [
      'restartPolicyRules without a restartPolicy',
      { containers: [c({ restartPolicyRules: [{ action: 'Restart', exitCodes: { operator: 'In', values: [1] } }] })] },
      [{ field: 'spec.containers[0].restartPolicy', message: 'Required value: must specify restartPolicy when restart rules are used' }],
    ],
    [
      'a rule without exitCodes, a bad action and a bad operator',
      {
        containers: [
          c({
            restartPolicy: 'Never',
            restartPolicyRules: [{ action: 'Restart' }, { action: 'Retry', exitCodes: { operator: 'Is', values: [1] } }],
          }),
        ],
      },
      [
        { field: 'spec.containers[0].restartPolicyRules[0].exitCodes', message: 'Required value: must be specified' },
        {
          field: 'spec.containers[0].restartPolicyRules[1].action',
          message: 'Unsupported value: "Retry": supported values: "Restart", "RestartAllContainers"',
        },
        {
          field: 'spec.containers[0].restartPolicyRules[1].exitCodes.operator',
          message: 'Unsupported value: "Is": supported values: "In", "NotIn"',
        },
      ],
    ],
    [
      'more than 20 rules',
      {
        containers: [
          c({
            restartPolicy: 'Never',
            restartPolicyRules: Array.from({ length: 21 }, () => ({ action: 'Restart', exitCodes: { operator: 'In', values: [1] } })),
          }),
        ],
      },
      [{ field: 'spec.containers[0].restartPolicyRules', message: 'Too many: 21: must have at most 20 items' }],
    ],
    [
      'the RestartAllContainers action, on a container and a sidecar: taken, as the apiserver does (RestartAllContainersOnContainerExits)',
      {
        initContainers: [
          c({
            name: 'side',
            restartPolicy: 'Always',
            restartPolicyRules: [{ action: 'RestartAllContainers', exitCodes: { operator: 'In', values: [7] } }],
          }),
        ],
        containers: [
          c({
            restartPolicy: 'Never',
            restartPolicyRules: [{ action: 'RestartAllContainers', exitCodes: { operator: 'In', values: [3] } }],
          }),
        ],
      },
      [],
    ],
    [
      'bad pod restartPolicy',
      { restartPolicy: 'Sometimes', containers: [c()] },
      [{ field: 'spec.restartPolicy', message: expect.stringContaining('Unsupported value: "Sometimes"') }],
    ],
    ['negative grace period: made 1 on create, as the apiserver does', { terminationGracePeriodSeconds: -1, containers: [c()] }, []],
    [
      'activeDeadlineSeconds 0',
      { activeDeadlineSeconds: 0, containers: [c()] },
      [{ field: 'spec.activeDeadlineSeconds', message: 'Invalid value: 0: must be between 1 and 2147483647, inclusive' }],
    ],
    [
      'hostNetwork as a string',
      { hostNetwork: 'true', containers: [c()] },
      [{ field: 'spec.hostNetwork', message: 'expected a boolean, got string' }],
    ],
    [
      'env name with an equals sign (one starting with a digit is fine since v1.34)',
      {
        containers: [
          c({
            env: [
              { name: 'A=B', value: 'v' },
              { name: '1X', value: 'v' },
            ],
          }),
        ],
      },
      [{ field: 'spec.containers[0].env[0].name', message: expect.stringMatching(/^Invalid value: "A=B"/) }],
    ],
    [
      'env value a number',
      { containers: [c({ env: [{ name: 'X', value: 1 }] })] },
      [{ field: 'spec.containers[0].env[0].value', message: 'expected a string, got number' }],
    ],
    [
      'fieldRef without fieldPath',
      { containers: [c({ env: [{ name: 'X', valueFrom: { fieldRef: {} } }] })] },
      [{ field: 'spec.containers[0].env[0].valueFrom.fieldRef.fieldPath', message: 'Required value' }],
    ],
    [
      'probe periodSeconds -1 (0 is the default, as in the apiserver)',
      { containers: [c({ readinessProbe: { exec: { command: ['true'] }, periodSeconds: -1 } })] },
      [{ field: 'spec.containers[0].readinessProbe.periodSeconds', message: 'Invalid value: -1: must be greater than or equal to 0' }],
    ],
    [
      'a mountPropagation Kubernetes does not have',
      {
        containers: [c({ volumeMounts: [{ name: 'v', mountPath: '/v', mountPropagation: 'Both' }] })],
        volumes: [{ name: 'v', emptyDir: {} }],
      },
      [
        {
          field: 'spec.containers[0].volumeMounts.mountPropagation',
          message: 'Unsupported value: "Both": supported values: "Bidirectional", "HostToContainer", "None"',
        },
      ],
    ],
    [
      'Bidirectional in a container that is not privileged',
      {
        containers: [c({ volumeMounts: [{ name: 'v', mountPath: '/v', mountPropagation: 'Bidirectional' }] })],
        volumes: [{ name: 'v', emptyDir: {} }],
      },
      [
        {
          field: 'spec.containers[0].volumeMounts.mountPropagation',
          message: 'Forbidden: Bidirectional mount propagation is available only to privileged containers',
        },
      ],
    ],
    [
      'a recursiveReadOnly Kubernetes does not have',
      {
        containers: [c({ volumeMounts: [{ name: 'v', mountPath: '/v', readOnly: true, recursiveReadOnly: 'Always' }] })],
        volumes: [{ name: 'v', emptyDir: {} }],
      },
      [
        {
          field: 'spec.containers[0].volumeMounts.recursiveReadOnly',
          message: 'Unsupported value: "Always": supported values: "Disabled", "Enabled", "IfPossible"',
        },
      ],
    ],
    [
      'recursiveReadOnly on a writable mount with propagation',
      {
        containers: [
          c({ volumeMounts: [{ name: 'v', mountPath: '/v', recursiveReadOnly: 'Enabled', mountPropagation: 'HostToContainer' }] }),
        ],
        volumes: [{ name: 'v', emptyDir: {} }],
      },
      [
        {
          field: 'spec.containers[0].volumeMounts.recursiveReadOnly',
          message: 'Forbidden: may only be specified when readOnly is true',
        },
        {
          field: 'spec.containers[0].volumeMounts.recursiveReadOnly',
          message: 'Forbidden: may only be specified when mountPropagation is None or not specified',
        },
      ],
    ],
    [
      'volume mount without a path',
      { containers: [c({ volumeMounts: [{ name: 'v' }] })], volumes: [{ name: 'v', emptyDir: {} }] },
      [{ field: 'spec.containers[0].volumeMounts[0].mountPath', message: 'Required value' }],
    ],
    [
      'duplicate volume names',
      { volumes: [{ name: 'v' }, { name: 'v' }], containers: [c()] },
      [{ field: 'spec.volumes[1].name', message: 'Duplicate value: "v"' }],
    ],
    [
      'an image volume without a reference, and one with a pull policy Kubernetes does not have',
      {
        volumes: [
          { name: 'a', image: {} },
          { name: 'b', image: { reference: 'tools:1.0', pullPolicy: 'Sometimes' } },
        ],
        containers: [c()],
      },
      [
        { field: 'spec.volumes[0].image.reference', message: 'Required value' },
        {
          field: 'spec.volumes[1].image.pullPolicy',
          message: 'Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
        },
      ],
    ],
    [
      'bad pull policy',
      { containers: [c({ imagePullPolicy: 'Sometimes' })] },
      [{ field: 'spec.containers[0].imagePullPolicy', message: expect.stringContaining('"Always", "IfNotPresent", "Never"') }],
    ],
    [
      'a container that is a string',
      { containers: ['busybox'] },
      [{ field: 'spec.containers[0]', message: 'expected an object, got string' }],
    ],
    [
      'runAsUser as a string',
      { containers: [c({ securityContext: { runAsUser: '1000' } })] },
      [{ field: 'spec.containers[0].securityContext.runAsUser', message: 'expected an integer, got string' }],
    ],
    [
      'a negative pod runAsGroup',
      { securityContext: { runAsGroup: -1 }, containers: [c()] },
      [{ field: 'spec.securityContext.runAsGroup', message: 'Invalid value: -1: must be between 0 and 2147483647, inclusive' }],
    ],
    [
      'fsGroup past the largest id',
      { securityContext: { fsGroup: 2 ** 31 }, containers: [c()] },
      [{ field: 'spec.securityContext.fsGroup', message: 'Invalid value: 2147483648: must be between 0 and 2147483647, inclusive' }],
    ],
    [
      'a supplementalGroup that is not a number',
      { securityContext: { supplementalGroups: [1, 'wheel'] }, containers: [c()] },
      [{ field: 'spec.securityContext.supplementalGroups[1]', message: 'expected an integer, got string' }],
    ],
    [
      'runAsNonRoot as a string',
      { securityContext: { runAsNonRoot: 'yes' }, containers: [c()] },
      [{ field: 'spec.securityContext.runAsNonRoot', message: 'expected a boolean, got string' }],
    ],
    [
      'readOnlyRootFilesystem as a number',
      { containers: [c({ securityContext: { readOnlyRootFilesystem: 1 } })] },
      [{ field: 'spec.containers[0].securityContext.readOnlyRootFilesystem', message: 'expected a boolean, got number' }],
    ],
    [
      'a capability that is not a string',
      { containers: [c({ securityContext: { capabilities: { add: ['NET_ADMIN', 7] } } })] },
      [{ field: 'spec.containers[0].securityContext.capabilities.add[1]', message: 'expected a string, got number' }],
    ],
    [
      'capabilities.drop as a string',
      { containers: [c({ securityContext: { capabilities: { drop: 'ALL' } } })] },
      [{ field: 'spec.containers[0].securityContext.capabilities.drop', message: 'expected an array, got string' }],
    ],
    [
      'a sysctl name with capitals',
      { securityContext: { sysctls: [{ name: 'Kernel.Shmmax', value: '1' }] }, containers: [c()] },
      [
        {
          field: 'spec.securityContext.sysctls[0].name',
          message:
            'Invalid value: "Kernel.Shmmax": must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$',
        },
      ],
    ],
    [
      'a sysctl twice',
      {
        securityContext: {
          sysctls: [
            { name: 'kernel.shmmax', value: '1' },
            { name: 'kernel.shmmax', value: '2' },
          ],
        },
        containers: [c()],
      },
      [{ field: 'spec.securityContext.sysctls[1].name', message: 'Duplicate value: "kernel.shmmax"' }],
    ],
    [
      'a network sysctl with hostNetwork',
      { hostNetwork: true, securityContext: { sysctls: [{ name: 'net.ipv4.tcp_syncookies', value: '1' }] }, containers: [c()] },
      [
        {
          field: 'spec.securityContext.sysctls[0].name',
          message: 'Invalid value: "net.ipv4.tcp_syncookies": may not be specified when \'hostNetwork\' is true',
        },
      ],
    ],
    [
      'an IPC sysctl with hostIPC',
      { hostIPC: true, securityContext: { sysctls: [{ name: 'fs/mqueue/msg_max', value: '1' }] }, containers: [c()] },
      [
        {
          field: 'spec.securityContext.sysctls[0].name',
          message: 'Invalid value: "fs/mqueue/msg_max": may not be specified when \'hostIPC\' is true',
        },
      ],
    ],
    [
      'a sysctl without a name, and a value that is a number',
      { securityContext: { sysctls: [{ value: 1 }] }, containers: [c()] },
      [
        { field: 'spec.securityContext.sysctls[0].value', message: 'expected a string, got number' },
        { field: 'spec.securityContext.sysctls[0].name', message: 'Required value' },
      ],
    ],
    [
      'a Localhost seccomp profile without its path',
      { securityContext: { seccompProfile: { type: 'Localhost' } }, containers: [c()] },
      [
        {
          field: 'spec.securityContext.seccompProfile.localhostProfile',
          message: 'Required value: must be set when seccomp type is Localhost',
        },
      ],
    ],
    [
      'a seccomp profile path that climbs out of the profile root',
      { containers: [c({ securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: '../etc/x.json' } } })] },
      [
        {
          field: 'spec.containers[0].securityContext.seccompProfile.localhostProfile',
          message: `Invalid value: "../etc/x.json": must not contain '..'`,
        },
      ],
    ],
    [
      'a seccomp path beside a type that takes none, and an unknown type',
      {
        securityContext: { seccompProfile: { type: 'RuntimeDefault', localhostProfile: 'a.json' } },
        containers: [c({ securityContext: { seccompProfile: { type: 'Strict' } } })],
      },
      [
        {
          field: 'spec.securityContext.seccompProfile.localhostProfile',
          // The apiserver prints the profile as its Go struct.
          message: 'Invalid value: {"Type":"RuntimeDefault","LocalhostProfile":"a.json"}: can only be set when seccomp type is Localhost',
        },
        {
          field: 'spec.containers[0].securityContext.seccompProfile.type',
          message: 'Unsupported value: "Strict": supported values: "Localhost", "RuntimeDefault", "Unconfined"',
        },
      ],
    ],
    [
      'allowPrivilegeEscalation false beside privileged',
      { containers: [c({ securityContext: { allowPrivilegeEscalation: false, privileged: true } })] },
      [
        {
          field: 'spec.containers[0].securityContext',
          // The whole securityContext as the apiserver's Go struct: every field by its Go name, unset ones null.
          message:
            'Invalid value: {"Capabilities":null,"Privileged":true,"SELinuxOptions":null,"WindowsOptions":null,"RunAsUser":null,"RunAsGroup":null,"RunAsNonRoot":null,"ReadOnlyRootFilesystem":null,"AllowPrivilegeEscalation":false,"ProcMount":null,"SeccompProfile":null,"AppArmorProfile":null}: cannot set `allowPrivilegeEscalation` to false and `privileged` to true',
        },
      ],
    ],
    [
      'allowPrivilegeEscalation false beside CAP_SYS_ADMIN added',
      { containers: [c({ securityContext: { allowPrivilegeEscalation: false, capabilities: { add: ['NET_ADMIN', 'CAP_SYS_ADMIN'] } } })] },
      [
        {
          field: 'spec.containers[0].securityContext',
          message:
            'Invalid value: {"Capabilities":{"Add":["NET_ADMIN","CAP_SYS_ADMIN"],"Drop":null},"Privileged":null,"SELinuxOptions":null,"WindowsOptions":null,"RunAsUser":null,"RunAsGroup":null,"RunAsNonRoot":null,"ReadOnlyRootFilesystem":null,"AllowPrivilegeEscalation":false,"ProcMount":null,"SeccompProfile":null,"AppArmorProfile":null}: cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN',
        },
      ],
    ],
    [
      'a procMount Kubernetes does not have',
      { containers: [c({ securityContext: { procMount: 'Open' } })] },
      [
        {
          field: 'spec.containers[0].securityContext.procMount',
          message: 'Unsupported value: "Open": supported values: "Default", "Unmasked"',
        },
      ],
    ],
  ])('spec: %s', (_case, spec, expected) => {
    expect(errorsOf(spec)).toEqual(expected);
  });

  it.each<[string, Record<string, unknown> | undefined, FieldError[]]>([
    ['missing metadata', undefined, [{ field: 'metadata', message: 'Required value' }]],
    ['missing name', {}, [{ field: 'metadata.name', message: 'Required value: name or generateName is required' }]],
    [
      'upper-case name',
      { name: 'Web' },
      [{ field: 'metadata.name', message: expect.stringMatching(/^Invalid value: "Web": a lowercase RFC 1123 subdomain must consist of/) }],
    ],
    ['name with a dot is fine', { name: 'web.v1' }, []],
    [
      'name too long',
      { name: 'a'.repeat(254) },
      [{ field: 'metadata.name', message: expect.stringContaining('must be no more than 253 characters') }],
    ],
    [
      'namespace with a dot',
      { name: 'p', namespace: 'kube.system' },
      [{ field: 'metadata.namespace', message: expect.stringMatching(/^Invalid value: "kube.system"/) }],
    ],
    [
      'label value a number',
      { name: 'p', labels: { tier: 1 } },
      [{ field: 'metadata.labels[tier]', message: 'expected a string, got number' }],
    ],
    [
      'annotations an array',
      { name: 'p', annotations: ['a'] },
      [{ field: 'metadata.annotations', message: 'expected an object, got array' }],
    ],
  ])('metadata: %s', (_case, meta, expected) => {
    const raw = { apiVersion: 'v1', kind: 'Pod', ...(meta ? { metadata: meta } : {}), spec: { containers: [c()] } };
    expect(validatePod(raw, { nameSuffixLength: 0 })).toEqual(expected);
  });

  it('rejects apiVersion other than v1, a missing spec, and a non-object', () => {
    expect(validatePod({ apiVersion: 'v2', metadata: { name: 'p' }, spec: { containers: [c()] } }, { nameSuffixLength: 0 })).toEqual([
      { field: 'apiVersion', message: 'Unsupported value: "v2": supported values: "v1"' },
    ]);
    expect(validatePod({ metadata: { name: 'p' } }, { nameSuffixLength: 0 })).toEqual([{ field: 'spec', message: 'Required value' }]);
    expect(validatePod(null, { nameSuffixLength: 0 })).toEqual([{ field: '', message: 'Required value' }]);
  });

  it('reports every problem of a pod, not just the first', () => {
    const errors = errorsOf({ containers: [{ name: 'BAD', command: 'x', ports: [{ containerPort: 99999 }] }] }, { name: 'Bad' });
    expect(errors.map((e) => e.field)).toEqual([
      'metadata.name',
      'spec.containers[0].name',
      'spec.containers[0].image',
      'spec.containers[0].command',
      'spec.containers[0].ports[0].containerPort',
    ]);
  });
});
