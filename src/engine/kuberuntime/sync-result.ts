/** The kubelet's container error reasons, as they appear in waiting states and events. */
export const SyncErrors = {
  crashLoopBackOff: 'CrashLoopBackOff',
  runContainer: 'RunContainerError',
  killContainer: 'KillContainerError',
  removeContainer: 'RemoveContainerError',
  createPodSandbox: 'CreatePodSandboxError',
  killPodSandbox: 'KillPodSandboxError',
  createContainerConfig: 'CreateContainerConfigError',
  createContainer: 'CreateContainerError',
  postStartHook: 'PostStartHookError',
  imagePullBackOff: 'ImagePullBackOff',
  imagePull: 'ErrImagePull',
  imageNeverPull: 'ErrImageNeverPull',
  invalidImageName: 'InvalidImageName',
  imageInspect: 'ImageInspectError',
} as const;

export type SyncErrorReason = (typeof SyncErrors)[keyof typeof SyncErrors];

export type SyncAction = 'StartContainer' | 'KillContainer' | 'RemoveContainer' | 'CreatePodSandbox' | 'KillPodSandbox';

/** A failure with a kubelet reason (ErrImagePull, CrashLoopBackOff ...) and a message for users. */
export class SyncError extends Error {
  override readonly name = 'SyncError';
  constructor(
    readonly reason: SyncErrorReason,
    message: string,
    /** For backoffs: when trying again makes sense. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

export interface SyncResult {
  action: SyncAction;
  /** Container name or sandbox id. */
  target: string;
  /** The container a StartContainer made, once the runtime gave it an id. */
  id?: string;
  error?: SyncError;
}

/** A sync step left undone because the pod was killed meanwhile (the kubelet's cancelled context): not a failure. */
export class SyncAborted extends Error {
  constructor(step: string) {
    super(`${step}: the pod is being killed`);
  }
}

/** What one runtime SyncPod did, step by step (the kubelet's PodSyncResult). */
export class PodSyncResult {
  readonly results: SyncResult[] = [];
  syncError: Error | undefined;

  add(result: SyncResult): SyncResult {
    this.results.push(result);
    return result;
  }

  fail(error: Error): void {
    this.syncError = error;
  }

  /** The first failure, if any step failed. */
  error(): Error | undefined {
    return this.syncError ?? this.results.find((r) => r.error)?.error;
  }
}
