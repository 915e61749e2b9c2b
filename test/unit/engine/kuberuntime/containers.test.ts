import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CriError, GrpcCode } from '../../../../src/cri/errors.js';
import type { Container, Pod } from '../../../../src/engine/api/v1.js';
import { emptyPodStatus } from '../../../../src/engine/container/types.js';
import { EventStream, type LifecycleEvent } from '../../../../src/engine/events.js';
import { restartCountFromLogDir } from '../../../../src/engine/kuberuntime/container-config.js';
import { SyncError, SyncErrors } from '../../../../src/engine/kuberuntime/sync-result.js';
import { FakeClock } from '../../../../src/util/clock.js';
import { fakeContainerManager, FakeRuntimeService } from '../../../helpers/fake-runtime-service.js';

const RUNC_MESSAGE =
  'failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "no-such-command": executable file not found in $PATH';

const pod: Pod = {
  metadata: { name: 'web', namespace: 'default', uid: 'uid-1' },
  spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] },
};
const main: Container = pod.spec.containers[0];

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A container manager over a runtime whose create or start call fails as `failing` says. */
function setup(failing: { createContainer?: Error; startContainer?: Error; pullImage?: Error; stopContainer?: Error }) {
  root = mkdtempSync(join(tmpdir(), 'knode-containers-'));
  const clock = new FakeClock();
  const events = new EventStream(() => clock.now());
  const seen: LifecycleEvent[] = [];
  events.subscribe((e) => seen.push(e));
  const runtime = new FakeRuntimeService();
  for (const call of ['createContainer', 'startContainer', 'pullImage', 'stopContainer'] as const) {
    const err = failing[call];
    if (err) runtime.injectError(call, err);
  }
  if (!failing.pullImage) runtime.addImage(main.image!);
  const manager = fakeContainerManager(runtime, clock, events, root);
  const sandboxConfig = { metadata: { name: 'web', namespace: 'default', uid: 'uid-1', attempt: 0 } } as never;
  const addresses = { podIP: '', podIPs: [], hostIP: '10.0.0.1', nodeName: 'node-1' };
  const start = () => manager.startContainer('sb-1', sandboxConfig, main, pod, emptyPodStatus('uid-1'), addresses, new Map());
  const kill = () => manager.killContainer(pod, 'c-1', 'main', main, 'Killing', '');
  return { start, kill, seen, manager, sandboxConfig, addresses, runtime };
}

async function failure(start: () => Promise<unknown>): Promise<SyncError> {
  const err = await start().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SyncError);
  return err as SyncError;
}

