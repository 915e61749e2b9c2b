// A sandboxed pod's /etc/hostname and /etc/resolv.conf, as containerd writes
// them for a sandbox: one directory per pod, bound into each of its
// containers, written when a container starts (only where they changed) and
// deleted with the pod's holder. They are kept in the runtime's scratch space
// (a tmpfs) where it has one: the runtime's shutdown and its next start
// empty it, and running containers keep the files they bound; a container
// started after that gets them written anew.
import { mkdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../util/atomic-file.js';
import { podHostname, type SandboxRecord } from '../records.js';
import type { SandboxMount } from './bubblewrap.js';

/** Where the pod's files are in each of its containers. */
export const POD_FILES = { hostname: '/etc/hostname', resolvConf: '/etc/resolv.conf' } as const;

export class PodFiles {
  /** The pods' directories being deleted, by sandbox id. */
  private readonly removing = new Map<string, Promise<void>>();

  /** `dir`: where each pod's directory is made. */
  constructor(private readonly dir: string) {}

  /** The pod's files, written where they changed (after a deletion of them under way), as its containers mount them. */
  async mounts(sandbox: SandboxRecord): Promise<SandboxMount[]> {
    await this.removing.get(sandbox.id);
    const dir = join(this.dir, sandbox.id);
    mkdirSync(dir, { recursive: true });
    const hostname = join(dir, 'hostname');
    const resolv = join(dir, 'resolv.conf');
    writeIfChanged(hostname, `${podHostname(sandbox)}\n`);
    writeIfChanged(resolv, resolvConf(sandbox.dns));
    return [
      { containerPath: POD_FILES.hostname, hostPath: hostname, readonly: false },
      { containerPath: POD_FILES.resolvConf, hostPath: resolv, readonly: false },
    ];
  }

  /**
   * Deletes the pod's files off this thread (ext4's unlinks are slow):
   * resolves once they are gone. Files asked for meanwhile
   * (a restart of the runtime releases every pod) are written after.
   */
  remove(sandboxId: string): Promise<void> {
    const removed: Promise<void> = rm(join(this.dir, sandboxId), { recursive: true, force: true })
      .catch(() => {}) // what is left is written again, or goes with the runtime's directory
      .finally(() => {
        if (this.removing.get(sandboxId) === removed) this.removing.delete(sandboxId);
      });
    this.removing.set(sandboxId, removed);
    return removed;
  }
}

/**
 * Writes a pod's file (atomically) unless it holds `text` already: each of
 * the pod's starts asks for it, and a rename over a file costs more than a
 * read (on ext4 it starts the writeback of the file it replaces).
 */
function writeIfChanged(path: string, text: string): void {
  try {
    if (readFileSync(path, 'utf8') === text) return;
  } catch {
    // not there yet
  }
  writeFileAtomic(path, text);
}

/** The pod's DNSConfig as resolv.conf; the host's file when the pod gave none. */
function resolvConf(dns: SandboxRecord['dns']): string {
  if (!dns || (dns.servers.length === 0 && dns.searches.length === 0 && dns.options.length === 0)) {
    try {
      return readFileSync('/etc/resolv.conf', 'utf8');
    } catch {
      return '';
    }
  }
  const lines = [
    ...(dns.searches.length ? [`search ${dns.searches.join(' ')}`] : []),
    ...dns.servers.map((s) => `nameserver ${s}`),
    ...(dns.options.length ? [`options ${dns.options.join(' ')}`] : []),
  ];
  return `${lines.join('\n')}\n`;
}
