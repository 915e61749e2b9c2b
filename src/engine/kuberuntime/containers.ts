import { join } from 'node:path';
import { criCallDetail, GrpcCode, isCode, runtimeMessage } from '../../cri/errors.js';
import type { ImageService, RuntimeService } from '../../cri/runtime-service.js';
import type { ImageSpec, PodSandboxConfig } from '../../cri/types.js';
import { KubeletAnnotations } from '../../cri/types.js';
import type { Backoff } from '../../util/backoff.js';
import type { Clock } from '../../util/clock.js';
import { podRef } from '../api/pod-util.js';
import type { Container, LifecycleHandler, Pod } from '../api/v1.js';
import { findContainer, type RuntimePodStatus } from '../container/types.js';
import type { EventStream } from '../events.js';
import { generateContainerConfig, restartCountFromLogDir } from './container-config.js';
import { needsImageUser, seccompProfileRoot, verifyRunAsNonRoot } from './security-context.js';
import { makeHostsMount } from './etc-hosts.js';
import { fetchEnvSources, type PodAddresses } from './env.js';
import type { ObjectManager } from '../cluster/object-manager.js';
import type { HookRunner } from './hooks.js';
import type { ImagePuller } from './image-puller.js';
import { hashContainer } from './labels.js';
import { SyncAborted, SyncError, SyncErrors } from './sync-result.js';
import type { PodVolumes } from '../volume/volume-manager.js';
import type { ImageVolumes } from './mounts.js';
import { createTerminationMessageFile } from './termination-message.js';

/** Containers always get at least this long to stop (the kubelet's minimumGracePeriodInSeconds). */
const MINIMUM_GRACE_PERIOD_SECONDS = 2;

export interface ContainerManagerDeps {
  runtime: RuntimeService;
  images: ImageService;
  puller: ImagePuller;
  hooks: HookRunner;
  crashLoopBackOff: Backoff;
  clock: Clock;
  events: EventStream;
  nodeName: string;
  rootDir: string;
  /** ConfigMaps and Secrets that env and envFrom name. */
  objects: ObjectManager;
  supportsRecursiveReadOnly?: () => boolean;
  /** The kubelet's seccompDefault: containers naming no profile get RuntimeDefault. */
  seccompDefault?: boolean;
  /** The kubelet's clusterDomain: the domain of a pod with a subdomain ends in it (its /etc/hosts FQDN line). */
  clusterDomain?: string;
}

/** The pulls of a pod's image volumes, by volume name: the image to mount, or why it could not be pulled. */
export type ImageVolumePulls = ReadonlyMap<string, ImageSpec | SyncError>;

/** The kubelet's key for a container's crash-loop backoff: pod, container and spec hash. */
export function backOffKey(pod: Pod, container: Container): string {
  return `${pod.metadata.name}_${pod.metadata.namespace}_${pod.metadata.uid}_${container.name}_${hashContainer(container)}`;
}

/** Starting and killing one container, with image pulls, backoff and lifecycle hooks (kuberuntime_container.go). */
export class ContainerManager {
  constructor(private readonly deps: ContainerManagerDeps) {}

  /**
   * Refuses to start a container whose last run ended less than its backoff ago
   * (CrashLoopBackOff), and otherwise records this start in the backoff.
   * The last run is the newest *exited* instance, as in the kubelet: a
   * container killed by a failed probe is still running in the status the
   * sync started from, and its restart is backed off from the kill before.
   */
  doBackOff(pod: Pod, container: Container, status: RuntimePodStatus): void {
    const last = status.containers.find((c) => c.name === container.name && c.state === 'exited');
    if (!last) return;
    const key = backOffKey(pod, container);
    // After a restart of knode the backoff is gone from memory, not from the runtime: a
    // container that already restarted n times was last given initial * 2^(n-1), recorded
    // about when it started (so one that then ran for a long time starts over, as it would have).
    const { initial } = this.deps.crashLoopBackOff;
    if (last.restartCount > 0)
      this.deps.crashLoopBackOff.restore(key, initial * 2 ** (last.restartCount - 1), last.startedAt || last.finishedAt);
    if (this.deps.crashLoopBackOff.isInBackOffSince(key, last.finishedAt)) {
      const delay = Math.round(this.deps.crashLoopBackOff.get(key) / 1000);
      const remainingMs = this.deps.crashLoopBackOff.remaining(key, last.finishedAt);
      const podText = `${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})`;
      const message = `back-off ${delay}s restarting failed container=${container.name} pod=${podText}`;
      this.deps.events.emit({
        type: 'ContainerBackOff',
        pod: podRef(pod),
        uid: pod.metadata.uid!,
        container: container.name,
        reason: 'BackOff',
        message: `Back-off restarting failed container ${container.name} in pod ${podText}`,
        detail: { remainingMs },
      });
      throw new SyncError(SyncErrors.crashLoopBackOff, message, remainingMs);
    }
    this.deps.crashLoopBackOff.next(key, last.finishedAt);
  }

