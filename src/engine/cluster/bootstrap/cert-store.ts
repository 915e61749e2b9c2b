// The kubelet's certificate file store (client-go's util/certificate
// fileStore): each pair written whole to <prefix>-<timestamp>.pem (the
// certificates, then the key), and <prefix>-current.pem a symlink to the one
// in use, switched by renaming a new symlink over it.
import { X509Certificate } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { makeDirectory } from '../../../util/atomic-file.js';
import { certificatesOf } from './token.js';

export interface StoredPair {
  /** The leaf certificate. */
  cert: X509Certificate;
  /** The whole file: certificates then key. */
  pem: string;
}

export class CertificateStore {
  constructor(
    readonly dir: string,
    /** kubelet-client or kubelet-server. */
    readonly prefix: string,
  ) {}

  /** The path a kubeconfig (or a TLS server) names: the symlink to the pair in use. */
  get currentPath(): string {
    return join(this.dir, `${this.prefix}-current.pem`);
  }

  /** The pair in use, or undefined when there is none (or it cannot be read). */
  current(): StoredPair | undefined {
    if (!existsSync(this.currentPath)) return undefined;
    try {
      const pem = readFileSync(this.currentPath, 'utf8');
      const cert = certificatesOf(pem)[0];
      if (!cert || !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) return undefined;
      return { cert, pem };
    } catch {
      return undefined;
    }
  }

  /** Writes a new pair and makes it current; returns its leaf certificate. */
  update(certPem: string, keyPem: string, now = new Date()): X509Certificate {
    const certs = certificatesOf(certPem);
    if (certs.length === 0) throw new Error('invalid certificate data: no certificate in it');
    makeDirectory(this.dir, 0o755);
    const path = join(this.dir, `${this.prefix}-${timestamp(now)}.pem`);
    writeFileSync(path, `${certs.map((c) => c.toString()).join('')}${keyPem.trim()}\n`, { mode: 0o600 });
    const updated = join(this.dir, `${this.prefix}-updated.pem`);
    for (const link of [this.currentPath, updated]) {
      if (existsSync(link) || isSymlink(link)) if (!isSymlink(link)) throw new Error(`expected "${link}" to be a symlink but it is a file`);
    }
    rmSync(updated, { force: true });
    symlinkSync(basename(path), updated);
    renameSync(updated, this.currentPath);
    return certs[0]!;
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Go's "2006-01-02-15-04-05" in local time, as the store names its files. */
function timestamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}-${p(d.getHours())}-${p(d.getMinutes())}-${p(d.getSeconds())}`;
}
