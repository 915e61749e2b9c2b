// `knode image pull|ls|rm|import` as a user runs them: bin/run.js against the
// embedded runtime it starts itself, with a registries.yaml that sends
// docker.io to the local registry (test/registry/registry.sh).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knode } from '../helpers/cli.js';
import { mirrorConfig, startRegistry, type LocalRegistry } from '../helpers/registry.js';

let registry: LocalRegistry;
let root: string;

beforeAll(() => {
  registry = startRegistry();
  root = mkdtempSync(join(tmpdir(), 'knode-image-cli-'));
  writeFileSync(join(root, 'registries.yaml'), mirrorConfig(registry.host));
}, 180_000);

afterAll(async () => {
  if (root) {
    await knode(['runtime', 'stop', '--root-dir', root]);
    rmSync(root, { recursive: true, force: true });
  }
  registry?.stop();
});

describe('knode image', () => {
  it('pulls, lists and removes an image; runtime status says where images come from', async () => {
    const pull = await knode(['image', 'pull', 'busybox:1.36', '--root-dir', root]);
    expect(pull.stderr).toBe('');
    expect(pull.stdout).toMatch(/^pulled busybox:1.36: sha256:[a-f0-9]{64} \(1.09MB\) in \d+\.\d+ s\n$/);
    const ls = await knode(['image', 'ls', '--root-dir', root]);
    expect(ls.stdout).toMatch(/^IMAGE\s+TAG\s+IMAGE ID\s+SIZE\ndocker.io\/library\/busybox\s+1.36\s+[a-f0-9]{13}\s+1.09MB\n$/);
    const status = await knode(['runtime', 'status', '--root-dir', root]);
    expect(status.stdout).toContain(`Image store:   pulled from registries (${join(root, 'registries.yaml')})`);
    const rm = await knode(['image', 'rm', 'busybox:1.36', 'busybox:gone', '--root-dir', root]);
    expect(rm.stdout).toMatch(/^deleted busybox:1.36 \(sha256:[a-f0-9]{64}\)\n$/);
    expect(rm.stderr).toContain('Error: no such image: busybox:gone');
    expect(rm.code).toBe(1);
    expect((await knode(['image', 'ls', '--root-dir', root])).stdout).toBe('IMAGE   TAG   IMAGE ID   SIZE\n');
  });

  it("fails a pull with the registry's reason and exit code 1", async () => {
    const pull = await knode(['image', 'pull', 'busybox:no-such-tag', '--root-dir', root]);
    expect(pull.code).toBe(1);
    expect(pull.stderr).toContain(`${registry.host}: 404 Not Found: manifest unknown (MANIFEST_UNKNOWN)`);
  });

  it("knode apply pulls a pod's image from the registry, and reports ErrImagePull with the registry's reason for a missing tag", async () => {
    const pod = (name: string, image: string) =>
      `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  containers:\n    - name: app\n      image: ${image}\n      command: ["sh", "-c", "trap \\"exit 143\\" TERM; sleep 60 & wait"]\n`;
    writeFileSync(join(root, 'good.yaml'), pod('pulled', 'busybox:1.36'));
    const good = await knode(['apply', '-f', join(root, 'good.yaml'), '--root-dir', root, '--node-name', 'e2e']);
    expect(good.code, good.stderr).toBe(0);
    expect((await knode(['image', 'ls', '--root-dir', root])).stdout).toMatch(/docker.io\/library\/busybox\s+1.36/);
    writeFileSync(join(root, 'bad.yaml'), pod('nopull', 'busybox:no-such-tag'));
    const bad = await knode(['apply', '-f', join(root, 'bad.yaml'), '--root-dir', root, '--node-name', 'e2e']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(
      /default\/nopull-e2e: ErrImagePull: container app: failed to pull and unpack image "docker\.io\/library\/busybox:no-such-tag"/,
    );
    expect(bad.stderr).toContain('manifest unknown (MANIFEST_UNKNOWN)');
    await knode(['delete', '-f', join(root, 'good.yaml'), '--root-dir', root, '--node-name', 'e2e']);
  });

  it('imports an OCI layout tarball', async () => {
    const archive = execFileSync('bash', [join(import.meta.dirname, '../containerd/containerd.sh'), 'image'], { encoding: 'utf8' }).trim();
    const imported = await knode(['image', 'import', archive, '--base-name', 'docker.io/library/busybox', '--root-dir', root]);
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toMatch(/docker.io\/library\/busybox\s+1.36\s+[a-f0-9]{13}\s+1.09MB/);
    const untagged = await knode(['image', 'import', archive, '--root-dir', root]);
    expect(untagged.code).toBe(1);
    expect(untagged.stderr).toContain('--base-name');
  });
});
