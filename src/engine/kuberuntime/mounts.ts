import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import type { ImageSpec, Mount } from '../../cri/types.js';
import type { Container, VolumeMount } from '../api/v1.js';
import { descendingPath } from '../../util/paths.js';
import type { PodVolumes } from '../volume/volume-manager.js';
import { SyncError, SyncErrors } from './sync-result.js';

/** The images of a pod's image volumes, pulled, by volume name. */
export type ImageVolumes = ReadonlyMap<string, ImageSpec>;

/**
 * The container's mounts (the kubelet's makeMounts): each volumeMount as the
 * volume's host path (or a subPath inside it) at its mountPath. A subPath
 * that is absolute or leads out of its volume, by `..` or by a symlink, is
 * refused (CreateContainerConfigError); a missing subPath directory is made.
 * Each keeps its mountPropagation, and recursiveReadOnly as the runtime
 * allows it (IfPossible: where it can; Enabled: or the container cannot start).
 * An image volume is its pulled image, read-only, with no host path; its
 * subPath is the runtime's to find in the image.
 */
export function makeMounts(
  container: Container,
  volumes: PodVolumes,
  supportsRecursiveReadOnly = false,
  imageVolumes: ImageVolumes = new Map(),
  readOnlyVolumes: ReadonlySet<string> = new Set(),
): Mount[] {
  const mounts: Mount[] = [];
  for (const m of container.volumeMounts ?? []) {
    const base = volumes.get(m.name);
    if (base === undefined)
      throw new SyncError(SyncErrors.createContainerConfig, `volume "${m.name}" of container ${container.name} is not a volume of the pod`);
    let sub: string | undefined;
    if (m.subPath) {
      sub = descendingPath(m.subPath);
      if (sub === undefined)
        throw new SyncError(
          SyncErrors.createContainerConfig,
          `subPath "${m.subPath}" of volume "${m.name}" must be a relative path inside the volume`,
        );
    }
    const recursiveReadOnly = resolveRecursiveReadOnly(m, supportsRecursiveReadOnly);
    const common = {
      containerPath: m.mountPath,
      ...propagationOf(m.mountPropagation),
      ...(recursiveReadOnly ? { recursiveReadOnly } : {}),
    };
    const image = imageVolumes.get(m.name);
    if (image) {
      mounts.push({ ...common, hostPath: '', image, imageSubPath: m.subPath ?? '', readonly: true });
      continue;
    }
    mounts.push({
      ...common,
      hostPath: sub === undefined ? base : subPathIn(base, sub, m),
      readonly: (m.readOnly ?? false) || readOnlyVolumes.has(m.name),
    });
  }
  return mounts;
}

/** Relative path `sub` inside volume directory `base`, made when missing; one that leads out through a symlink is refused. */
function subPathIn(base: string, sub: string, m: VolumeMount): string {
  const hostPath = join(base, sub);
  if (!existsSync(hostPath)) mkdirSync(hostPath, { recursive: true, mode: 0o755 });
  const inside = relative(realpathSync(base), realpathSync(hostPath));
  if (inside.startsWith('..') || isAbsolute(inside)) {
    throw new SyncError(
      SyncErrors.createContainerConfig,
      `subPath "${m.subPath}" of volume "${m.name}" leads out of the volume (through a symlink)`,
    );
  }
  return hostPath;
}

/** The kubelet's resolveRecursiveReadOnly. */
function resolveRecursiveReadOnly(m: VolumeMount, supported: boolean): boolean {
  const mode = m.recursiveReadOnly;
  if (mode === undefined || mode === 'Disabled') return false;
  if (!m.readOnly)
    throw new SyncError(SyncErrors.createContainerConfig, `volume "${m.name}" requested recursive read-only mode, but it is not read-only`);
  if (m.mountPropagation !== undefined && m.mountPropagation !== 'None') {
    throw new SyncError(
      SyncErrors.createContainerConfig,
      `volume "${m.name}" requested recursive read-only mode, but it is not compatible with propagation "${m.mountPropagation}"`,
    );
  }
  if (mode === 'IfPossible') return supported;
  if (!supported)
    throw new SyncError(
      SyncErrors.createContainerConfig,
      `volume "${m.name}" requested recursive read-only mode, but it is not supported by the runtime`,
    );
  return true;
}

/** The kubelet's translateMountPropagation; None (or nothing) is private, and left out as the default. */
function propagationOf(mode: VolumeMount['mountPropagation']): Pick<Mount, 'propagation'> {
  if (mode === 'HostToContainer') return { propagation: 'PROPAGATION_HOST_TO_CONTAINER' };
  if (mode === 'Bidirectional') return { propagation: 'PROPAGATION_BIDIRECTIONAL' };
  return {};
}
