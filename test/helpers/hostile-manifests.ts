// A corpus of malformed and hostile pod manifests, generated the same way on
// every run (a seeded PRNG): wrong types at every field, huge strings, deep
// nesting, YAML alias bombs, unicode and control characters in names, path
// traversal in host paths, subPaths and log paths, absurd numbers, broken
// syntax, and seeded mutations of valid manifests. Each case says what it
// attacks and, where the answer is certain, that it must be refused.
import { stringify } from 'yaml';
import { prng } from './prng.js';

export interface HostileCase {
  name: string;
  category: string;
  text: string;
  /** The manifest must not give a runnable pod (false: it may, e.g. a harmless mutation). */
  mustRefuse: boolean;
  /** When refused, a reported field must start with this path. */
  field?: string;
}

type Json = Record<string, unknown>;

export function validPod(name: string): Json {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app: name } },
    spec: {
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 5,
      volumes: [
        { name: 'scratch', emptyDir: {} },
        { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
      ],
      initContainers: [{ name: 'init', image: 'busybox:1.36', command: ['sh', '-c', 'true'] }],
      containers: [
        {
          name: 'main',
          image: 'busybox:1.36',
          command: ['sh', '-c', 'sleep 300'],
          args: [],
          env: [
            { name: 'A', value: '1' },
            { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          ],
          ports: [{ containerPort: 8080, name: 'http' }],
          volumeMounts: [{ name: 'scratch', mountPath: '/scratch', subPath: 'sub' }],
          resources: { limits: { memory: '64Mi', cpu: '100m' }, requests: { memory: '32Mi' } },
          readinessProbe: { exec: { command: ['true'] }, periodSeconds: 5, failureThreshold: 3 },
          lifecycle: { preStop: { exec: { command: ['true'] } } },
        },
      ],
    },
  };
}

/** Field paths of the valid pod where a value of the wrong type must be refused, and the value types that are wrong there. */
const TYPED_FIELDS: [string, ('string' | 'number' | 'boolean' | 'array' | 'object')[]][] = [
  ['metadata.name', ['number', 'array', 'object', 'boolean']],
  ['metadata.namespace', ['number', 'array', 'object']],
  ['metadata.labels', ['string', 'number', 'array']],
  ['spec.restartPolicy', ['number', 'array', 'object', 'string']],
  ['spec.terminationGracePeriodSeconds', ['string', 'array', 'object', 'boolean']],
  ['spec.volumes', ['string', 'number', 'object']],
  ['spec.volumes.0.name', ['number', 'array', 'object']],
  ['spec.initContainers', ['string', 'number', 'object']],
  ['spec.initContainers.0.image', ['number', 'array', 'object']],
  ['spec.containers', ['string', 'number', 'object', 'boolean']],
  ['spec.containers.0', ['string', 'number', 'array']],
  ['spec.containers.0.name', ['number', 'array', 'object', 'boolean']],
  ['spec.containers.0.image', ['number', 'array', 'object', 'boolean']],
  ['spec.containers.0.command', ['string', 'number', 'object']],
  ['spec.containers.0.command.1', ['number', 'array', 'object']],
  ['spec.containers.0.args', ['string', 'number', 'object']],
  ['spec.containers.0.env', ['string', 'number', 'object']],
  ['spec.containers.0.env.0.name', ['number', 'array', 'object']],
  ['spec.containers.0.ports', ['string', 'number', 'object']],
  ['spec.containers.0.ports.0.containerPort', ['string', 'array', 'object', 'boolean']],
  ['spec.containers.0.volumeMounts', ['string', 'number', 'object']],
  ['spec.containers.0.volumeMounts.0.mountPath', ['number', 'array', 'object']],
  ['spec.containers.0.readinessProbe.periodSeconds', ['string', 'array', 'object']],
  ['spec.containers.0.readinessProbe.failureThreshold', ['string', 'array']],
];

const SAMPLES = { string: 'x', number: 42, boolean: true, array: [1], object: { a: 1 } } as const;

function setPath(obj: Json, path: string, value: unknown): void {
  const keys = path.split('.');
  let cur: Record<string, unknown> = obj;
  for (const k of keys.slice(0, -1)) cur = cur[k] as Record<string, unknown>;
  cur[keys.at(-1)!] = value;
}

