import { describe, expect, it } from 'vitest';
import { CriError, GrpcCode } from '../../../../src/cri/errors.js';
import type { Container, Pod } from '../../../../src/engine/api/v1.js';
import { EventStream, type LifecycleEvent } from '../../../../src/engine/events.js';
import { ImagePuller } from '../../../../src/engine/kuberuntime/image-puller.js';
import { SyncError, SyncErrors } from '../../../../src/engine/kuberuntime/sync-result.js';
import { Backoff } from '../../../../src/util/backoff.js';
import { FakeClock } from '../../../../src/util/clock.js';
import { FakeRuntimeService } from '../../../helpers/fake-runtime-service.js';

const IMAGE = 'registry.example/team/app:1';
const CONTAINERD = `failed to pull and unpack image "${IMAGE}": failed to resolve reference "${IMAGE}": ${IMAGE}: not found`;
const pod: Pod = { metadata: { name: 'web', namespace: 'default', uid: 'uid-1' }, spec: { containers: [{ name: 'main', image: IMAGE }] } };
const main: Container = pod.spec.containers[0];

/** A puller over an image service whose pulls fail with the queued errors (and succeed when none is left). */
function setup(...pullErrors: Error[]) {
  const clock = new FakeClock();
  const events = new EventStream(() => clock.now());
  const seen: LifecycleEvent[] = [];
  events.subscribe((e) => seen.push(e));
  const images = new FakeRuntimeService();
  images.injectError('pullImage', ...pullErrors);
  const puller = new ImagePuller(images, new Backoff(clock, 10_000, 300_000), clock, events);
  const ensure = () =>
    puller.ensureImageExists(pod, main, {} as never).then(
      () => undefined,
      (err: unknown) => err as SyncError,
    );
  return { ensure, seen, clock };
}

describe('ImagePuller: the status messages and events of a failed pull, as image_manager.go words them', () => {
  it("ErrImagePull: the runtime's message alone; the Failed event prefixes the image", async () => {
    const { ensure, seen } = setup(new CriError('PullImage', GrpcCode.UNKNOWN, CONTAINERD));
    const err = await ensure();
    expect(err).toMatchObject({ reason: SyncErrors.imagePull, message: CONTAINERD });
    expect(seen.find((e) => e.type === 'ImagePullFailed')).toMatchObject({
      reason: 'Failed',
      message: `Failed to pull image "${IMAGE}": ${CONTAINERD}`,
    });
  });

  it('ErrImagePull with a code other than UNKNOWN: the Go client keeps the code (rpc error: code = ... desc = ...)', async () => {
    const { ensure } = setup(new CriError('PullImage', GrpcCode.UNAVAILABLE, 'connection refused'));
    expect((await ensure())!.message).toBe('rpc error: code = Unavailable desc = connection refused');
  });

  it('ImagePullBackOff: the status names the last pull error, the BackOff event does not; a new attempt brings the new error', async () => {
    const { ensure, seen, clock } = setup(
      new CriError('PullImage', GrpcCode.UNKNOWN, CONTAINERD),
      new CriError('PullImage', GrpcCode.UNKNOWN, 'second failure'),
    );
    await ensure();
    const backOff = await ensure();
    expect(backOff).toMatchObject({
      reason: SyncErrors.imagePullBackOff,
      message: `Back-off pulling image "${IMAGE}": ErrImagePull: ${CONTAINERD}`,
    });
    expect(seen.filter((e) => e.type === 'ImagePullBackOff').map((e) => [e.reason, e.message])).toEqual([
      ['BackOff', `Back-off pulling image "${IMAGE}"`],
    ]);

    await clock.advance(10_000);
    expect((await ensure())!.message).toBe('second failure');
    expect((await ensure())!.message).toBe(`Back-off pulling image "${IMAGE}": ErrImagePull: second failure`);
  });

  it('a pull that then succeeds leaves no error behind', async () => {
    const { ensure, clock } = setup(new CriError('PullImage', GrpcCode.UNKNOWN, CONTAINERD));
    await ensure();
    await clock.advance(10_000);
    expect(await ensure()).toBeUndefined();
  });

  it('an image already there under IfNotPresent: no pull, and the Pulled event saying so', async () => {
    const { ensure, seen } = setup();
    expect(await ensure()).toBeUndefined();
    seen.length = 0;
    expect(await ensure()).toBeUndefined();
    expect(seen.map((e) => [e.type, e.reason, e.message])).toEqual([
      ['ImagePresent', 'Pulled', `Container image "${IMAGE}" already present on machine`],
    ]);
  });
});
