import type { NamespaceMode } from '../../cri/types.js';
import type { Pod } from '../api/v1.js';

/** The namespace modes of a pod, the same for its sandbox and every container of it. */
export interface NamespaceOptions {
  network: NamespaceMode;
  pid: NamespaceMode;
  ipc: NamespaceMode;
}

export function ipcNamespaceForPod(pod: Pod): NamespaceMode {
  return pod.spec.hostIPC ? 'NODE' : 'POD';
}

export function networkNamespaceForPod(pod: Pod): NamespaceMode {
  return pod.spec.hostNetwork ? 'NODE' : 'POD';
}

/** Each container its own PID namespace, unless the pod shares one (POD) or uses the host's (NODE). */
export function pidNamespaceForPod(pod: Pod): NamespaceMode {
  if (pod.spec.hostPID) return 'NODE';
  if (pod.spec.shareProcessNamespace) return 'POD';
  return 'CONTAINER';
}

/** The kubelet's namespacesForPod: what the sandbox config and each container config carry. */
export function namespacesForPod(pod: Pod): NamespaceOptions {
  return { network: networkNamespaceForPod(pod), pid: pidNamespaceForPod(pod), ipc: ipcNamespaceForPod(pod) };
}
