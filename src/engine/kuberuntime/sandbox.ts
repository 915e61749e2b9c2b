import { join } from 'node:path';
import type { PodSandboxConfig } from '../../cri/types.js';
import type { Pod } from '../api/v1.js';
import { podHostnameAndDomain } from './etc-hosts.js';
import { RestartPolicyAnnotation, sandboxLabels } from './labels.js';
import { namespacesForPod } from './namespaces.js';

/** Where a pod's container logs live: `<podLogsDir>/<namespace>_<name>_<uid>`, as the kubelet's /var/log/pods. */
export function podLogsDirectory(podLogsDir: string, pod: Pick<Pod, 'metadata'>): string {
  return join(podLogsDir, `${pod.metadata.namespace}_${pod.metadata.name}_${pod.metadata.uid}`);
}

/** The pod's securityContext.sysctls as the sandbox config's map (names as given; the runtime reads both forms). */
function sysctlsOf(pod: Pod): { sysctls?: Record<string, string> } {
  const list = (pod.spec.securityContext as { sysctls?: { name: string; value: string }[] } | undefined)?.sysctls ?? [];
  return list.length > 0 ? { sysctls: Object.fromEntries(list.map((s) => [s.name, s.value])) } : {};
}

/**
 * The sandbox config the kubelet sends for a pod (generatePodSandboxConfig):
 * metadata with the attempt, the pod's labels plus the kubelet's, the log
 * directory, host ports, the namespace modes from hostNetwork/PID/IPC, and
 * the pod's sysctls.
 */
export function generatePodSandboxConfig(pod: Pod, attempt: number, nodeName: string, podLogsDir: string): PodSandboxConfig {
  const spec = pod.spec;
  const portMappings = [...(spec.initContainers ?? []), ...spec.containers].flatMap((c) =>
    (c.ports ?? [])
      .filter((p) => p.hostPort)
      .map((p) => ({ protocol: p.protocol ?? 'TCP', containerPort: p.containerPort, hostPort: p.hostPort, hostIp: p.hostIP ?? '' })),
  );
  const config: PodSandboxConfig = {
    metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace, uid: pod.metadata.uid, attempt },
    logDirectory: podLogsDirectory(podLogsDir, pod),
    portMappings,
    labels: sandboxLabels(pod, nodeName),
    annotations: { ...pod.metadata.annotations, [RestartPolicyAnnotation]: spec.restartPolicy ?? 'Always' },
    linux: {
      cgroupParent: '',
      // As the kubelet: privileged when any container is (runtimes refuse a privileged container in a sandbox that is not),
      // and the runtime's default seccomp profile, whatever the containers have.
      securityContext: {
        namespaceOptions: namespacesForPod(pod),
        ...(hasPrivilegedContainer(pod) ? { privileged: true } : {}),
        seccomp: { profileType: 'RuntimeDefault' },
      },
      ...sysctlsOf(pod),
    },
  };
  // A host-network pod shares the node's UTS namespace: runtimes refuse to set its hostname.
  if (!spec.hostNetwork) config.hostname = podHostnameAndDomain(pod).hostname;
  return config;
}

/** The kubelet's HasPrivilegedContainer: any container, init and ephemeral ones too, asks for privileged. */
function hasPrivilegedContainer(pod: Pod): boolean {
  return [...(pod.spec.initContainers ?? []), ...pod.spec.containers].some(
    (c) => (c.securityContext as { privileged?: boolean } | undefined)?.privileged === true,
  );
}
