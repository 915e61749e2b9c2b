import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, openSync, closeSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { Pod, Volume } from '../api/v1.js';
import { ObjectError, type ConfigData, type ObjectManager } from '../cluster/object-manager.js';
import type { PodAddresses } from '../kuberuntime/env.js';
import { writeAtomically, type VolumeFile } from './atomic-writer.js';
import { downwardApiFiles, type DownwardItem } from './downward-api.js';
import { setVolumeOwnership } from './ownership.js';
import { hostMounts, mountsUnder } from '../../util/mountinfo.js';

const run = promisify(execFile);

/** Why a volume cannot be set up (the kubelet's FailedMount); the pod stays Pending and is retried. */
export class VolumeError extends Error {
  override readonly name = 'VolumeError';
}

/** Each volume of a pod, by name, as the host path containers mount. */
export type PodVolumes = Map<string, string>;

/** The kubelet's default mode of projected files (configMap, secret, downwardAPI, projected). */
const DEFAULT_FILE_MODE = 0o644;
/** A projected service account token lives an hour unless the pod asks otherwise. */
const DEFAULT_TOKEN_SECONDS = 3600;

interface KeyToPath {
  key: string;
  path: string;
  mode?: number;
}

interface ObjectSource {
  name?: string;
  items?: KeyToPath[];
  optional?: boolean;
}

/** A pod's own directory under the root dir (the kubelet's /var/lib/kubelet/pods/<uid>): its volumes live in `volumes/`. */
export function podDir(rootDir: string, uid: string): string {
  return join(rootDir, 'kubelet', 'pods', uid);
}

/**
 * Removes the directory of a pod that is gone, as the kubelet's
 * cleanupOrphanedPodDirs does: what is still mounted under it (a Memory
 * emptyDir's tmpfs, mounted by another knode process) is unmounted first,
 * deepest first; a mount that stays keeps the directory, never emptied
 * through it.
 */
export async function removePodDirectory(rootDir: string, uid: string): Promise<void> {
  const dir = podDir(rootDir, uid);
  if (!existsSync(dir)) return;
  for (const mount of mountsUnder(hostMounts(), dir).reverse()) await run('umount', [mount]).catch(() => {});
  if (mountsUnder(hostMounts(), dir).length > 0) return;
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The kubelet's volume manager: emptyDir (a directory, or tmpfs for medium
 * Memory where the host lets it mount), hostPath (with its type checks),
 * downwardAPI, configMap, secret and projected volumes (those three with a
 * serviceAccountToken too), their files written atomically, and image
 * volumes (nothing here: their images are pulled by the sync and mounted by
 * the runtime). ConfigMaps, Secrets and tokens come from the apiserver;
 * without one (a standalone node) they fail with a clear FailedMount.
 * A persistentVolumeClaim is the directory the local apiserver keeps for the
 * claim (a standalone node only); a pod whose claim does not exist waits.
 */
export class VolumeManager {
  private readonly memoryMounts = new Set<string>();
  /** Each pod's claims once mounted (`<uid>/<volume>`): a claim deleted under a running pod stays its until the pod goes. */
  private readonly claimMounts = new Map<string, string>();

  constructor(
    private readonly rootDir: string,
    /** The pod's addresses for downward API files (its IP, the host's, the node's allocatable). */
    private readonly addressesOf: (pod: Pod) => PodAddresses,
    private readonly warn: (pod: Pod, message: string) => void,
    private readonly objects: ObjectManager,
    private readonly now: () => number,
  ) {}

  podDir(uid: string): string {
    return podDir(this.rootDir, uid);
  }

  /**
   * Sets up every volume of the pod (idempotent; downward API files are
   * rewritten), all at once, as the kubelet's reconciler mounts each volume
   * in an operation of its own. A failure is the first failing volume's, in
   * the pod's order, once every set-up has ended.
   */
  async waitForAttachAndMount(pod: Pod): Promise<PodVolumes> {
    const specs = pod.spec.volumes ?? [];
    const paths = await inOrder(specs.map((volume) => this.setUp(pod, volume)));
    return new Map(specs.map((volume, i) => [volume.name, paths[i]]));
  }

