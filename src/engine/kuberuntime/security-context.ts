// The kubelet's security context for one container (security_context.go,
// security_context_others.go): the pod's securityContext under the
// container's, turned into CRI's LinuxContainerSecurityContext, and the
// runAsNonRoot check that the kubelet makes before CreateContainer.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LinuxContainerSecurityContext, SecurityProfile } from '../../cri/types.js';
import type { Container, Pod } from '../api/v1.js';
import { namespacesForPod } from './namespaces.js';

/** The fields knode reads, once validation (config/validation.ts) has checked their types. */
interface SecurityFields {
  runAsUser?: number;
  runAsGroup?: number;
  runAsNonRoot?: boolean;
  readOnlyRootFilesystem?: boolean;
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
  procMount?: 'Default' | 'Unmasked';
  supplementalGroups?: number[];
  fsGroup?: number;
  seccompProfile?: { type: 'RuntimeDefault' | 'Unconfined' | 'Localhost'; localhostProfile?: string };
}

/** How the kubelet picks a container's seccomp profile. */
export interface SeccompOptions {
  /** Where Localhost profiles are, relative to it (the kubelet's `<root-dir>/seccomp`). */
  profileRoot: string;
  /** The kubelet's seccompDefault: RuntimeDefault where neither the pod nor the container names a profile. */
  fallbackToRuntimeDefault: boolean;
}

/** Where the kubelet looks for Localhost seccomp profiles: `seccomp` in its root directory. */
export function seccompProfileRoot(rootDir: string): string {
  return join(rootDir, 'kubelet', 'seccomp');
}

/**
 * The kubelet's getSeccompProfile: the container's seccompProfile, else the
 * pod's, else RuntimeDefault or Unconfined as seccompDefault says. A Localhost
 * profile is sent as its absolute path under the profile root. (Validation
 * has refused a Localhost profile without a path.)
 */
export function seccompProfileFor(pod: Pod, container: Container, options: SeccompOptions): SecurityProfile {
  const chosen =
    (container.securityContext as SecurityFields | undefined)?.seccompProfile ??
    (pod.spec.securityContext as SecurityFields | undefined)?.seccompProfile;
  switch (chosen?.type) {
    case 'RuntimeDefault':
      return { profileType: 'RuntimeDefault' };
    case 'Localhost':
      return { profileType: 'Localhost', localhostRef: join(options.profileRoot, chosen.localhostProfile ?? '') };
    case 'Unconfined':
      return { profileType: 'Unconfined' };
    default:
      return { profileType: options.fallbackToRuntimeDefault ? 'RuntimeDefault' : 'Unconfined' };
  }
}

/** runAsUser, runAsGroup and runAsNonRoot: the container's where it sets them, else the pod's (determineEffectiveSecurityContext). */
function effective(pod: Pod, container: Container): SecurityFields {
  const podContext = (pod.spec.securityContext ?? {}) as SecurityFields;
  const own = (container.securityContext ?? {}) as SecurityFields;
  return {
    runAsUser: own.runAsUser ?? podContext.runAsUser,
    runAsGroup: own.runAsGroup ?? podContext.runAsGroup,
    runAsNonRoot: own.runAsNonRoot ?? podContext.runAsNonRoot,
    readOnlyRootFilesystem: own.readOnlyRootFilesystem,
    privileged: own.privileged,
    allowPrivilegeEscalation: own.allowPrivilegeEscalation,
    capabilities: own.capabilities,
    procMount: own.procMount,
  };
}

/** What the container's security context is made with besides the pod: the kubelet's seccomp settings, and (for tests) the masked paths. */
export interface SecurityContextOptions {
  seccomp?: SeccompOptions;
  masked?: readonly string[];
}

