// Real pulls on every runtime from one registry: the local registry of the
// global setup (test/setup/peers.ts) is docker.io's mirror for both
// containerds (their hosts.toml) and for an embedded runtime (its
// registries.yaml). Each pulls an image with an Entrypoint and runs it
// without a command, and fails a pull of a tag the registry does not have.
import { readFileSync, rmSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import type { CriError } from '../../src/cri/errors.js';
import { containerConfig, logPathOf, sandboxConfig, waitExited } from '../helpers/cri.js';
import { mirrorConfig } from '../helpers/registry.js';
import { startEmbeddedRuntime, type EmbeddedRuntimeProcess } from '../helpers/runtimes.js';

const registry = inject('registry');
let embedded: EmbeddedRuntimeProcess;

beforeAll(async () => {
  const root = mkdtempSync(join(tmpdir(), 'knode-mirror-'));
  writeFileSync(join(root, 'registries.yaml'), mirrorConfig(registry.host));
  embedded = await startEmbeddedRuntime(root);
});

afterAll(async () => {
  await embedded?.stop();
  if (embedded) rmSync(embedded.rootDir, { recursive: true, force: true });
});

const runtimes = [
  { name: 'embedded (registries.yaml)', endpoint: () => embedded.endpoint },
  ...(inject('containerdEndpoint') ? [{ name: 'containerd 1.6 (hosts.toml)', endpoint: () => inject('containerdEndpoint') }] : []),
  ...(inject('containerd2Endpoint') ? [{ name: 'containerd 2 (hosts.toml)', endpoint: () => inject('containerd2Endpoint') }] : []),
];

describe.each(runtimes)('pulls from the local registry on $name', ({ endpoint }) => {
  it("pulls docker.io/library/busybox-entrypoint:1.0 from the mirror and runs the image's own entrypoint", async () => {
    const client = new CriClient(endpoint());
    try {
      const ref = await client.pullImage({ image: 'busybox-entrypoint:1.0' });
      const manifest = await fetch(`http://${registry.host}/v2/library/busybox-entrypoint/manifests/1.0`, {
        headers: { accept: 'application/vnd.docker.distribution.manifest.v2+json' },
      });
      const status = await client.imageStatus({ image: 'busybox-entrypoint:1.0' });
      expect(status?.repoDigests).toContain(`docker.io/library/busybox-entrypoint@${manifest.headers.get('docker-content-digest')}`);
      expect(ref).toBe(status?.id);
      const sandbox = sandboxConfig('mirror-pull');
      const sandboxId = await client.runPodSandbox(sandbox);
      const config = containerConfig('entry', [], { image: { image: 'busybox-entrypoint:1.0' } });
      const id = await client.createContainer(sandboxId, config, sandbox);
      await client.startContainer(id);
      expect((await waitExited(client, id)).exitCode).toBe(0);
      expect(readFileSync(logPathOf(sandbox, config), 'utf8')).toMatch(/ stdout F entrypoint hello\n$/);
      await client.removePodSandbox(sandboxId);
    } finally {
      client.close();
    }
  });

  it("fails the pull of a tag the registry does not have, with the registry's reason", async () => {
    const client = new CriClient(endpoint());
    try {
      const err = await client.pullImage({ image: 'busybox:no-such-tag' }).catch((e: CriError) => e);
      expect((err as CriError).details).toMatch(/docker\.io\/library\/busybox:no-such-tag.*not found/i);
    } finally {
      client.close();
    }
  });
});