  private async setUp(pod: Pod, v: Volume): Promise<string> {
    const uid = pod.metadata.uid!;
    const dir = (plugin: string) => join(this.podDir(uid), 'volumes', plugin, v.name);
    if (v.emptyDir) return this.emptyDir(pod, dir('kubernetes.io~empty-dir'), v.emptyDir);
    if (v.hostPath) return hostPath(v.name, v.hostPath.path, v.hostPath.type ?? '');
    // Nothing on the node: the runtime mounts the image itself (its pull is the sync's, before containers start).
    if (v.image) return '';
    try {
      if (v.downwardAPI)
        return this.files(
          pod,
          dir('kubernetes.io~downward-api'),
          this.downwardFiles(pod, v.downwardAPI as { items?: DownwardItem[]; defaultMode?: number }),
        );
      if (v.configMap) {
        const source = v.configMap as ObjectSource & { defaultMode?: number };
        return this.files(pod, dir('kubernetes.io~configmap'), await this.objectFiles(pod, 'configMap', source, source.defaultMode));
      }
      if (v.secret) {
        const source = v.secret as ObjectSource & { secretName?: string; defaultMode?: number };
        return this.files(
          pod,
          dir('kubernetes.io~secret'),
          await this.objectFiles(pod, 'secret', { ...source, name: source.secretName }, source.defaultMode),
        );
      }
      if (v.persistentVolumeClaim) return await this.claim(pod, v.name, v.persistentVolumeClaim as { claimName?: string });
      if (v.projected)
        return this.files(
          pod,
          dir('kubernetes.io~projected'),
          await this.projectedFiles(pod, v.projected as { sources?: Record<string, unknown>[]; defaultMode?: number }),
        );
    } catch (err) {
      throw new VolumeError(`volume "${v.name}": ${(err as Error).message}`);
    }
    const kind = Object.keys(v).find((k) => k !== 'name') ?? 'unknown';
    throw new VolumeError(`volume "${v.name}": ${kind} volumes are not supported by knode`);
  }

  private async claim(pod: Pod, volume: string, source: { claimName?: string }): Promise<string> {
    const key = `${pod.metadata.uid}/${volume}`;
    const mounted = this.claimMounts.get(key);
    if (mounted) return mounted;
    const path = await this.objects.claimPath(pod.metadata.namespace!, source.claimName ?? '');
    this.claimMounts.set(key, path);
    return path;
  }

  private downwardFiles(pod: Pod, source: { items?: (DownwardItem & { mode?: number })[]; defaultMode?: number }): Map<string, VolumeFile> {
    const items = source.items ?? [];
    const contents = downwardApiFiles(pod, items, this.addressesOf(pod));
    const modes = new Map(items.map((i) => [i.path, i.mode]));
    return new Map(
      [...contents].map(([path, text]) => [
        path,
        { data: Buffer.from(text), mode: modes.get(path) ?? source.defaultMode ?? DEFAULT_FILE_MODE },
      ]),
    );
  }

  /** A configMap's or secret's keys as files (all of them, or the listed items). */
  private async objectFiles(
    pod: Pod,
    kind: 'configMap' | 'secret',
    source: ObjectSource,
    defaultMode: number | undefined,
  ): Promise<Map<string, VolumeFile>> {
    const name = source.name ?? '';
    let data: ConfigData;
    try {
      data =
        kind === 'configMap'
          ? await this.objects.configMap(pod.metadata.namespace!, name)
          : await this.objects.secret(pod.metadata.namespace!, name);
    } catch (err) {
      if (err instanceof ObjectError && err.notFound && source.optional) return new Map();
      throw err;
    }
    const mode = (m?: number) => m ?? defaultMode ?? DEFAULT_FILE_MODE;
    if (!source.items) return new Map([...data].map(([key, value]) => [key, { data: value, mode: mode() }]));
    const files = new Map<string, VolumeFile>();
    for (const item of source.items) {
      const value = data.get(item.key);
      if (value === undefined) {
        if (source.optional) continue;
        throw new Error(`${kind.toLowerCase()} "${name}" has no key "${item.key}"`);
      }
      files.set(item.path, { data: value, mode: mode(item.mode) });
    }
    return files;
  }