describe('ContainerManager.startContainer: what a failed runtime call leaves in the status and the events', () => {
  it.each([
    { call: 'startContainer' as const, reason: SyncErrors.runContainer, method: 'StartContainer' },
    { call: 'createContainer' as const, reason: SyncErrors.createContainer, method: 'CreateContainer' },
  ])('$reason: the runtime message alone, as the kubelet reports it (gRPC status Message())', async ({ call, reason, method }) => {
    const { start, seen } = setup({ [call]: new CriError(method, GrpcCode.UNKNOWN, RUNC_MESSAGE) });
    const err = await failure(start);
    expect(err.reason).toBe(reason);
    expect(err.message).toBe(RUNC_MESSAGE);
    const failed = seen.find((e) => e.type === 'ContainerFailed');
    // The kubelet's event: "Error: " and the same message; knode keeps the call and code in the detail.
    expect(failed).toMatchObject({ reason: 'Failed', message: `Error: ${RUNC_MESSAGE}`, detail: { call: method, code: 'UNKNOWN' } });
  });

  it('an image that cannot be pulled: a Failed event that names the reason alone ("Error: ErrImagePull"), as the kubelet records it', async () => {
    const { start, seen } = setup({ pullImage: new CriError('PullImage', GrpcCode.UNKNOWN, 'failed to pull and unpack image') });
    expect((await failure(start)).reason).toBe(SyncErrors.imagePull);
    expect(seen.filter((e) => e.type === 'ContainerFailed').map((e) => e.message)).toEqual(['Error: ErrImagePull']);
    expect((await failure(start)).reason).toBe(SyncErrors.imagePullBackOff);
    expect(seen.filter((e) => e.type === 'ContainerFailed').map((e) => e.message)).toEqual([
      'Error: ErrImagePull',
      'Error: ImagePullBackOff',
    ]);
  });

  it('an image volume that could not be pulled fails the container that mounts it before its own image is pulled (toKubeContainerImageVolumes)', async () => {
    const { manager, seen, sandboxConfig, addresses } = setup({});
    const mounting: Container = { ...main, volumeMounts: [{ name: 'tools', mountPath: '/tools' }] };
    const pulls = new Map([
      ['tools', new SyncError(SyncErrors.imagePullBackOff, 'Back-off pulling image "tools:1.0": ErrImagePull: not found')],
    ]);
    const err = await failure(() =>
      manager.startContainer('sb-1', sandboxConfig, mounting, pod, emptyPodStatus('uid-1'), addresses, new Map([['tools', '']]), pulls),
    );
    expect([err.reason, err.message]).toEqual([SyncErrors.imagePullBackOff, 'Back-off pulling image "tools:1.0": ErrImagePull: not found']);
    expect(seen.map((e) => [e.type, e.message])).toEqual([['ContainerFailed', 'Error: ImagePullBackOff']]);
    // A container that does not mount it starts.
    await expect(
      manager.startContainer('sb-1', sandboxConfig, main, pod, emptyPodStatus('uid-1'), addresses, new Map([['tools', '']]), pulls),
    ).resolves.toBe('c-1');
  });

  it('a failure that is not a CRI error keeps its message', async () => {
    const { start } = setup({ startContainer: new Error('socket closed') });
    expect((await failure(start)).message).toBe('socket closed');
  });
});

describe('ContainerManager.killContainer: what StopContainer answers', () => {
  it('a container the runtime no longer has (NOT_FOUND) is stopped, as the kubelet takes it', async () => {
    const { kill } = setup({ stopContainer: new CriError('StopContainer', GrpcCode.NOT_FOUND, 'container "c-1" not found') });
    await expect(kill()).resolves.toBeUndefined();
  });

  it('any other failure fails the kill, naming the container', async () => {
    const { kill } = setup({ stopContainer: new CriError('StopContainer', GrpcCode.DEADLINE_EXCEEDED, 'deadline exceeded') });
    const err = await failure(kill);
    expect(err.message).toMatch(/^failed to stop container main: .*deadline exceeded/);
  });
});

describe('the restart count of a container the runtime has no instance of: from its logs (calcRestartCountByLogDir)', () => {
  it('one past the highest <n>.log, rotated ones too; other names and directories ignored; 0 without any', () => {
    const dir = mkdtempSync(join(tmpdir(), 'knode-logcount-'));
    try {
      expect(restartCountFromLogDir(join(dir, 'none'))).toBe(0);
      expect(restartCountFromLogDir(dir)).toBe(0);
      for (const name of ['0.log', '1.log', '3.log.20240102-030405', 'x.log', 'app.log']) writeFileSync(join(dir, name), '');
      mkdirSync(join(dir, '9.log'));
      expect(restartCountFromLogDir(dir)).toBe(4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a container removed with its logs kept (a restart in place) starts at the next attempt and log file', async () => {
    const { manager, sandboxConfig, addresses, runtime } = setup({});
    const logDirectory = join(root!, 'logs');
    mkdirSync(join(logDirectory, 'main'), { recursive: true });
    writeFileSync(join(logDirectory, 'main', '0.log'), 'first run\n');
    writeFileSync(join(logDirectory, 'main', '1.log'), 'second run\n');
    await manager.startContainer(
      'sb-1',
      { ...(sandboxConfig as object), logDirectory } as never,
      main,
      pod,
      emptyPodStatus('uid-1'),
      addresses,
      new Map(),
    );
    const [created] = [...runtime.containers.values()].map((c) => c.status);
    expect(created.metadata?.attempt).toBe(2);
    expect(created.logPath).toBe('main/2.log');
  });
});