/** The container's CRI security context: the pod's namespaces, its user and groups, a read-only root, privileged, no_new_privs, capabilities added and dropped (as given: the runtime knows their names), the masked and read-only paths of its procMount, its seccomp profile. */
export function linuxContainerSecurityContext(
  pod: Pod,
  container: Container,
  options: SecurityContextOptions = {},
): LinuxContainerSecurityContext {
  const masked = options.masked ?? defaultMaskedPaths();
  const podContext = (pod.spec.securityContext ?? {}) as SecurityFields;
  const sc = effective(pod, container);
  // The pod's supplementalGroups, then its fsGroup, as the kubelet adds them.
  const groups = [...(podContext.supplementalGroups ?? []), ...(podContext.fsGroup !== undefined ? [podContext.fsGroup] : [])];
  return {
    namespaceOptions: namespacesForPod(pod),
    ...(sc.runAsUser !== undefined ? { runAsUser: { value: sc.runAsUser } } : {}),
    ...(sc.runAsGroup !== undefined ? { runAsGroup: { value: sc.runAsGroup } } : {}),
    ...(groups.length > 0 ? { supplementalGroups: groups } : {}),
    ...(sc.readOnlyRootFilesystem ? { readonlyRootfs: true } : {}),
    ...(sc.privileged ? { privileged: true } : {}),
    // AddNoNewPrivileges: only an explicit allowPrivilegeEscalation: false sets it.
    ...(sc.allowPrivilegeEscalation === false ? { noNewPrivs: true } : {}),
    ...(sc.capabilities
      ? {
          capabilities: {
            addCapabilities: sc.capabilities.add ?? [],
            dropCapabilities: sc.capabilities.drop ?? [],
            addAmbientCapabilities: [],
          },
        }
      : {}),
    // Sent for a privileged container too: the runtime leaves them out there (ConvertToRuntimeMaskedPaths).
    maskedPaths: sc.procMount === 'Unmasked' ? [] : [...masked],
    readonlyPaths: sc.procMount === 'Unmasked' ? [] : [...DEFAULT_READONLY_PATHS],
    seccomp: seccompProfileFor(pod, container, options.seccomp ?? { profileRoot: '', fallbackToRuntimeDefault: false }),
  };
}

/** The kubelet's (and moby's) read-only paths of a Default procMount. */
export const DEFAULT_READONLY_PATHS: readonly string[] = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'];

let defaultMasked: string[] | undefined;

/** The kubelet's (and moby's) masked paths of a Default procMount, with the thermal_throttle directory of each possible CPU that has one on this host. */
export function defaultMaskedPaths(): string[] {
  defaultMasked ??= [
    ...['asound', 'acpi', 'interrupts', 'kcore', 'keys', 'latency_stats', 'timer_list', 'timer_stats', 'sched_debug', 'scsi'].map(
      (p) => `/proc/${p}`,
    ),
    '/sys/firmware',
    '/sys/devices/virtual/powercap',
    ...possibleCpus()
      .map((cpu) => `/sys/devices/system/cpu/cpu${cpu}/thermal_throttle`)
      .filter((path) => existsSync(path)),
  ];
  return defaultMasked;
}

/** The CPUs /sys/devices/system/cpu/possible lists ("0-3,8"). */
function possibleCpus(): number[] {
  let list: string;
  try {
    list = readFileSync('/sys/devices/system/cpu/possible', 'utf8').trim();
  } catch {
    return [];
  }
  return list.split(',').flatMap((range) => {
    const [from, to = from] = range.split('-').map(Number);
    return Number.isInteger(from) && Number.isInteger(to) ? Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i) : [];
  });
}

/** Whether the kubelet must check the image's user before creating the container: runAsNonRoot without a runAsUser. */
export function needsImageUser(pod: Pod, container: Container): boolean {
  const sc = effective(pod, container);
  return sc.runAsNonRoot === true && sc.runAsUser === undefined;
}

/**
 * The kubelet's verifyRunAsNonRoot: undefined when the container may run,
 * else the message of its CreateContainerConfigError. `image` is the user the
 * image runs as (ImageStatus: uid, or a username), needed only when
 * needsImageUser says so.
 */
export function verifyRunAsNonRoot(pod: Pod, container: Container, image?: { uid?: number; username?: string }): string | undefined {
  const sc = effective(pod, container);
  if (sc.runAsNonRoot !== true) return undefined;
  const who = `(pod: "${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})", container: ${container.name})`;
  if (sc.runAsUser !== undefined) return sc.runAsUser === 0 ? `container's runAsUser breaks non-root policy ${who}` : undefined;
  if (image?.uid !== undefined) return image.uid === 0 ? `container has runAsNonRoot and image will run as root ${who}` : undefined;
  if (image?.username)
    return `container has runAsNonRoot and image has non-numeric user (${image.username}), cannot verify user is non-root ${who}`;
  return `container has runAsNonRoot and image will run as root ${who}`;
}
