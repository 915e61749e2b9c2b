// `npm run bench -- coders`: what one pod's CRI messages cost to encode and
// decode, protobufjs's coders (fromObject then encode; decode then toObject)
// against the one-pass coders of src/cri/gen/plain.ts, in a node as `knode
// run` runs it (without TurboFan, src/cli/boot.ts) and with TurboFan. The
// requests are knode's own (generatePodSandboxConfig, generateContainerConfig)
// for a one-container pod; the answers are shaped as the embedded runtime
// gives them, with the requests' labels and annotations. Last, a static pod's
// manifest read by the yaml library and by parseSimpleYaml.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { conversionOptions, messageCoder } from '../src/cri/proto.js';
import { libraryDocuments, type DecodedManifest } from '../src/engine/config/manifest.js';
import { parseSimpleYaml } from '../src/engine/config/simple-yaml.js';
import { plain } from '../src/cri/gen/plain.js';
import { generateContainerConfig } from '../src/engine/kuberuntime/container-config.js';
import { generatePodSandboxConfig } from '../src/engine/kuberuntime/sandbox.js';
import type { Pod } from '../src/engine/api/v1.js';
import { table } from './stats.js';

const ROUNDS = 2000;

function messages(): [string, 'encode' | 'decode', object][] {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web-0',
      namespace: 'default',
      uid: '6f1d2c8e-4b7a-4e59-9a3c-2d1f0b7e8a91',
      annotations: { 'kubernetes.io/config.source': 'file' },
    },
    spec: {
      hostNetwork: true,
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      containers: [{ name: 'main', image: 'docker.io/library/busybox:1.36', command: ['sleep', '3600'], imagePullPolicy: 'IfNotPresent' }],
    },
  } as unknown as Pod;
  const sandbox = generatePodSandboxConfig(pod, 0, 'node-a', '/var/log/pods');
  const addresses = { podIP: '10.0.0.5', podIPs: ['10.0.0.5'], hostIP: '10.0.0.5', nodeName: 'node-a' };
  const container = generateContainerConfig(pod, pod.spec.containers[0], 0, 'sha256:' + 'a'.repeat(64), 'node-a', addresses);
  const id = (c: string) => c.repeat(64);
  const sandboxStatus = {
    id: id('b'),
    metadata: sandbox.metadata,
    state: 'SANDBOX_READY',
    createdAt: 1_795_000_000_123_456_000,
    network: { ip: '10.0.0.5', additionalIps: [] },
    linux: { namespaces: { options: { network: 'NODE', pid: 'CONTAINER', ipc: 'POD', targetId: '' } } },
    labels: sandbox.labels,
    annotations: sandbox.annotations,
    runtimeHandler: '',
  };
  const containerStatus = {
    id: id('c'),
    metadata: container.metadata,
    state: 'CONTAINER_RUNNING',
    createdAt: 1_795_000_000_223_456_000,
    startedAt: 1_795_000_000_323_456_000,
    image: container.image,
    imageRef: 'sha256:' + 'a'.repeat(64),
    labels: container.labels,
    annotations: container.annotations,
    mounts: container.mounts,
    logPath: `/var/log/pods/default_web-0_${pod.metadata.uid}/main/0.log`,
    imageId: 'sha256:' + 'a'.repeat(64),
  };
  const listed = {
    id: id('c'),
    podSandboxId: id('b'),
    metadata: container.metadata,
    image: container.image,
    imageRef: containerStatus.imageRef,
    state: 'CONTAINER_RUNNING',
    createdAt: containerStatus.createdAt,
    labels: container.labels,
    annotations: container.annotations,
  };
  return [
    ['runtime.v1.RunPodSandboxRequest', 'encode', { config: sandbox, runtimeHandler: '' }],
    ['runtime.v1.CreateContainerRequest', 'encode', { podSandboxId: id('b'), config: container, sandboxConfig: sandbox }],
    ['runtime.v1.PodSandboxStatusResponse', 'decode', { status: sandboxStatus, info: {}, containersStatuses: [], timestamp: 0 }],
    ['runtime.v1.ContainerStatusResponse', 'decode', { status: containerStatus, info: {} }],
    [
      'runtime.v1.ContainerEventResponse',
      'decode',
      {
        containerId: id('c'),
        containerEventType: 'CONTAINER_STARTED_EVENT',
        createdAt: 1,
        podSandboxStatus: sandboxStatus,
        containersStatuses: [containerStatus],
      },
    ],
    ['runtime.v1.ListContainersResponse', 'decode', { containers: Array.from({ length: 100 }, () => listed) }],
  ];
}