  /**
   * Pulls the images of the pod's image volumes, each by its pullPolicy, as
   * the kubelet does once a sync has a container to start (getImageVolumes):
   * what failed fails only the containers that mount it.
   */
  async pullImageVolumes(pod: Pod, sandboxConfig: PodSandboxConfig): Promise<ImageVolumePulls> {
    const pulls = new Map<string, ImageSpec | SyncError>();
    for (const volume of pod.spec.volumes ?? []) {
      if (!volume.image) continue;
      try {
        const ref = await this.deps.puller.ensureVolumeImage(pod, volume, sandboxConfig);
        pulls.set(volume.name, {
          image: ref,
          userSpecifiedImage: volume.image.reference ?? '',
          annotations: pod.metadata.annotations ?? {},
        });
      } catch (err) {
        pulls.set(volume.name, err instanceof SyncError ? err : new SyncError(SyncErrors.imagePull, (err as Error).message));
      }
    }
    return pulls;
  }

  /** The pulled image volumes `container` mounts; the last one that failed to pull fails it (toKubeContainerImageVolumes). */
  private imageVolumesOf(container: Container, pulls: ImageVolumePulls): ImageVolumes {
    const mounted = new Map<string, ImageSpec>();
    let failed: SyncError | undefined;
    for (const m of container.volumeMounts ?? []) {
      const pull = pulls.get(m.name);
      if (pull instanceof SyncError) failed = pull;
      else if (pull) mounted.set(m.name, pull);
    }
    if (failed) throw failed;
    return mounted;
  }

