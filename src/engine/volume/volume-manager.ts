import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, openSync, closeSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { Pod, Volume } from '../api/v1.js';
import type { PodAddresses } from '../kuberuntime/env.js';
import { downwardApiFiles, type DownwardItem } from './downward-api.js';

const run = promisify(execFile);

/** Why a volume cannot be set up (the kubelet's FailedMount); the pod stays Pending and is retried. */
export class VolumeError extends Error {
  override readonly name = 'VolumeError';
}

/** Each volume of a pod, by name, as the host path containers mount. */
export type PodVolumes = Map<string, string>;

/**
 * The kubelet's volume manager, for the volumes a node without an apiserver
 * can serve: emptyDir (a directory, or tmpfs for medium Memory where the
 * host lets it mount), hostPath (with its type checks), downwardAPI and
 * projected downwardAPI files. ConfigMaps, Secrets and claims need an
 * apiserver and fail with a clear FailedMount until one is connected.
 */
export class VolumeManager {
  private readonly memoryMounts = new Set<string>();

  constructor(
    private readonly rootDir: string,
    /** The pod's addresses for downward API files (its IP, the host's, the node's allocatable). */
    private readonly addressesOf: (pod: Pod) => PodAddresses,
    private readonly warn: (pod: Pod, message: string) => void,
  ) {}

  podDir(uid: string): string {
    return join(this.rootDir, 'kubelet', 'pods', uid);
  }

  /** Sets up every volume of the pod (idempotent; downward API files are rewritten). */
  async waitForAttachAndMount(pod: Pod): Promise<PodVolumes> {
    const volumes: PodVolumes = new Map();
    for (const volume of pod.spec.volumes ?? []) volumes.set(volume.name, await this.setUp(pod, volume));
    return volumes;
  }

  private async setUp(pod: Pod, v: Volume): Promise<string> {
    const uid = pod.metadata.uid!;
    const dir = (plugin: string) => join(this.podDir(uid), 'volumes', plugin, v.name);
    if (v.emptyDir) return this.emptyDir(pod, dir('kubernetes.io~empty-dir'), v.emptyDir);
    if (v.hostPath) return hostPath(v.name, v.hostPath.path, v.hostPath.type ?? '');
    if (v.downwardAPI) return this.files(dir('kubernetes.io~downward-api'), downwardApiFiles(pod, (v.downwardAPI as { items?: DownwardItem[] }).items ?? [], this.addressesOf(pod)));
    if (v.projected) {
      const items: DownwardItem[] = [];
      for (const source of (v.projected as { sources?: Record<string, { items?: DownwardItem[]; name?: string }>[] }).sources ?? []) {
        const [kind, body] = Object.entries(source)[0] ?? [];
        if (kind === 'downwardAPI') items.push(...(body?.items ?? []));
        else throw needsApiserver(v.name, kind ?? 'unknown', body?.name);
      }
      return this.files(dir('kubernetes.io~projected'), downwardApiFiles(pod, items, this.addressesOf(pod)));
    }
    const kind = Object.keys(v).find((k) => k !== 'name') ?? 'unknown';
    const named = (v[kind] as { name?: string; secretName?: string; claimName?: string } | undefined) ?? {};
    if (kind === 'configMap' || kind === 'secret' || kind === 'persistentVolumeClaim') throw needsApiserver(v.name, kind, named.name ?? named.secretName ?? named.claimName);
    throw new VolumeError(`volume "${v.name}": ${kind} volumes are not supported by knode`);
  }

  private async emptyDir(pod: Pod, path: string, spec: { medium?: string; sizeLimit?: string | number }): Promise<string> {
    if (!existsSync(path)) {
      mkdirSync(path, { recursive: true });
      chmodSync(path, 0o777);
    }
    if (spec.medium === 'Memory' && !this.memoryMounts.has(path)) {
      try {
        const size = spec.sizeLimit !== undefined ? [`-o`, `size=${spec.sizeLimit}`] : [];
        await run('mount', ['-t', 'tmpfs', ...size, 'tmpfs', path]);
        this.memoryMounts.add(path);
      } catch (err) {
        this.warn(pod, `emptyDir medium Memory falls back to disk: cannot mount tmpfs (${(err as Error).message.split('\n')[0]})`);
        this.memoryMounts.add(path); // say it once
      }
    }
    return path;
  }

  private files(dir: string, files: Map<string, string>): string {
    mkdirSync(dir, { recursive: true });
    for (const [file, content] of files) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), content, { mode: 0o644 });
    }
    return dir;
  }

  /** Removes what the pod's volumes left on the host (hostPath volumes are the host's and stay). */
  async tearDown(uid: string): Promise<void> {
    const volumes = join(this.podDir(uid), 'volumes');
    for (const path of [...this.memoryMounts].filter((p) => p.startsWith(volumes))) {
      await run('umount', [path]).catch(() => {});
      this.memoryMounts.delete(path);
    }
    rmSync(volumes, { recursive: true, force: true });
  }
}

function needsApiserver(volume: string, kind: string, name?: string): VolumeError {
  return new VolumeError(`volume "${volume}": ${kind}${name ? ` "${name}"` : ''} not found: knode serves static pods without an apiserver, so ${kind} volumes cannot be filled`);
}

/** A hostPath volume after its type check (and creation, for the OrCreate types). */
function hostPath(volume: string, path: string, type: string): string {
  const kind = () => {
    try {
      const s = statSync(path);
      return s.isDirectory() ? 'Directory' : s.isFile() ? 'File' : s.isSocket() ? 'Socket' : s.isCharacterDevice() ? 'CharDevice' : s.isBlockDevice() ? 'BlockDevice' : 'other';
    } catch {
      return 'missing';
    }
  };
  switch (type) {
    case '':
      return path;
    case 'DirectoryOrCreate':
      if (kind() === 'missing') mkdirSync(path, { recursive: true, mode: 0o755 });
      break;
    case 'FileOrCreate':
      if (kind() === 'missing') {
        if (!existsSync(dirname(path))) throw new VolumeError(`volume "${volume}": hostPath type check failed: ${dirname(path)} does not exist`);
        closeSync(openSync(path, 'a', 0o644));
      }
      break;
  }
  const expected = type.replace('OrCreate', '');
  const actual = kind();
  if (actual !== expected) throw new VolumeError(`volume "${volume}": hostPath type check failed: ${path} is not a ${expected}${actual === 'missing' ? ' (it does not exist)' : ''}`);
  return path;
}