function doc(pod: Json): string {
  return stringify(pod, { lineWidth: 0 });
}

function typeCases(): HostileCase[] {
  const out: HostileCase[] = [];
  for (const [path, kinds] of TYPED_FIELDS) {
    for (const kind of kinds) {
      const pod = validPod('typed');
      // A restartPolicy string that is not one of the three is as wrong as a number.
      setPath(pod, path, path === 'spec.restartPolicy' && kind === 'string' ? 'Sometimes' : SAMPLES[kind]);
      out.push({
        name: `type-${path}-${kind}`,
        category: 'wrong type',
        text: doc(pod),
        mustRefuse: true,
        field: path.replace(/\.(\d+)(?=\.|$)/g, '[$1]').replace(/\[\d+\]$/, ''),
      });
    }
  }
  return out;
}

function hugeCases(): HostileCase[] {
  const big = (n: number) => 'a'.repeat(n);
  const cases: [string, (pod: Json) => void, boolean][] = [
    ['name-300', (p) => setPath(p, 'metadata.name', big(300)), true],
    ['name-1M', (p) => setPath(p, 'metadata.name', big(1 << 20)), true],
    ['namespace-100', (p) => setPath(p, 'metadata.namespace', big(100)), true],
    ['container-name-64', (p) => setPath(p, 'spec.containers.0.name', big(64)), true],
    ['image-1M', (p) => setPath(p, 'spec.containers.0.image', `busybox:${big(1 << 20)}`), false],
    ['label-value-64', (p) => setPath(p, 'metadata.labels', { app: big(64) }), true],
    ['label-key-300', (p) => setPath(p, 'metadata.labels', { [big(300)]: 'x' }), true],
    ['env-name-1M', (p) => setPath(p, 'spec.containers.0.env.0.name', big(1 << 20)), false],
    [
      '20k-env',
      (p) =>
        setPath(
          p,
          'spec.containers.0.env',
          Array.from({ length: 20_000 }, (_, i) => ({ name: `E${i}`, value: 'v' })),
        ),
      false,
    ],
    [
      '5k-containers',
      (p) =>
        setPath(
          p,
          'spec.containers',
          Array.from({ length: 5_000 }, (_, i) => ({ name: `c${i}`, image: 'busybox' })),
        ),
      false,
    ],
  ];
  const out = cases.map(([name, mutate, mustRefuse]) => {
    const pod = validPod('huge');
    mutate(pod);
    return { name: `huge-${name}`, category: 'huge', text: doc(pod), mustRefuse };
  });
  out.push({ name: 'huge-file-11M', category: 'huge', text: `${doc(validPod('bigfile'))}# ${big(11 << 20)}\n`, mustRefuse: true });
  return out;
}

