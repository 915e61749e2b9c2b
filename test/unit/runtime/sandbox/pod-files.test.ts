import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PodFiles } from '../../../../src/runtime/sandbox/pod-files.js';
import type { SandboxRecord } from '../../../../src/runtime/records.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function podsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'knode-pod-files-'));
  made.push(dir);
  return join(dir, 'pods');
}

const sandbox = (dns?: SandboxRecord['dns']) => ({ id: 's1', hostname: 'web-0', dns }) as SandboxRecord;

describe('PodFiles', () => {
  it("writes the pod's hostname and resolv.conf, and writes them again only when they change", async () => {
    const dir = podsDir();
    const files = new PodFiles(dir);
    const dns = { servers: ['10.96.0.10'], searches: ['default.svc.cluster.local'], options: ['ndots:5'] };
    const mounts = await files.mounts(sandbox(dns));
    expect(mounts.map((m) => [m.containerPath, m.hostPath])).toEqual([
      ['/etc/hostname', join(dir, 's1', 'hostname')],
      ['/etc/resolv.conf', join(dir, 's1', 'resolv.conf')],
    ]);
    expect(readFileSync(join(dir, 's1', 'hostname'), 'utf8')).toBe('web-0\n');
    expect(readFileSync(join(dir, 's1', 'resolv.conf'), 'utf8')).toBe(
      'search default.svc.cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n',
    );
    const inode = statSync(join(dir, 's1', 'resolv.conf')).ino;
    await files.mounts(sandbox(dns));
    expect(statSync(join(dir, 's1', 'resolv.conf')).ino).toBe(inode);
    await files.mounts(sandbox({ ...dns, servers: ['10.96.0.11'] }));
    expect(readFileSync(join(dir, 's1', 'resolv.conf'), 'utf8')).toContain('nameserver 10.96.0.11\n');
  });

  it('deletes them, and files asked for while they are being deleted are written after', async () => {
    const dir = podsDir();
    const files = new PodFiles(dir);
    await files.mounts(sandbox());
    const removed = files.remove('s1');
    const again = files.mounts(sandbox());
    await removed;
    await again;
    expect(readFileSync(join(dir, 's1', 'hostname'), 'utf8')).toBe('web-0\n');
    await files.remove('s1');
    expect(existsSync(join(dir, 's1'))).toBe(false);
  });
});
