// What CreateContainer keeps of a container's mounts and log path, checked
// as runtimes check them.
import type { Mount__Output } from '../cri/gen/runtime/v1/Mount.js';
import { isAbsolute, join, relative } from 'node:path';
import { invalid, unimplemented } from './errors.js';
import type { ContainerRecord } from './records.js';

/**
 * The mounts of container `name` as its record keeps them (propagation and
 * recursive read-only only when not the default). A recursive read-only
 * mount must be read-only and private, and needs a sandbox: `hostProcess`
 * says why the container has none (undefined when it has one). A mount
 * with no host path (an image volume) is refused: UNIMPLEMENTED.
 */
export function recordMounts(name: string, mounts: readonly Mount__Output[], hostProcess: string | undefined): ContainerRecord['mounts'] {
  return mounts.map((m) => {
    // What the kubelet sends for an image volume (Mount.image, which this runtime does not read): nothing to bind.
    if (!m.hostPath) throw unimplemented(`container "${name}": mount ${m.containerPath} has no host path; image volumes (a mount of an image) are not implemented by the embedded runtime`);
    if (m.recursiveReadOnly) {
      const where = `container "${name}": mount ${m.containerPath}`;
      if (!m.readonly) throw invalid(`${where}: a recursive read-only mount must be read-only`);
      if (m.propagation !== 'PROPAGATION_PRIVATE') throw invalid(`${where}: a recursive read-only mount must have private propagation, not ${m.propagation}`);
      if (hostProcess !== undefined) throw invalid(`${where}: recursive read-only mounts need a sandbox, and the container runs as a host process (${hostProcess})`);
    }
    return {
      containerPath: m.containerPath,
      hostPath: m.hostPath,
      readonly: m.readonly,
      ...(m.propagation === 'PROPAGATION_PRIVATE' ? {} : { propagation: m.propagation }),
      ...(m.recursiveReadOnly ? { recursiveReadOnly: true } : {}),
    };
  });
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