  /**
   * Pulls, creates and starts a container, then runs its postStart hook;
   * returns its id. Once SIGNAL aborts (the pod is being killed), it stops
   * before the next step with SyncAborted; a container created by then is
   * left to the kill.
   */
  async startContainer(
    sandboxId: string,
    sandboxConfig: PodSandboxConfig,
    container: Container,
    pod: Pod,
    status: RuntimePodStatus,
    addresses: PodAddresses,
    volumes: PodVolumes,
    imageVolumePulls: ImageVolumePulls = new Map(),
    signal?: AbortSignal,
  ): Promise<string> {
    const { runtime, events } = this.deps;
    const base = { pod: podRef(pod), uid: pod.metadata.uid!, container: container.name };
    let imageRef: string;
    let imageVolumes: ImageVolumes;
    try {
      imageVolumes = this.imageVolumesOf(container, imageVolumePulls);
      imageRef = await this.deps.puller.ensureImageExists(pod, container, sandboxConfig);
    } catch (err) {
      // The kubelet's event names the reason alone (ErrImagePull, ImagePullBackOff ...); the pull's own events say why.
      if (err instanceof SyncError) events.emit({ ...base, type: 'ContainerFailed', reason: 'Failed', message: `Error: ${err.reason}` });
      throw err;
    }
    const previous = findContainer(status, container.name);
    // Without an instance (removed by a restart in place, or lost), its logs tell how often it ran.
    const logDir = sandboxConfig.logDirectory ? join(sandboxConfig.logDirectory, container.name) : '';
    const restartCount = previous ? previous.restartCount + 1 : logDir ? restartCountFromLogDir(logDir) : 0;
    let config;
    try {
      const nonRoot = verifyRunAsNonRoot(pod, container, needsImageUser(pod, container) ? await this.imageUser(imageRef) : undefined);
      if (nonRoot) throw new SyncError(SyncErrors.createContainerConfig, nonRoot);
      const envSources = await fetchEnvSources(pod, container, this.deps.objects);
      config = generateContainerConfig(pod, container, restartCount, imageRef, this.deps.nodeName, addresses, volumes, envSources, {
        supportsRecursiveReadOnly: this.deps.supportsRecursiveReadOnly?.() ?? false,
        seccomp: { profileRoot: seccompProfileRoot(this.deps.rootDir), fallbackToRuntimeDefault: this.deps.seccompDefault === true },
        imageVolumes,
      });
      const hosts = makeHostsMount(this.deps.rootDir, pod, container, addresses.podIPs, { clusterDomain: this.deps.clusterDomain });
      if (hosts) config.mounts = [...(config.mounts ?? []), hosts];
      if (container.terminationMessagePath) {
        const hostPath = await createTerminationMessageFile(this.deps.rootDir, pod.metadata.uid!, container.name);
        config.mounts = [...(config.mounts ?? []), { containerPath: container.terminationMessagePath, hostPath, readonly: false }];
      }
    } catch (err) {
      if (err instanceof SyncError) events.emit({ ...base, type: 'ContainerFailed', reason: 'Failed', message: `Error: ${err.message}` });
      throw err;
    }
    // As the kubelet: the status and the event carry the runtime's message alone; the call and code ride in the event's detail.
    if (signal?.aborted) throw new SyncAborted('CreateContainer');
    let id: string;
    try {
      id = await runtime.createContainer(sandboxId, config, sandboxConfig);
    } catch (err) {
      events.emit({
        ...base,
        type: 'ContainerFailed',
        reason: 'Failed',
        message: `Error: ${runtimeMessage(err)}`,
        detail: criCallDetail(err),
      });
      throw new SyncError(SyncErrors.createContainer, runtimeMessage(err));
    }
    events.emit({
      ...base,
      type: 'ContainerCreated',
      reason: 'Created',
      message: `Created container ${container.name}`,
      detail: { containerId: id, restartCount },
    });
    if (signal?.aborted) throw new SyncAborted('StartContainer');
    try {
      await runtime.startContainer(id, signal);
    } catch (err) {
      // The kill that cancelled the call handles the container, started or not, as the kubelet's cancelled context does.
      if (signal?.aborted) throw new SyncAborted('StartContainer');
      events.emit({
        ...base,
        type: 'ContainerFailed',
        reason: 'Failed',
        message: `Error: ${runtimeMessage(err)}`,
        detail: { containerId: id, ...criCallDetail(err) },
      });
      throw new SyncError(SyncErrors.runContainer, runtimeMessage(err));
    }
    const containerType = pod.spec.initContainers?.some((c) => c.name === container.name) ? 'init_container' : 'container';
    events.emit({
      ...base,
      type: 'ContainerStarted',
      reason: 'Started',
      message: `Started container ${container.name}`,
      detail: { containerId: id, restartCount, containerType },
    });
    const postStart = container.lifecycle?.postStart;
    if (postStart) {
      const failure = await this.deps.hooks.run(id, container, pod, postStart, addresses.podIP);
      if (failure) {
        // As the kubelet, the event leaves the hook's output out (it may hold secrets); the status and the log have it.
        events.emit({
          ...base,
          type: 'ContainerFailed',
          reason: 'FailedPostStartHook',
          message: 'PostStartHook failed',
          detail: { containerId: id, error: failure },
        });
        await this.killContainer(pod, id, container.name, container, `FailedPostStartHook`, 'PostStartHook failed');
        throw new SyncError(SyncErrors.postStartHook, failure);
      }
    }
    return id;
  }