  private async projectedFiles(
    pod: Pod,
    projected: { sources?: Record<string, unknown>[]; defaultMode?: number },
  ): Promise<Map<string, VolumeFile>> {
    const files = new Map<string, VolumeFile>();
    const add = (more: Map<string, VolumeFile>) => {
      for (const [path, file] of more) {
        if (files.has(path)) throw new Error(`projected sources write "${path}" twice`);
        files.set(path, file);
      }
    };
    // The sources are asked for at once (a token and a ConfigMap are two calls to the apiserver), and
    // projected in their order: a path two of them write, or the first failure, is the kubelet's.
    const each = await inOrder(
      (projected.sources ?? []).map(async (source): Promise<Map<string, VolumeFile>> => {
        const [kind, body] = Object.entries(source)[0] ?? [];
        if (kind === 'downwardAPI') return this.downwardFiles(pod, { ...(body as object), defaultMode: projected.defaultMode });
        if (kind === 'configMap' || kind === 'secret') return this.objectFiles(pod, kind, body as ObjectSource, projected.defaultMode);
        if (kind === 'serviceAccountToken') {
          const t = body as { audience?: string; expirationSeconds?: number; path: string };
          const token = await this.objects.serviceAccountToken(pod, t.audience ?? '', t.expirationSeconds ?? DEFAULT_TOKEN_SECONDS);
          // With an fsGroup the token is 0600, and the ownership change makes it 0640 (as the kubelet).
          const mode = fsGroupOf(pod) !== undefined ? 0o600 : (projected.defaultMode ?? DEFAULT_FILE_MODE);
          return new Map([[t.path, { data: Buffer.from(token), mode }]]);
        }
        throw new Error(`projected ${kind ?? 'unknown'} sources are not supported by knode`);
      }),
    );
    for (const more of each) add(more);
    return files;
  }

  private async emptyDir(pod: Pod, path: string, spec: { medium?: string; sizeLimit?: string | number }): Promise<string> {
    const fresh = !existsSync(path);
    if (fresh) {
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
    // Once, at set-up, as the kubelet (its ready file makes later set-ups return early); errors are its log lines.
    if (fresh)
      try {
        setVolumeOwnership(path, fsGroupOf(pod), false);
      } catch {
        // The kubelet ignores what ChangePermissions returns for an emptyDir.
      }
    return path;
  }

  /** A read-only volume's files, and its ownership by the pod's fsGroup whenever a new version is written. */
  private files(pod: Pod, dir: string, files: Map<string, VolumeFile>): string {
    writeAtomically(dir, files, this.now(), () => setVolumeOwnership(dir, fsGroupOf(pod), true));
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
    for (const key of [...this.claimMounts.keys()]) if (key.startsWith(`${uid}/`)) this.claimMounts.delete(key);
  }
}

/**
 * The group the kubelet gives the pod's volumes. The policy (fsGroupChangePolicy)
 * is not passed on: the kubelet's emptyDir, configMap, secret, downwardAPI and
 * projected plugins all change ownership recursively whatever it says.
 */
function fsGroupOf(pod: Pod): number | undefined {
  return (pod.spec.securityContext as { fsGroup?: number } | undefined)?.fsGroup;
}

/** A hostPath volume after its type check (and creation, for the OrCreate types). */
function hostPath(volume: string, path: string, type: string): string {
  const kind = () => {
    try {
      const s = statSync(path);
      return s.isDirectory()
        ? 'Directory'
        : s.isFile()
          ? 'File'
          : s.isSocket()
            ? 'Socket'
            : s.isCharacterDevice()
              ? 'CharDevice'
              : s.isBlockDevice()
                ? 'BlockDevice'
                : 'other';
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
        if (!existsSync(dirname(path)))
          throw new VolumeError(`volume "${volume}": hostPath type check failed: ${dirname(path)} does not exist`);
        closeSync(openSync(path, 'a', 0o644));
      }
      break;
  }
  const expected = type.replace('OrCreate', '');
  const actual = kind();
  if (actual !== expected)
    throw new VolumeError(
      `volume "${volume}": hostPath type check failed: ${path} is not a ${expected}${actual === 'missing' ? ' (it does not exist)' : ''}`,
    );
  return path;
}

/** The values of WORK in their order once all have settled; else the first rejection in that order. */
async function inOrder<T>(work: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(work);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<T>).value);
}
