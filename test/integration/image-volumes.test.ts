// Image volumes (a pod volume that is an OCI image's files, read-only),
// through the real CRI path with images pulled from the local registry: the
// embedded runtime's side (Mount.image and image_sub_path), and the node's
// (the sync pulls each volume's image by its pullPolicy and mounts it in the
// containers that name it; one that cannot be pulled fails only those).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CriClient } from '../../src/cri/client.js';
import type { CriError } from '../../src/cri/errors.js';
import type { ContainerConfig, Mount } from '../../src/cri/types.js';
import { ofType } from '../../src/engine/events.js';
import { containerConfig, ownSandboxConfig, runPodToEnd, waitExited } from '../helpers/cri.js';
import { containerOf, startNode, type TestNode } from '../helpers/node.js';
import { eventually } from '../helpers/runtimes.js';
import { startImageRuntime, type ImageRuntime } from '../helpers/registry.js';

let env: ImageRuntime;
let client: CriClient;
/** busybox-layers:1.0's id, what PullImage answered for it. */
let layersRef: string;

beforeAll(async () => {
  env = await startImageRuntime('knode-image-volume-', ['busybox:1.36']);
  client = env.client;
  layersRef = await client.pullImage({ image: 'busybox-layers:1.0' });
}, 180_000);

afterAll(() => env?.stop());

/** A mount of busybox-layers:1.0 at /vol, as the kubelet asks for one. */
const volume = (extra: Partial<Mount> = {}): Mount => ({
  containerPath: '/vol',
  image: { image: layersRef, userSpecifiedImage: 'busybox-layers:1.0' },
  readonly: true,
  ...extra,
});

/** A sandboxed busybox container (a PID namespace of its own) running `script`. */
const shell = (name: string, script: string, mounts: Mount[]): ContainerConfig =>
  containerConfig(name, ['sh', '-c', script], { mounts, linux: { securityContext: { namespaceOptions: { pid: 'CONTAINER' } } } });

