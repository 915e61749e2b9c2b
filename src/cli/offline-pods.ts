import type { RuntimeService } from '../cri/runtime-service.js';
import type { Pod } from '../engine/api/v1.js';
import type { KubeObject } from '../engine/api/workloads.js';
import { podsFromRuntime } from '../engine/kuberuntime/runtime-view.js';
import { readSavedObjects } from '../controllers/local-api.js';
import { rootPaths } from '../util/paths.js';

/** The pods of a root dir where no node runs, and which of them have the spec their node was given. */
export interface OfflinePods {
  pods: Pod[];
  /** The UIDs of the pods whose spec and metadata came from the objects the node saved. */
  specified: Set<string>;
}

/** The objects the local controllers saved under ROOTDIR (`knode apply`'s Deployments, Jobs… and their pods). */
export function savedObjects(rootDir: string): KubeObject[] {
  return readSavedObjects(rootPaths(rootDir).objects);
}

/** The objects of KIND among SAVED in NAMESPACE (every namespace when undefined; an object without one is in default). */
export function savedOfKind(saved: KubeObject[], kind: string, namespace?: string): KubeObject[] {
  return saved.filter((o) => o.kind === kind && (namespace === undefined || (o.metadata.namespace ?? 'default') === namespace));
}

/**
 * The pods the runtime holds (podsFromRuntime; with their IPs when ADDRESSES
 * asks, a call for each), each with the spec and metadata of the pod of the
 * same UID in SAVED: a pod's spec does not change, so the saved one is
 * the running one's. Its state stays the runtime's: the saved status is only
 * as new as the save.
 */
export async function offlinePods(
  runtime: RuntimeService,
  runtimeName: string,
  saved: KubeObject[],
  { addresses = true } = {},
): Promise<OfflinePods> {
  const byUid = new Map<string, Pod>();
  for (const o of saved) if (o.kind === 'Pod' && o.metadata.uid) byUid.set(o.metadata.uid, o as unknown as Pod);
  const specified = new Set<string>();
  const pods = (await podsFromRuntime(runtime, runtimeName, { addresses })).map((pod) => {
    const known = byUid.get(pod.metadata.uid!);
    if (!known) return pod;
    specified.add(pod.metadata.uid!);
    return withSavedSpec(pod, known);
  });
  return { pods, specified };
}

/** POD as the runtime shows it, with the spec, metadata and the fixed parts of the status of KNOWN. */
function withSavedSpec(pod: Pod, known: Pod): Pod {
  const { hostIP, hostIPs, qosClass, startTime, podIP, podIPs } = known.status ?? {};
  return {
    ...pod,
    metadata: { ...known.metadata, creationTimestamp: known.metadata.creationTimestamp ?? pod.metadata.creationTimestamp },
    spec: { ...known.spec, nodeName: known.spec.nodeName ?? pod.spec.nodeName },
    status: {
      ...pod.status,
      ...(hostIP ? { hostIP, hostIPs } : {}),
      ...(qosClass ? { qosClass } : {}),
      ...(startTime ? { startTime } : {}),
      // A host-network pod's sandbox has no IP of its own: the node gave it the one it saved.
      ...(pod.status?.podIP || !podIP ? {} : { podIP, podIPs }),
    },
  };
}
