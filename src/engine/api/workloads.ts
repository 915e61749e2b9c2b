// The objects besides pods that a manifest may hold and a standalone node
// runs through its local controllers: apps/v1, batch/v1 and the v1 kinds pods
// refer to. As their JSON is; a subset, grown as the controllers need it.
import type { ObjectMeta, PodSpec } from './v1.js';

/** Any API object: what the object store keeps. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface PodTemplateSpec {
  metadata?: ObjectMeta;
  spec: PodSpec;
}

export interface WorkloadCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastUpdateTime?: string;
  lastTransitionTime?: string;
  lastProbeTime?: string;
  reason?: string;
  message?: string;
}

export interface ReplicaSet extends KubeObject {
  spec: { replicas?: number; minReadySeconds?: number; selector: LabelSelector; template: PodTemplateSpec };
  status?: {
    replicas: number;
    fullyLabeledReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    /** Pods being deleted but not yet gone (the DeploymentReplicaSetTerminatingReplicas feature, on since v1.35). */
    terminatingReplicas?: number;
    observedGeneration?: number;
    conditions?: WorkloadCondition[];
  };
}

export interface Deployment extends KubeObject {
  spec: {
    replicas?: number;
    selector: LabelSelector;
    template: PodTemplateSpec;
    strategy?: { type?: 'RollingUpdate' | 'Recreate'; rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string } };
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
    progressDeadlineSeconds?: number;
    paused?: boolean;
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    unavailableReplicas?: number;
    terminatingReplicas?: number;
    conditions?: WorkloadCondition[];
    collisionCount?: number;
  };
}

export interface Job extends KubeObject {
  spec: {
    parallelism?: number;
    completions?: number | null;
    activeDeadlineSeconds?: number;
    backoffLimit?: number;
    completionMode?: 'NonIndexed' | 'Indexed';
    suspend?: boolean;
    ttlSecondsAfterFinished?: number;
    podFailurePolicy?: PodFailurePolicy;
    manualSelector?: boolean;
    selector?: LabelSelector;
    template: PodTemplateSpec;
  };
  status?: {
    startTime?: string;
    completionTime?: string;
    active?: number;
    ready?: number;
    succeeded?: number;
    failed?: number;
    terminating?: number;
    completedIndexes?: string;
    conditions?: WorkloadCondition[];
    uncountedTerminatedPods?: { succeeded?: string[]; failed?: string[] };
  };
}

export interface PodFailurePolicyRule {
  action: 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';
  onExitCodes?: { containerName?: string; operator: 'In' | 'NotIn'; values: number[] };
  onPodConditions?: { type: string; status?: 'True' | 'False' | 'Unknown' }[];
}

export interface PodFailurePolicy {
  rules: PodFailurePolicyRule[];
}

export interface JobTemplateSpec {
  metadata?: ObjectMeta;
  spec: Job['spec'];
}

export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  resourceVersion?: string;
}

export interface CronJob extends KubeObject {
  spec: {
    schedule: string;
    timeZone?: string;
    startingDeadlineSeconds?: number;
    concurrencyPolicy?: 'Allow' | 'Forbid' | 'Replace';
    suspend?: boolean;
    jobTemplate: JobTemplateSpec;
    successfulJobsHistoryLimit?: number;
    failedJobsHistoryLimit?: number;
  };
  status?: {
    active?: ObjectReference[];
    lastScheduleTime?: string;
    lastSuccessfulTime?: string;
  };
}

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
  immutable?: boolean;
}

export interface Secret extends KubeObject {
  type?: string;
  /** base64, as the API keeps it. */
  data?: Record<string, string>;
  /** Write-only in the API: merged into data (base64) when stored. */
  stringData?: Record<string, string>;
  immutable?: boolean;
}

/** Whether LABELS match the selector (an empty selector matches everything, as metav1.LabelSelectorAsSelector). */
export function selectorMatches(selector: LabelSelector | undefined, labels: Record<string, string> | undefined): boolean {
  if (!selector) return false;
  const have = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (have[k] !== v) return false;
  for (const r of selector.matchExpressions ?? []) {
    const present = Object.prototype.hasOwnProperty.call(have, r.key);
    switch (r.operator) {
      case 'In':
        if (!present || !(r.values ?? []).includes(have[r.key])) return false;
        break;
      case 'NotIn':
        if (present && (r.values ?? []).includes(have[r.key])) return false;
        break;
      case 'Exists':
        if (!present) return false;
        break;
      case 'DoesNotExist':
        if (present) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** The object's controller, from its ownerReferences. */
export function controllerOf(meta: ObjectMeta): { kind: string; name: string; uid: string } | undefined {
  return meta.ownerReferences?.find((o) => o.controller);
}

// --- StatefulSet, DaemonSet, PersistentVolumeClaim, ControllerRevision ---

export interface PersistentVolumeClaim extends KubeObject {
  spec: {
    accessModes?: string[];
    resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> };
    volumeMode?: 'Filesystem' | 'Block';
    storageClassName?: string;
    volumeAttributesClassName?: string;
    volumeName?: string;
    selector?: LabelSelector;
    dataSource?: { apiGroup?: string; kind: string; name: string };
  };
  status?: {
    phase?: 'Pending' | 'Bound' | 'Lost';
    accessModes?: string[];
    capacity?: Record<string, string | number>;
    conditions?: WorkloadCondition[];
  };
}

export interface StatefulSet extends KubeObject {
  spec: {
    replicas?: number;
    selector: LabelSelector;
    template: PodTemplateSpec;
    serviceName?: string;
    podManagementPolicy?: 'OrderedReady' | 'Parallel';
    updateStrategy?: { type?: 'RollingUpdate' | 'OnDelete'; rollingUpdate?: { partition?: number; maxUnavailable?: number | string } };
    volumeClaimTemplates?: { metadata: ObjectMeta; spec: PersistentVolumeClaim['spec'] }[];
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
    persistentVolumeClaimRetentionPolicy?: { whenDeleted?: 'Retain' | 'Delete'; whenScaled?: 'Retain' | 'Delete' };
    ordinals?: { start?: number };
  };
  status?: {
    observedGeneration?: number;
    replicas: number;
    readyReplicas?: number;
    currentReplicas?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
    currentRevision?: string;
    updateRevision?: string;
    collisionCount?: number;
  };
}

export interface DaemonSet extends KubeObject {
  spec: {
    selector: LabelSelector;
    template: PodTemplateSpec;
    updateStrategy?: {
      type?: 'RollingUpdate' | 'OnDelete';
      rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string };
    };
    minReadySeconds?: number;
    revisionHistoryLimit?: number;
  };
  status?: {
    currentNumberScheduled: number;
    numberMisscheduled: number;
    desiredNumberScheduled: number;
    numberReady: number;
    observedGeneration?: number;
    updatedNumberScheduled?: number;
    numberAvailable?: number;
    numberUnavailable?: number;
  };
}

/** A saved pod template of a StatefulSet or DaemonSet (apps/v1 ControllerRevision). */
export interface ControllerRevision extends KubeObject {
  data: { spec: { template: PodTemplateSpec } };
  revision: number;
}