  /**
   * Stops a container within its grace period: the preStop hook first (its
   * time counts against the period), then StopContainer with what is left,
   * never less than two seconds.
   */
  async killContainer(
    pod: Pod | undefined,
    containerId: string,
    name: string,
    spec: Container | undefined,
    reason: string,
    message: string,
    gracePeriodOverride?: number,
    annotations: Record<string, string> = {},
  ): Promise<void> {
    const { runtime, clock, events } = this.deps;
    let grace = gracePeriodOverride ?? gracePeriodOf(pod, annotations);
    events.emit({
      type: 'ContainerKilling',
      pod: pod ? podRef(pod) : '',
      uid: pod?.metadata.uid ?? '',
      container: name,
      reason: 'Killing',
      message: `Stopping container ${name}${message ? `: ${message}` : ''}`,
      detail: { gracePeriodSeconds: grace, reason },
    });
    const preStop = spec?.lifecycle?.preStop ?? parsePreStop(annotations[KubeletAnnotations.preStopHandler]);
    if (preStop && grace > 0) {
      const started = clock.now();
      await this.runPreStop(containerId, spec ?? { name }, preStop, grace, pod);
      grace -= Math.floor((clock.now() - started) / 1000);
    }
    if (grace < MINIMUM_GRACE_PERIOD_SECONDS) grace = MINIMUM_GRACE_PERIOD_SECONDS;
    try {
      await runtime.stopContainer(containerId, grace);
    } catch (err) {
      // Gone already (removed since the status was read): stopped, as the kubelet takes it.
      if (isCode(err, GrpcCode.NOT_FOUND)) return;
      throw new SyncError(SyncErrors.killContainer, `failed to stop container ${name}: ${(err as Error).message}`);
    }
  }

  /** The user image `imageRef` runs as, from ImageStatus (the kubelet's getImageUser); none known is root. */
  private async imageUser(imageRef: string): Promise<{ uid?: number; username?: string }> {
    let image;
    try {
      image = await this.deps.images.imageStatus({ image: imageRef });
    } catch (err) {
      throw new SyncError(SyncErrors.createContainerConfig, `failed to get the user of image ${imageRef}: ${runtimeMessage(err)}`);
    }
    if (image?.uid) return { uid: Number(image.uid.value) };
    return image?.username ? { username: image.username } : { uid: 0 };
  }

  private async runPreStop(
    containerId: string,
    container: Container,
    handler: LifecycleHandler,
    graceSeconds: number,
    pod: Pod | undefined,
  ): Promise<void> {
    const abort = new AbortController();
    const timer = this.deps.clock.setTimeout(() => abort.abort(new Error('grace period exceeded')), graceSeconds * 1000);
    try {
      const outcome = await Promise.race([
        this.deps.hooks
          .run(containerId, container, pod, handler, '', abort.signal)
          .then((error) => (error ? { message: 'PreStopHook failed', error } : undefined)),
        new Promise<{ message: string }>((resolve) =>
          abort.signal.addEventListener(
            'abort',
            () => resolve({ message: `PreStopHook did not finish within the grace period of ${graceSeconds}s` }),
            { once: true },
          ),
        ),
      ]);
      // As the kubelet, a failed hook's event leaves its output out (it may hold secrets); the detail keeps it for the log.
      if (outcome && pod)
        this.deps.events.emit({
          type: 'ContainerFailed',
          pod: podRef(pod),
          uid: pod.metadata.uid!,
          container: container.name,
          reason: 'FailedPreStopHook',
          message: outcome.message,
          ...('error' in outcome ? { detail: { error: outcome.error } } : {}),
        });
    } finally {
      timer.cancel();
    }
  }
}

/** The pod's deletion grace period, else its spec's, else what the container's annotation remembers. */
function gracePeriodOf(pod: Pod | undefined, annotations: Record<string, string>): number {
  if (pod?.metadata.deletionGracePeriodSeconds !== undefined) return pod.metadata.deletionGracePeriodSeconds;
  if (pod?.spec.terminationGracePeriodSeconds !== undefined) return pod.spec.terminationGracePeriodSeconds;
  const annotated = Number(annotations[KubeletAnnotations.terminationGracePeriod]);
  return Number.isFinite(annotated) && annotated >= 0 ? annotated : 30;
}

function parsePreStop(json: string | undefined): LifecycleHandler | undefined {
  if (!json) return undefined;
  try {
    return JSON.parse(json) as LifecycleHandler;
  } catch {
    return undefined;
  }
}
