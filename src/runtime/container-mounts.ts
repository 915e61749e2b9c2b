// What CreateContainer keeps of a container's mounts and log path, checked
// as runtimes check them.
import type { Mount__Output } from '../cri/gen/runtime/v1/Mount.js';
import { isAbsolute, join, relative } from 'node:path';
import { descendingPath } from '../util/paths.js';
import { status } from '@grpc/grpc-js';
import { invalid, RuntimeError, unimplemented } from './errors.js';
import type { RecordMount } from './records.js';
import { resolveInRoot } from './sandbox/image-process.js';

/** Where an image volume's files are: the image's id and its files stacked for volumes (undefined: no such image). */
export type ImageVolumeRoot = (image: string) => { id: string; root: string } | undefined;

/**
 * The mounts of container `name` as its record keeps them (propagation and
 * recursive read-only only when not the default). A recursive read-only
 * mount must be read-only and private, and needs a sandbox: `hostProcess`
 * says why the container has none (undefined when it has one). An image
 * volume (a mount of an image, with no host path) must be read-only, needs
 * a sandbox too, and its image must be here: `imageRoot` finds its files.
 */
export function recordMounts(
  name: string,
  mounts: readonly Mount__Output[],
  hostProcess: string | undefined,
  imageRoot: ImageVolumeRoot,
): RecordMount[] {
  return mounts.map((m) => {
    const where = `container "${name}": mount ${m.containerPath}`;
    const image = m.image?.image ?? '';
    if (image !== '' && m.hostPath) throw invalid(`${where}: a mount has a host path or an image, not both`);
    if (image === '' && !m.hostPath) throw invalid(`${where}: the mount has no host path and no image`);
    if (m.recursiveReadOnly) {
      if (!m.readonly) throw invalid(`${where}: a recursive read-only mount must be read-only`);
      if (m.propagation !== 'PROPAGATION_PRIVATE')
        throw invalid(`${where}: a recursive read-only mount must have private propagation, not ${m.propagation}`);
      if (hostProcess !== undefined)
        throw invalid(`${where}: recursive read-only mounts need a sandbox, and the container runs as a host process (${hostProcess})`);
    }
    const common = {
      containerPath: m.containerPath,
      readonly: m.readonly,
      ...(m.propagation === 'PROPAGATION_PRIVATE' ? {} : { propagation: m.propagation }),
      ...(m.recursiveReadOnly ? { recursiveReadOnly: true } : {}),
    };
    if (image === '') return { ...common, hostPath: m.hostPath };
    const volume = imageVolume(where, image, m.imageSubPath, m.readonly, hostProcess, imageRoot);
    return {
      ...common,
      hostPath: volume.hostPath,
      image: { image, imageId: volume.imageId, ...(m.image?.userSpecifiedImage ? { userSpecifiedImage: m.image.userSpecifiedImage } : {}) },
      ...(m.imageSubPath ? { imageSubPath: m.imageSubPath } : {}),
    };
  });
}

/**
 * An image volume's files on the host: its image's stacked files, or the
 * sub path asked for in them (relative, inside the image, symlinks followed
 * inside it; it must exist, as the CRI asks).
 */
function imageVolume(
  where: string,
  image: string,
  subPath: string,
  readonly: boolean,
  hostProcess: string | undefined,
  imageRoot: ImageVolumeRoot,
): { hostPath: string; imageId: string } {
  if (!readonly) throw invalid(`${where}: an image volume is read-only, and the mount is not`);
  if (hostProcess !== undefined)
    throw unimplemented(`${where}: image volumes need a sandbox, and the container runs as a host process (${hostProcess})`);
  const sub = descendingPath(subPath || '.');
  if (sub === undefined) throw invalid(`${where}: image sub path "${subPath}" must be a relative path inside the image`);
  let found: ReturnType<ImageVolumeRoot>;
  try {
    found = imageRoot(image);
  } catch (err) {
    throw new RuntimeError(
      status.UNKNOWN,
      `${where}: the files of image volume "${image}" could not be stacked: ${(err as Error).message}`,
    );
  }
  if (!found) throw new RuntimeError(status.NOT_FOUND, `${where}: image volume "${image}" not found; pull it first`);
  if (sub === '.') return { hostPath: found.root, imageId: found.id };
  const hostPath = resolveInRoot(found.root, sub);
  if (hostPath === undefined)
    throw new RuntimeError(status.NOT_FOUND, `${where}: image sub path "${subPath}" does not exist in image ${found.id}`);
  return { hostPath, imageId: found.id };
}

/** The log file under the sandbox's log directory; a path that escapes it is refused. */
export function resolveLogPath(logDirectory: string, logPath: string): string {
  if (!logPath) return '';
  if (!logDirectory) {
    if (!isAbsolute(logPath)) return '';
    return logPath;
  }
  const full = join(logDirectory, logPath);
  const rel = relative(logDirectory, full);
  if (rel.startsWith('..') || isAbsolute(rel)) throw invalid(`log path "${logPath}" escapes the sandbox log directory`);
  return full;
}
