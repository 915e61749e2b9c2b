// Volumes through the real path, on the embedded runtime (host processes find
// their mounts in KNODE_MOUNT_* variables) and on containerd (real mounts):
// the same pods, written to find their volume either way.
import { existsSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import { ensureImage } from '../helpers/cri.js';
import { containerOf, nodesOn, startNode, type TestNode } from '../helpers/node.js';
import { eventually, runtimesUnderTest } from '../helpers/runtimes.js';

const image = 'busybox:1.36';
/** The directory of a mount, whichever runtime runs the container. */
const at = (variable: string, path: string) => `\${${variable}:-${path}}`;

describe.each(runtimesUnderTest())('volumes on the $name runtime', (runtime) => {
  const nodes = nodesOn(runtime);

  async function logOf(n: TestNode, pod: string, container: string): Promise<string> {
    const p = n.pod(pod)!;
    const id = containerOf(p, container)!.containerID!.split('://')[1];
    return readFileSync((await n.client.containerStatus(id)).status!.logPath, 'utf8');
  }

  it('shares an emptyDir between containers, and fills a downwardAPI volume', async () => {
    const node = await nodes.start();
    const shared = at('KNODE_MOUNT_SHARED', '/shared');
    const info = at('KNODE_MOUNT_ETC_PODINFO', '/etc/podinfo');
    node.writePod(
      'vols',
      {
        volumes: [
          { name: 'shared', emptyDir: {} },
          {
            name: 'podinfo',
            downwardAPI: {
              items: [
                { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } },
                { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
              ],
            },
          },
        ],
        containers: [
          {
            name: 'writer',
            image,
            command: ['sh', '-c', `echo "hello from writer" > ${shared}/msg; sleep 300`],
            volumeMounts: [{ name: 'shared', mountPath: '/shared' }],
          },
          {
            name: 'reader',
            image,
            command: [
              'sh',
              '-c',
              `while [ ! -f ${shared}/msg ]; do sleep 0.1; done; cat ${shared}/msg; cat ${info}/labels; echo; cat ${info}/name; echo; sleep 300`,
            ],
            volumeMounts: [
              { name: 'shared', mountPath: '/shared' },
              { name: 'podinfo', mountPath: '/etc/podinfo', readOnly: true },
            ],
          },
        ],
      },
      { labels: { app: 'vols', tier: 'test' } },
    );
    const pod = await node.waitForPod('vols', 'Running', (p) => p.status?.phase === 'Running');
    const log = await eventually(async () => {
      const text = await logOf(node, 'vols', 'reader');
      return text.includes(pod.metadata.name!) ? text : undefined;
    }, 'the reader to print what it found');
    expect(log).toContain('stdout F hello from writer');
    expect(log).toContain('stdout F app="vols"');
    expect(log).toContain('stdout F tier="test"');
    expect(node.events.find((e) => e.type === 'VolumesReady')?.detail?.volumes).toBe(2);
  });

  it('gives the volumes of a pod with an fsGroup that group, with setgid, as the kubelet', async () => {
    const node = await nodes.start();
    const scratch = at('KNODE_MOUNT_SCRATCH', '/scratch');
    const info = at('KNODE_MOUNT_INFO', '/info');
    node.writePod('owned', {
      restartPolicy: 'Never',
      securityContext: { fsGroup: 2000 },
      volumes: [
        { name: 'scratch', emptyDir: {} },
        { name: 'info', downwardAPI: { items: [{ path: 'name', fieldRef: { fieldPath: 'metadata.name' } }] } },
      ],
      containers: [
        {
          name: 'main',
          image,
          command: ['sh', '-c', `stat -c 'scratch %g %a' ${scratch}; stat -L -c 'info %g %a' ${info}/name`],
          volumeMounts: [
            { name: 'scratch', mountPath: '/scratch' },
            { name: 'info', mountPath: '/info' },
          ],
        },
      ],
    });
    await node.waitForPod('owned', 'Succeeded', (p) => p.status?.phase === 'Succeeded');
    const log = await logOf(node, 'owned', 'main');
    expect(log).toContain('stdout F scratch 2000 2777');
    expect(log).toContain('stdout F info 2000 644');
  });

  it('gives a pod on the pod network the kubelet-managed /etc/hosts, with its IP, its hostname and the hostAliases', async () => {
    const node = await nodes.start();
    const hosts = at('KNODE_MOUNT_ETC_HOSTS', '/etc/hosts');
    node.writePod('named', {
      restartPolicy: 'Never',
      hostname: 'web-1',
      hostAliases: [{ ip: '10.1.2.3', hostnames: ['db.internal', 'db'] }],
      containers: [{ name: 'main', image, command: ['sh', '-c', `cat ${hosts}`] }],
    });
    const pod = await node.waitForPod('named', 'Succeeded', (p) => p.status?.phase === 'Succeeded');
    const ip = pod.status!.podIP!;
    expect(ip).toBeTruthy();
    const log = (await logOf(node, 'named', 'main')).split('\n').map((l) => l.replace(/^\S+ stdout F /, ''));
    expect(log).toEqual(
      expect.arrayContaining([
        '# Kubernetes-managed hosts file.',
        '127.0.0.1\tlocalhost',
        `${ip}\tweb-1`,
        '# Entries added by HostAliases.',
        '10.1.2.3\tdb.internal\tdb',
      ]),
    );
  });

  it('keeps a pod Pending with FailedMount for a volume it cannot fill, and refuses a subPath out of its volume', async () => {
    const node = await nodes.start();
    node.writePod('needs-cm', {
      volumes: [{ name: 'config', configMap: { name: 'app-config' } }],
      containers: [{ name: 'main', image, command: ['sleep', '300'], volumeMounts: [{ name: 'config', mountPath: '/config' }] }],
    });
    // A subPath with `..` never gets as far as a pod: the manifest is refused, naming the field.
    node.writePod('escape', {
      volumes: [{ name: 'data', emptyDir: {} }],
      containers: [
        { name: 'main', image, command: ['sleep', '300'], volumeMounts: [{ name: 'data', mountPath: '/data', subPath: '../../etc' }] },
      ],
    });
    // One that leads out through a symlink in the volume is found when the container is made.
    const host = mkdtempSync(join(tmpdir(), 'knode-subpath-'));
    symlinkSync('/etc', join(host, 'out'));
    node.writePod('symlinked', {
      volumes: [{ name: 'data', hostPath: { path: host } }],
      containers: [
        { name: 'main', image, command: ['sleep', '300'], volumeMounts: [{ name: 'data', mountPath: '/data', subPath: 'out' }] },
      ],
    });
    const failed = await eventually(() => node.events.find((e) => e.reason === 'FailedMount'), 'FailedMount');
    expect(failed.message).toMatch(
      /volume "config": configmap "app-config" not found: knode serves static pods without an apiserver \(give --kubeconfig\)/,
    );
    expect(node.pod('needs-cm')?.status?.phase).toBe('Pending');
    const invalid = await eventually(
      () => node.events.find((e) => e.type === 'ManifestError' && /escape\.yaml/.test(e.message ?? '')),
      'the escaping subPath to be refused',
    );
    // The apiserver's path, without the mount's index (ValidateVolumeMounts uses fldPath.Child("subPath")).
    expect(invalid.message).toMatch(
      /spec\.containers\[0\]\.volumeMounts\.subPath: Invalid value: "\.\.\/\.\.\/etc": must not contain '\.\.'/,
    );
    expect(node.pod('escape')).toBeUndefined();
    const refused = await eventually(
      () => node.events.find((e) => e.type === 'ContainerWaiting' && e.reason === 'CreateContainerConfigError'),
      'CreateContainerConfigError',
    );
    expect(refused.message).toMatch(/subPath "out" of volume "data" leads out of the volume \(through a symlink\)/);
  });
});

describe('hostPath volumes (embedded runtime)', () => {
  it('creates a DirectoryOrCreate path, and fails a Directory that is missing', async () => {
    const { endpoint, cleanup } = await runtimesUnderTest()[0].start();
    const client = new CriClient(endpoint);
    await ensureImage(client);
    client.close();
    const node = await startNode(endpoint);
    const base = mkdtempSync(join(tmpdir(), 'knode-hostpath-'));
    try {
      node.writePod('host', {
        volumes: [{ name: 'made', hostPath: { path: join(base, 'made/here'), type: 'DirectoryOrCreate' } }],
        containers: [
          {
            name: 'main',
            image,
            command: ['sh', '-c', 'echo written > $KNODE_MOUNT_DATA/file; sleep 300'],
            volumeMounts: [{ name: 'made', mountPath: '/data' }],
          },
        ],
      });
      // The shell creates the file, then writes the line: wait for the line, not the file.
      const written = await eventually(
        () => (existsSync(join(base, 'made/here/file')) ? readFileSync(join(base, 'made/here/file'), 'utf8') || undefined : undefined),
        'the container to write into the host path',
      );
      expect(written).toBe('written\n');
      node.writePod('missing', {
        volumes: [{ name: 'nope', hostPath: { path: join(base, 'absent'), type: 'Directory' } }],
        containers: [{ name: 'main', image, command: ['sleep', '300'], volumeMounts: [{ name: 'nope', mountPath: '/data' }] }],
      });
      const failed = await eventually(() => node.events.find((e) => e.reason === 'FailedMount'), 'FailedMount');
      expect(failed.message).toMatch(/hostPath type check failed: .*absent is not a Directory \(it does not exist\)/);
    } finally {
      await node.stop();
      await cleanup();
    }
  });
});

describe.each(runtimesUnderTest().filter((r) => r.kind === 'containerd'))('read-only mounts on $name', (runtime) => {
  it('refuses writes to a readOnly volumeMount', async () => {
    const { endpoint, cleanup } = await runtime.start();
    const node = await startNode(endpoint);
    try {
      node.writePod('ro', {
        restartPolicy: 'Never',
        volumes: [{ name: 'data', emptyDir: {} }],
        containers: [
          {
            name: 'main',
            image,
            command: ['sh', '-c', 'touch /data/x && echo wrote || echo refused'],
            volumeMounts: [{ name: 'data', mountPath: '/data', readOnly: true }],
          },
        ],
      });
      const pod = await node.waitForPod('ro', 'Succeeded', (p) => p.status?.phase === 'Succeeded');
      const id = containerOf(pod, 'main')!.containerID!.split('://')[1];
      expect(readFileSync((await node.client.containerStatus(id)).status!.logPath, 'utf8')).toContain('stdout F refused');
    } finally {
      await node.stop();
      await cleanup();
    }
  });
});