describe('image volumes on the embedded runtime (CRI)', () => {
  it("mounts the image's stacked layers read-only at the container path, its programs runnable; its status names the image and its id", async () => {
    const config = shell('reads', 'ls /vol/data | sort; /vol/bin/busybox echo ran-from-volume; touch /vol/new 2>&1 || echo refused', [
      volume(),
    ]);
    const sandbox = ownSandboxConfig('image-volume');
    const sandboxId = await client.runPodSandbox(sandbox);
    const id = await client.createContainer(sandboxId, config, sandbox);
    const mount = (await client.containerStatus(id)).status!.mounts.find((m) => m.containerPath === '/vol');
    expect(mount).toMatchObject({
      hostPath: '',
      readonly: true,
      imageSubPath: '',
      image: { image: layersRef, imageRef: layersRef, userSpecifiedImage: 'busybox-layers:1.0' },
    });
    await client.startContainer(id);
    expect((await waitExited(client, id)).exitCode).toBe(0);
    const lines = readFileSync(join(sandbox.logDirectory!, config.logPath!), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ').slice(3).join(' '));
    // The whiteout and the opaque directory of the image's upper layer applied, as in its containers' roots.
    expect(lines).toEqual(['added', 'kept', 'opaque', 'ran-from-volume', expect.stringMatching(/Read-only file system/), 'refused']);
    await client.removePodSandbox(sandboxId);
  });

  it('mounts a sub path of the image, and refuses one the image does not have, one leading out of it, a writable mount and an image not pulled', async () => {
    const sub = await runPodToEnd(client, 'image-subpath', shell('sub', 'ls /vol | sort', [volume({ imageSubPath: 'data' })]));
    expect(sub).toEqual({ lines: ['added', 'kept', 'opaque'], exitCode: 0 });

    const sandbox = ownSandboxConfig('image-volume-refused');
    const sandboxId = await client.runPodSandbox(sandbox);
    const refused = async (mount: Mount) =>
      (await client.createContainer(sandboxId, shell('bad', 'true', [mount]), sandbox).catch((e: CriError) => e)) as CriError;
    expect(await refused(volume({ imageSubPath: 'not-there' }))).toMatchObject({
      code: 5,
      details: `container "bad": mount /vol: image sub path "not-there" does not exist in image ${layersRef}`,
    });
    expect(await refused(volume({ imageSubPath: '../etc' }))).toMatchObject({
      code: 3,
      details: 'container "bad": mount /vol: image sub path "../etc" must be a relative path inside the image',
    });
    expect(await refused(volume({ readonly: false }))).toMatchObject({
      code: 3,
      details: 'container "bad": mount /vol: an image volume is read-only, and the mount is not',
    });
    expect(await refused(volume({ image: { image: 'busybox-user:1.0' } }))).toMatchObject({
      code: 5,
      details: 'container "bad": mount /vol: image volume "busybox-user:1.0" not found; pull it first',
    });
    expect(await refused(volume({ hostPath: '/tmp' }))).toMatchObject({
      code: 3,
      details: 'container "bad": mount /vol: a mount has a host path or an image, not both',
    });
    expect(await client.listContainers({ podSandboxId: sandboxId })).toEqual([]);
    await client.removePodSandbox(sandboxId);
  });

  it('refuses a name already taken before it stacks an image for volumes: nothing is made for the refused create', async () => {
    const busybox = (await client.imageStatus({ image: 'busybox:1.36' }))!.id;
    const files = join(env.root, 'runtime', 'rootfs', 'volumes', busybox.replace(/^sha256:/, ''));
    const sandbox = ownSandboxConfig('image-volume-taken');
    const sandboxId = await client.runPodSandbox(sandbox);
    const first = await client.createContainer(sandboxId, shell('taken', 'true', []), sandbox);
    const again = shell('taken', 'true', [volume({ image: { image: busybox, userSpecifiedImage: 'busybox:1.36' } })]);
    expect(await client.createContainer(sandboxId, again, sandbox).catch((e: CriError) => e)).toMatchObject({
      code: 6,
      details: `container name "taken" attempt 0 is reserved for ${first} in sandbox ${sandboxId}`,
    });
    expect(existsSync(files)).toBe(false);
    await client.removePodSandbox(sandboxId);
  });

  it("keeps the image's files for volumes while a container mounts them after the image is removed, and deletes them with it (last: it removes the image)", async () => {
    const files = join(env.root, 'runtime', 'rootfs', 'volumes', layersRef.replace(/^sha256:/, ''));
    // The earlier tests' containers mounted it; they go with their pods.
    for (const pod of await client.listPodSandbox()) await client.removePodSandbox(pod.id);
    expect(existsSync(files)).toBe(true);
    const sandbox = ownSandboxConfig('image-volume-prune');
    const sandboxId = await client.runPodSandbox(sandbox);
    const id = await client.createContainer(sandboxId, shell('late', 'test -e /vol/data/kept', [volume()]), sandbox);
    await client.removeImage({ image: 'busybox-layers:1.0' });
    expect(existsSync(files)).toBe(true);
    await client.startContainer(id);
    expect((await waitExited(client, id)).exitCode).toBe(0);
    await client.removePodSandbox(sandboxId);
    expect(existsSync(files)).toBe(false);
    layersRef = await client.pullImage({ image: 'busybox-layers:1.0' });
  });
});

describe('image volumes in pods (knode on the embedded runtime)', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startNode(env.runtime.endpoint);
  });
  afterAll(() => node?.stop());

  /** What a container of a pod wrote, from its CRI log. */
  const written = async (pod: string, container: string) => {
    const id = containerOf(node.pod(pod)!, container)!.containerID!.replace(/^[a-z]+:\/\//, '');
    const logPath = (await client.containerStatus(id)).status!.logPath;
    return readFileSync(logPath, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ').slice(3).join(' '));
  };

  it('pulls the volume image and mounts it, whole and by subPath, in the container that names it', async () => {
    node.writePod('tools', {
      volumes: [{ name: 'tools', image: { reference: 'busybox-layers:1.0', pullPolicy: 'Always' } }],
      containers: [
        {
          name: 'uses',
          image: 'busybox:1.36',
          command: ['sh', '-c', 'ls /tools/data | sort; ls /kept; echo done; sleep 3600'],
          volumeMounts: [
            { name: 'tools', mountPath: '/tools' },
            { name: 'tools', mountPath: '/kept', subPath: 'data/kept' },
          ],
        },
      ],
    });
    await node.waitForPod('tools', 'Running', (p) => p.status?.phase === 'Running', 60_000);
    // Running is reported once the container started: what it writes may come a little later.
    const lines = await eventually(async () => {
      const now = await written('tools', 'uses');
      return now.at(-1) === 'done' ? now : undefined;
    }, "the container's listing");
    expect(lines.slice(0, 3)).toEqual(['added', 'kept', 'opaque']);
    expect(lines.at(-1)).toBe('done');
    // The volume's pull is the pod's (Always: pulled although present), naming no container; its detail names the volume.
    const pulls = node.events.filter(ofType('ImagePulled')).filter((e) => e.pod.endsWith(`/tools-${node.nodeName}`));
    expect(pulls.map((e) => [e.container, e.detail?.volume, e.message?.replace(/ in \d+ms$/, '')])).toEqual([
      [undefined, 'tools', 'Successfully pulled image "busybox-layers:1.0"'],
    ]);
    // knode trace shows it as a stage of the pod's start-up.
    expect(
      node.kubelet.traces.forPod(`default/tools-${node.nodeName}`)[0]?.stages.map((st) => `${st.name} ${st.container ?? ''}`.trim()),
    ).toContain('image pulled volume tools');
    node.removePod('tools');
  });

  it('fails the containers that mount an image volume the registry does not have (ErrImagePull, then ImagePullBackOff); the others run', async () => {
    node.writePod('missing', {
      volumes: [{ name: 'gone', image: { reference: 'busybox:no-such-tag' } }],
      containers: [
        { name: 'mounts', image: 'busybox:1.36', command: ['sleep', '3600'], volumeMounts: [{ name: 'gone', mountPath: '/gone' }] },
        { name: 'other', image: 'busybox:1.36', command: ['sleep', '3600'] },
      ],
    });
    const pod = await node.waitForPod(
      'missing',
      'running one container and failing the other',
      (p) =>
        containerOf(p, 'other')?.state?.running !== undefined &&
        /^(ErrImagePull|ImagePullBackOff)$/.test(containerOf(p, 'mounts')?.state?.waiting?.reason ?? ''),
      60_000,
    );
    expect(containerOf(pod, 'mounts')!.state!.waiting!.message).toMatch(/busybox:no-such-tag/);
    const failed = node.events.find((e) => e.pod.endsWith(`/missing-${node.nodeName}`) && e.type === 'ImagePullFailed');
    expect(failed?.message).toMatch(/^Failed to pull image "busybox:no-such-tag": /);
    expect(failed?.container).toBeUndefined();
    node.removePod('missing');
  });
});