/** µs per call of each message's coding, both ways of coding, in this process. */
function measure(): string[][] {
  const rows: string[][] = [];
  const time = (fn: () => unknown) => {
    for (let i = 0; i < ROUNDS / 10; i++) fn();
    const start = process.hrtime.bigint();
    for (let i = 0; i < ROUNDS; i++) fn();
    return Number(process.hrtime.bigint() - start) / 1000 / ROUNDS;
  };
  for (const [name, way, object] of messages()) {
    const coder = messageCoder(name);
    const onePass = (plain as Record<string, { encode(o: object): Buffer; decode(b: Uint8Array): object }>)[name];
    const bytes = onePass.encode(object);
    const [before, after] =
      way === 'encode'
        ? [time(() => coder.encode(coder.fromObject(object)).finish()), time(() => onePass.encode(object))]
        : [time(() => coder.toObject(coder.decode(bytes), conversionOptions)), time(() => onePass.decode(bytes))];
    rows.push([
      name.slice('runtime.v1.'.length),
      way,
      String(bytes.length),
      before.toFixed(1),
      after.toFixed(1),
      (after / before).toFixed(2) + '×',
    ]);
  }
  // A static pod's manifest as the density benchmark writes it, read by the yaml library and by the plain-block reader.
  const manifest = `apiVersion: v1\nkind: Pod\nmetadata:\n  name: density-1\nspec:\n  hostNetwork: true\n  terminationGracePeriodSeconds: 1\n  containers:\n    - name: main\n      image: docker.io/library/busybox:1.36\n      imagePullPolicy: IfNotPresent\n      command: ["sleep", "3600"]\n`;
  const out: DecodedManifest = { pods: [], objects: [], errors: [], skipped: [], unreadable: false };
  const [before, after] = [time(() => libraryDocuments('bench', manifest, out)), time(() => parseSimpleYaml(manifest))];
  rows.push([
    'a pod manifest (YAML)',
    'read',
    String(manifest.length),
    before.toFixed(1),
    after.toFixed(1),
    (after / before).toFixed(2) + '×',
  ]);
  return rows;
}

if (process.argv[2] === 'child') {
  console.log(JSON.stringify(measure()));
  process.exit(0);
}

/** Both ways of coding, in a child without TurboFan (as `knode run`) and one with it. */
export function benchCoders(): string {
  const self = fileURLToPath(import.meta.url);
  const out: string[] = [
    "One pod's CRI messages, µs a call: before, protobufjs (fromObject+encode, decode+toObject); after, the one-pass coders (src/cri/gen/plain.ts)",
    'and its manifest: before, the yaml library; after, parseSimpleYaml (src/engine/config/simple-yaml.ts)',
  ];
  out.push('command: npm run bench -- coders');
  for (const [label, flags] of [
    ['without TurboFan (--no-opt, as knode run)', ['--no-opt']],
    ['with TurboFan', []],
  ] as const) {
    const rows = JSON.parse(
      execFileSync(process.execPath, [...flags, '--import', 'tsx', self, 'child'], { encoding: 'utf8' }),
    ) as string[][];
    out.push('', label, table(['message', 'way', 'bytes', 'before µs', 'after µs', 'ratio'], rows));
  }
  return out.join('\n');
}
