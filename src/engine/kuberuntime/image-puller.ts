import { CriError, criCallDetail, goErrorString, GrpcCode } from '../../cri/errors.js';
import type { ImageService } from '../../cri/runtime-service.js';
import type { PodSandboxConfig } from '../../cri/types.js';
import type { Backoff } from '../../util/backoff.js';
import type { Clock } from '../../util/clock.js';
import { podRef } from '../api/pod-util.js';
import type { Container, Pod, Volume } from '../api/v1.js';
import type { EventStream } from '../events.js';
import { SyncError, SyncErrors } from './sync-result.js';

/**
 * The kubelet's image manager: honours the pull policy, pulls when needed,
 * and after a failed pull backs off (ErrImagePull, then ImagePullBackOff)
 * before trying again. Returns the image reference to create the container
 * (or mount the image volume) with.
 */
export class ImagePuller {
  /** The last failed pull of each back-off key, for the ImagePullBackOff message (image_manager.go's prevPullErrMsg). */
  private readonly lastPullError = new Map<string, string>();

  constructor(
    private readonly images: ImageService,
    private readonly backoff: Backoff,
    private readonly clock: Clock,
    private readonly events: EventStream,
  ) {}

  /** The image of `container`, by its imagePullPolicy. */
  ensureImageExists(pod: Pod, container: Container, sandboxConfig: PodSandboxConfig): Promise<string> {
    return this.ensure(pod, container.image ?? '', container.imagePullPolicy ?? 'IfNotPresent', sandboxConfig, {
      container: container.name,
    });
  }

  /** The image of image volume `volume`, by its pullPolicy: its events are the pod's, naming no container (their detail names the volume). */
  ensureVolumeImage(pod: Pod, volume: Volume, sandboxConfig: PodSandboxConfig): Promise<string> {
    return this.ensure(pod, volume.image?.reference ?? '', volume.image?.pullPolicy ?? 'IfNotPresent', sandboxConfig, {
      volume: volume.name,
    });
  }

  private async ensure(
    pod: Pod,
    image: string,
    policy: string,
    sandboxConfig: PodSandboxConfig,
    forWhat: { container: string } | { volume: string },
  ): Promise<string> {
    const volume: { volume?: string } = 'volume' in forWhat ? { volume: forWhat.volume } : {};
    const base = {
      pod: podRef(pod),
      uid: pod.metadata.uid ?? '',
      ...('container' in forWhat ? { container: forWhat.container } : { detail: volume }),
    };
    if (image === '' || /\s/.test(image))
      throw new SyncError(SyncErrors.invalidImageName, `Failed to apply default image tag "${image}": invalid reference format`);
    const spec = { image };
    let present: string | undefined;
    try {
      present = (await this.images.imageStatus(spec))?.id;
    } catch (err) {
      throw new SyncError(SyncErrors.imageInspect, `Failed to inspect image "${image}": ${(err as Error).message}`);
    }
    const shouldPull = policy === 'Always' || (policy === 'IfNotPresent' && !present);
    if (!shouldPull) {
      if (present) {
        const message = `Container image "${image}" already present on machine`;
        this.events.emit({ ...base, type: 'ImagePresent', reason: 'Pulled', message });
        return present;
      }
      const message = `Container image "${image}" is not present with pull policy of Never`;
      this.events.emit({ ...base, type: 'ImagePullFailed', reason: SyncErrors.imageNeverPull, message });
      throw new SyncError(SyncErrors.imageNeverPull, message);
    }
    const key = `${pod.metadata.uid}_${image}`;
    if (this.backoff.isInBackOffSinceUpdate(key)) {
      const message = `Back-off pulling image "${image}"`;
      this.events.emit({ ...base, type: 'ImagePullBackOff', reason: 'BackOff', message });
      // The status says why the last pull failed; the event does not.
      const last = this.lastPullError.get(key);
      throw new SyncError(SyncErrors.imagePullBackOff, last ? `${message}: ${last}` : message);
    }
    this.lastPullError.delete(key);
    this.events.emit({ ...base, type: 'ImagePulling', reason: 'Pulling', message: `Pulling image "${image}"` });
    const started = this.clock.now();
    try {
      const ref = await this.images.pullImage(spec, undefined, sandboxConfig);
      const took = this.clock.now() - started;
      this.events.emit({
        ...base,
        type: 'ImagePulled',
        reason: 'Pulled',
        message: `Successfully pulled image "${image}" in ${took.toFixed(0)}ms`,
        detail: { ...volume, durationMs: took },
      });
      return ref;
    } catch (err) {
      this.backoff.next(key, this.clock.now());
      const message = pullErrorString(err);
      this.events.emit({
        ...base,
        type: 'ImagePullFailed',
        reason: 'Failed',
        message: `Failed to pull image "${image}": ${message}`,
        detail: { ...volume, ...criCallDetail(err) },
      });
      // Only pulls still backing off need their error kept (pods removed meanwhile leave theirs here).
      for (const k of this.lastPullError.keys()) if (!this.backoff.isInBackOffSinceUpdate(k)) this.lastPullError.delete(k);
      this.lastPullError.set(key, `${SyncErrors.imagePull}: ${message}`);
      throw new SyncError(SyncErrors.imagePull, message);
    }
  }
}

/**
 * A failed pull as the kubelet words it: the runtime's message alone for an
 * UNKNOWN status (the Go CRI client strips that code), the whole gRPC error
 * for any other code.
 */
function pullErrorString(err: unknown): string {
  return err instanceof CriError && err.code === GrpcCode.UNKNOWN ? err.details : goErrorString(err);
}