function nestingCases(): HostileCase[] {
  const out: HostileCase[] = [];
  for (const depth of [100, 1_000, 10_000, 100_000]) {
    out.push({
      name: `nest-flow-array-${depth}`,
      category: 'deep nesting',
      text: `apiVersion: v1\nkind: Pod\nmetadata: {name: nest}\nspec: {containers: ${'['.repeat(depth)}${']'.repeat(depth)}}\n`,
      mustRefuse: true,
    });
    out.push({
      name: `nest-flow-map-${depth}`,
      category: 'deep nesting',
      text: `apiVersion: v1\nkind: Pod\nmetadata: {name: nest}\nspec: ${'{a: '.repeat(depth)}1${'}'.repeat(depth)}\n`,
      mustRefuse: true,
    });
    out.push({
      name: `nest-json-${depth}`,
      category: 'deep nesting',
      text: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"nest"},"spec":{"containers":[{"name":"c","image":"i","env":${'['.repeat(depth)}${']'.repeat(depth)}}]}}`,
      mustRefuse: true,
    });
  }
  const blockDepth = 2_000;
  out.push({
    name: 'nest-block-map-2000',
    category: 'deep nesting',
    text: `apiVersion: v1\nkind: Pod\nmetadata:\n  name: nest\nspec:\n${Array.from({ length: blockDepth }, (_, i) => `${'  '.repeat(i + 1)}k${i}:`).join('\n')} 1\n`,
    mustRefuse: true,
  });
  return out;
}

function bombCases(): HostileCase[] {
  const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 9; i++)
    laughs.push(
      `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
        .fill(`*${String.fromCharCode(96 + i)}`)
        .join(',')}]`,
    );
  return [
    {
      name: 'bomb-billion-laughs',
      category: 'yaml bomb',
      text: `apiVersion: v1\nkind: Pod\nmetadata:\n  name: bomb\n${laughs.map((l) => `  ${l}`).join('\n')}\nspec:\n  containers: [{name: c, image: i}]\n`,
      mustRefuse: true,
    },
    {
      name: 'bomb-in-args',
      category: 'yaml bomb',
      text: `x: &x [${Array(50).fill('"aaaaaaaaaa"').join(',')}]\ny: &y [${Array(50).fill('*x').join(',')}]\napiVersion: v1\nkind: Pod\nmetadata: {name: bomb}\nspec:\n  containers: [{name: c, image: i, args: [${Array(200).fill('*y').join(',')}]}]\n`,
      mustRefuse: true,
    },
    {
      name: 'bomb-merge-keys',
      category: 'yaml bomb',
      text: `base: &b {${Array.from({ length: 50 }, (_, i) => `k${i}: v`).join(', ')}}\nm1: &m1 {<<: [${Array(50).fill('*b').join(',')}]}\napiVersion: v1\nkind: Pod\nmetadata: {name: bomb, labels: {<<: [${Array(200).fill('*m1').join(',')}]}}\nspec: {containers: [{name: c, image: i}]}\n`,
      mustRefuse: true,
    },
    {
      name: 'bomb-self-reference',
      category: 'yaml bomb',
      text: 'a: &a [*a]\napiVersion: v1\nkind: Pod\nmetadata: {name: bomb}\nspec: {containers: [{name: c, image: i}]}\n',
      mustRefuse: true,
    },
  ];
}

const ODD_NAMES = [
  'pod\u202egnp',
  'p\u200bod',
  'ｐｏｄ',
  'pod😀',
  'POD',
  'pod_1',
  '-pod',
  'pod-',
  'pod.',
  'po d',
  'pod\u0000x',
  'pod\nname',
  'pod\ttab',
  'ро∂',
  'p\u0301od',
  '..',
  '.',
  '../pod',
  'pod/..',
  '/etc/passwd',
  'pod%2f..',
  'a'.repeat(254),
  '',
];

function unicodeCases(): HostileCase[] {
  const out: HostileCase[] = [];
  for (const [i, bad] of ODD_NAMES.entries()) {
    for (const path of ['metadata.name', 'metadata.namespace', 'spec.containers.0.name', 'spec.volumes.0.name']) {
      const pod = validPod('uni');
      setPath(pod, path, bad);
      if (path === 'spec.volumes.0.name') setPath(pod, 'spec.containers.0.volumeMounts.0.name', bad);
      out.push({
        name: `unicode-${i}-${path}`,
        category: 'unicode and control characters',
        text: doc(pod),
        mustRefuse: true,
        field: path.replace(/\.(\d+)\./g, '[$1].'),
      });
    }
  }
  // Any printable ASCII but '=' is a name since v1.34 (RelaxedEnvironmentVariableValidation): '1BAD' and 'a b' are fine.
  for (const [i, bad] of ['A\u0000', 'A=B', 'a\tb', 'ключ', ''].entries()) {
    const pod = validPod('envname');
    setPath(pod, 'spec.containers.0.env.0.name', bad);
    out.push({
      name: `unicode-env-${i}`,
      category: 'unicode and control characters',
      text: doc(pod),
      mustRefuse: true,
      field: 'spec.containers[0].env[0].name',
    });
  }
  return out;
}

function traversalCases(): HostileCase[] {
  const out: HostileCase[] = [];
  const subPaths = ['../escape', '../../etc', '/abs', 'a/../../b', '..', 'a/../..', '../'];
  for (const [i, sub] of subPaths.entries()) {
    const pod = validPod('trav');
    setPath(pod, 'spec.containers.0.volumeMounts.0.subPath', sub);
    out.push({
      name: `traversal-subpath-${i}`,
      category: 'path traversal',
      text: doc(pod),
      mustRefuse: true,
      // The apiserver names a bad subPath without the mount's index.
      field: 'spec.containers[0].volumeMounts.subPath',
    });
  }
  // The apiserver refuses `..` elements and an empty path (a relative path it lets through).
  const hostPaths = ['../../etc', '/etc/../..', '/var/../etc/shadow', '/a/b/..', ''];
  for (const [i, path] of hostPaths.entries()) {
    const pod = validPod('trav');
    setPath(pod, 'spec.volumes.0', { name: 'scratch', hostPath: { path } });
    out.push({
      name: `traversal-hostpath-${i}`,
      category: 'path traversal',
      text: doc(pod),
      mustRefuse: true,
      field: 'spec.volumes[0].hostPath.path',
    });
  }
  const itemPaths = ['../x', '../../etc/cron.d/evil', '/abs', 'a/../../x', '..'];
  for (const [i, path] of itemPaths.entries()) {
    const pod = validPod('trav');
    setPath(pod, 'spec.volumes.1.downwardAPI.items.0.path', path);
    out.push({
      name: `traversal-downward-${i}`,
      category: 'path traversal',
      text: doc(pod),
      mustRefuse: true,
      // The apiserver names a downwardAPI file's path by the volume's source, without the item.
      field: 'spec.volumes[1].downwardAPI.path',
    });
  }
  for (const [i, name] of ['../../../tmp/x', 'a/b', '..'].entries()) {
    const pod = validPod('trav');
    setPath(pod, 'spec.containers.0.name', name);
    out.push({
      name: `traversal-logpath-${i}`,
      category: 'path traversal',
      text: doc(pod),
      mustRefuse: true,
      field: 'spec.containers[0].name',
    });
  }
  return out;
}

function numberCases(): HostileCase[] {
  // Numbers past what a double holds exactly are the point: the decoder must refuse them.
  /* eslint-disable no-loss-of-precision */
  const fields: [string, unknown[]][] = [
    // A negative grace period is made 1 on create, not refused.
    ['spec.terminationGracePeriodSeconds', [-9007199254740992, 1e309, 1.5]],
    ['spec.activeDeadlineSeconds', [0, -5, 1.5, 1e400]],
    ['spec.containers.0.ports.0.containerPort', [0, -1, 65536, 1e10, 80.5]],
    // 0 means "the default" for probe fields (the kubelet's defaulting), so only negatives and fractions are wrong.
    ['spec.containers.0.readinessProbe.periodSeconds', [-10, 1.5]],
    ['spec.containers.0.readinessProbe.failureThreshold', [-1]],
    ['spec.containers.0.readinessProbe.timeoutSeconds', [-1]],
    ['spec.containers.0.readinessProbe.initialDelaySeconds', [-1]],
    ['spec.containers.0.resources.limits.memory', ['-1Gi', '1e1000', 'lots', '12XB', '']],
    ['spec.containers.0.resources.limits.cpu', ['-100m', 'NaN', '1.5.5', 'Infinity']],
  ];
  /* eslint-enable no-loss-of-precision */
  const out: HostileCase[] = [];
  for (const [path, values] of fields) {
    for (const [i, v] of values.entries()) {
      const pod = validPod('num');
      setPath(pod, path, v);
      // YAML writes 1e309 as .inf; write it by hand so the parser sees the number.
      const text = doc(pod).replace(/\.inf/g, '1e999');
      // kubectl names a map entry as `limits[memory]`.
      const field = path.replace(/\.(\d+)\./g, '[$1].').replace(/\.limits\.(\w+)$/, '.limits[$1]');
      out.push({ name: `number-${path}-${i}`, category: 'absurd numbers', text, mustRefuse: true, field });
    }
  }
  return out;
}

function syntaxCases(r: () => number): HostileCase[] {
  const valid = doc(validPod('syntax'));
  const texts: [string, string][] = [
    ['empty', ''],
    ['only-comment', '# nothing here\n'],
    ['tabs', valid.replace(/^ {2}/gm, '\t')],
    ['unclosed-quote', 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: "open\nspec: {}\n'],
    ['duplicate-keys', 'apiVersion: v1\nkind: Pod\nkind: Pod\nmetadata: {name: dup}\nspec: {containers: [{name: c, image: i}]}\n'],
    ['json-trailing-comma', '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"j",},"spec":{"containers":[]}}'],
    ['kind-missing', 'apiVersion: v1\nmetadata: {name: k}\nspec: {containers: [{name: c, image: i}]}\n'],
    ['kind-deployment', 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {}\n'],
    ['kind-number', 'apiVersion: v1\nkind: 7\nmetadata: {name: k}\n'],
    ['scalar', '42\n'],
    ['array', '- a\n- b\n'],
    ['list-items-not-array', 'apiVersion: v1\nkind: List\nitems: {a: 1}\n'],
    ['list-of-strings', 'apiVersion: v1\nkind: List\nitems: [a, b]\n'],
    ['podlist-bad-item', 'apiVersion: v1\nkind: PodList\nitems: [{metadata: {name: x}}]\n'],
    ['bom', `\ufeff${valid.replace('name: syntax', 'name: Bad_Name')}`],
    ['binary', Buffer.from(Array.from({ length: 4096 }, () => Math.floor(r() * 256))).toString('latin1')],
    ['nul-bytes', `apiVersion: v1\u0000\nkind: Pod\n`],
    ['directive-garbage', '%YAML 9.9\n---\nfoo: bar\n'],
    ['anchor-undefined', 'apiVersion: v1\nkind: Pod\nmetadata: {name: *nope}\n'],
    ['document-separator-storm', '---\n'.repeat(5_000)],
    ['deep-list-kind', `apiVersion: v1\nkind: List\nitems:\n${'  - {kind: List, items: [\n'.repeat(50)}`],
    ['metadata-string', 'apiVersion: v1\nkind: Pod\nmetadata: "name"\nspec: {containers: [{name: c, image: i}]}\n'],
    ['spec-missing', 'apiVersion: v1\nkind: Pod\nmetadata: {name: nospec}\n'],
    [
      'yaml-tags',
      'apiVersion: v1\nkind: Pod\nmetadata: {name: !!binary aGVsbG8=}\nspec: {containers: [{name: c, image: !!js/function "f(){}"}]}\n',
    ],
  ];
  return texts.map(([name, text]) => ({
    name: `syntax-${name}`,
    category: 'syntax',
    text,
    mustRefuse: !['empty', 'only-comment', 'document-separator-storm'].includes(name),
  }));
}

/** Seeded mutations of the valid manifest's text: flipped bytes, dropped and swapped lines, re-indented lines, truncation. */
function fuzzCases(r: () => number, count: number): HostileCase[] {
  const base = doc(validPod('fuzz'));
  const lines = base.split('\n');
  const out: HostileCase[] = [];
  for (let i = 0; i < count; i++) {
    let text: string;
    const op = Math.floor(r() * 5);
    if (op === 0) {
      const chars = [...base];
      for (let k = 0; k < 1 + Math.floor(r() * 8); k++) chars[Math.floor(r() * chars.length)] = String.fromCharCode(Math.floor(r() * 128));
      text = chars.join('');
    } else if (op === 1) {
      text = lines.filter(() => r() > 0.1).join('\n');
    } else if (op === 2) {
      const copy = [...lines];
      const a = Math.floor(r() * copy.length);
      const b = Math.floor(r() * copy.length);
      [copy[a], copy[b]] = [copy[b], copy[a]];
      text = copy.join('\n');
    } else if (op === 3) {
      text = lines.map((l) => (r() < 0.1 ? ` ${l}` : l)).join('\n');
    } else {
      text = base.slice(0, Math.floor(r() * base.length));
    }
    out.push({ name: `fuzz-${i}`, category: 'fuzz', text, mustRefuse: false });
  }
  return out;
}

/** The whole corpus: at least 1,000 cases, the same on every run. */
export function hostileCorpus(seed = 20261123): HostileCase[] {
  const r = prng(seed);
  const fixed = [
    ...typeCases(),
    ...hugeCases(),
    ...nestingCases(),
    ...bombCases(),
    ...unicodeCases(),
    ...traversalCases(),
    ...numberCases(),
    ...syntaxCases(r),
  ];
  return [...fixed, ...fuzzCases(r, Math.max(300, 1_000 - fixed.length))];
}
