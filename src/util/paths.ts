import { homedir } from 'node:os';
import { isAbsolute, join, normalize, resolve } from 'node:path';

/** `--root-dir` when not given: `$KNODE_ROOT_DIR`, else `~/.knode`. */
export function defaultRootDir(): string {
  return resolve(process.env.KNODE_ROOT_DIR || join(homedir(), '.knode'));
}

/** Where things live under a root dir; one place, so commands and the runtime agree. */
export function rootPaths(rootDir: string) {
  const root = resolve(rootDir);
  return {
    root,
    run: join(root, 'run'),
    runtimeSocket: join(root, 'run', 'runtime.sock'),
    runtimePidFile: join(root, 'run', 'runtime.pid'),
    /** The running node's read-only API (`knode run`). */
    nodeSocket: join(root, 'run', 'knode.sock'),
    runtimeDir: join(root, 'runtime'),
    /** Mirrors and insecure registries; its presence turns real image pulls on (src/runtime/oci/registry-config.ts). */
    registryConfig: join(root, 'registries.yaml'),
    /** The CNI network pods get (the first configuration by name); none: pods share the host's network. */
    cniConfDir: join(root, 'cni', 'net.d'),
    logs: join(root, 'logs'),
    runtimeLog: join(root, 'logs', 'runtime.log'),
    /** What the pods' stops that a `delete --wait=false` left in the background said after it returned. */
    deleteLog: join(root, 'logs', 'delete.log'),
    podLogs: join(root, 'pods'),
    /** A standalone node's workload objects (Deployments, Jobs, their pods…), saved by its local apiserver. */
    objects: join(root, 'objects.json'),
    /** A standalone node's PersistentVolumeClaims, one directory each (`<namespace>/<name>`), kept until the claim is deleted. */
    claims: join(root, 'claims'),
  };
}

/**
 * `path` normalized when it is relative and stays inside the directory it is
 * taken from (a `..` that climbs out, or a leading `/`, gives undefined): the
 * kubelet's check of a subPath, before any symlink is followed.
 */
export function descendingPath(path: string): string | undefined {
  const normal = normalize(path);
  return isAbsolute(path) || normal === '..' || normal.startsWith('../') ? undefined : normal;
}
