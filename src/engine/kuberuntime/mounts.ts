import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { isAbsolute, join, normalize, relative } from 'node:path';
import type { Mount } from '../../cri/types.js';
import type { Container } from '../api/v1.js';
import type { PodVolumes } from '../volume/volume-manager.js';
import { SyncError, SyncErrors } from './sync-result.js';

/**
 * The container's mounts (the kubelet's makeMounts): each volumeMount as the
 * volume's host path (or a subPath inside it) at its mountPath. A subPath
 * that is absolute or leads out of its volume, by `..` or by a symlink, is
 * refused (CreateContainerConfigError); a missing subPath directory is made.
 */
export function makeMounts(container: Container, volumes: PodVolumes): Mount[] {
  const mounts: Mount[] = [];
  for (const m of container.volumeMounts ?? []) {
    const base = volumes.get(m.name);
    if (base === undefined) throw new SyncError(SyncErrors.createContainerConfig, `volume "${m.name}" of container ${container.name} is not a volume of the pod`);
    let hostPath = base;
    if (m.subPath) {
      const sub = normalize(m.subPath);
      if (isAbsolute(m.subPath) || sub === '..' || sub.startsWith('../')) {
        throw new SyncError(SyncErrors.createContainerConfig, `subPath "${m.subPath}" of volume "${m.name}" must be a relative path inside the volume`);
      }
      hostPath = join(base, sub);
      if (!existsSync(hostPath)) mkdirSync(hostPath, { recursive: true, mode: 0o755 });
      const inside = relative(realpathSync(base), realpathSync(hostPath));
      if (inside.startsWith('..') || isAbsolute(inside)) {
        throw new SyncError(SyncErrors.createContainerConfig, `subPath "${m.subPath}" of volume "${m.name}" leads out of the volume (through a symlink)`);
      }
    }
    mounts.push({ containerPath: m.mountPath, hostPath, readonly: m.readOnly ?? false });
  }
  return mounts;
}
