// The local registry of test/registry/registry.sh for the image tests, and a
// second registry in front of the same storage that wants bearer tokens from
// a token server run here (RS256 JWTs, as Docker Hub's auth server issues).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createSign, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CriClient } from '../../src/cri/client.js';
import { eventually, startEmbeddedRuntime, type EmbeddedRuntimeProcess } from './runtimes.js';
import { freePort } from './controlplane.js';

const script = join(import.meta.dirname, '../registry/registry.sh');

export interface LocalRegistry {
  url: string;
  host: string;
  storage: string;
  images: { busybox: string; entrypoint: string; user: string; layers: string; corrupt: string; evil: string };
  stop(): void;
}

/** registry.sh up: Debian's docker-registry on a free loopback port, seeded (a few seconds; ~1 min the first time, building the images). */
export function startRegistry(): LocalRegistry {
  const dir = mkdtempSync(join(tmpdir(), 'knode-registry-'));
  const out = execFileSync('bash', [script, 'up', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return {
    ...(JSON.parse(out) as Omit<LocalRegistry, 'stop'>),
    stop: () => execFileSync('bash', [script, 'down', dir], { stdio: 'inherit' }),
  };
}

/** `registries.yaml` that sends docker.io to the local registry only, and allows plain HTTP to it. */
export function mirrorConfig(host: string, extra = ''): string {
  return `registries:\n  docker.io:\n    mirrors: ["http://${host}"]\n    server: none\n  "${host}":\n    insecure: true\n${extra}`;
}

export interface TokenRegistry {
  host: string;
  user: string;
  password: string;
  /** Tokens the server issued. */
  issued: number;
  stop(): Promise<void>;
}

function base64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

/**
 * A docker-registry that serves `storage` (read only, beside the seeded one)
 * behind token auth, and the token server it trusts: it grants pull tokens to
 * `user`/`password` and refuses everyone else.
 */
export async function startTokenRegistry(storage: string): Promise<TokenRegistry> {
  const dir = mkdtempSync(join(tmpdir(), 'knode-token-registry-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
      '-days',
      '1',
      '-subj',
      '/CN=knode-test-token',
    ],
    { stdio: 'ignore' },
  );
  const key = readFileSync(join(dir, 'key.pem'), 'utf8');
  const certDer = readFileSync(join(dir, 'cert.pem'), 'utf8').replace(/-----[^-]+-----|\s/g, '');
  const state = { issued: 0 };
  const user = 'knode';
  const password = 'pull-secret';
  const tokens: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const expected = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    if (req.headers.authorization !== expected) {
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ errors: [{ code: 'UNAUTHORIZED', message: 'wrong or missing credentials' }] }));
      return;
    }
    const now = Math.floor(Date.now() / 1000);
    const access = url.searchParams.getAll('scope').map((scope) => {
      const [type, name] = scope.split(':');
      return { type, name, actions: ['pull'] };
    });
    const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT', x5c: [certDer] }));
    const claims = base64url(
      JSON.stringify({
        iss: 'knode-test-issuer',
        sub: user,
        aud: url.searchParams.get('service'),
        exp: now + 300,
        nbf: now - 10,
        iat: now,
        jti: randomUUID(),
        access,
      }),
    );
    const signature = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(key);
    state.issued++;
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ token: `${header}.${claims}.${base64url(signature)}` }));
  });
  await new Promise<void>((resolve) => tokens.listen(0, '127.0.0.1', resolve));
  const tokenPort = (tokens.address() as { port: number }).port;
  const port = await freePort();
  writeFileSync(
    join(dir, 'config.yml'),
    `version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: ${storage}\n  maintenance:\n    readonly:\n      enabled: true\nhttp:\n  addr: 127.0.0.1:${port}\nauth:\n  token:\n    realm: http://127.0.0.1:${tokenPort}/token\n    service: knode-test-registry\n    issuer: knode-test-issuer\n    rootcertbundle: ${join(dir, 'cert.pem')}\n`,
  );
  const child: ChildProcess = spawn('docker-registry', ['serve', join(dir, 'config.yml')], { stdio: 'ignore' });
  const host = `127.0.0.1:${port}`;
  await eventually(async () => (await fetch(`http://${host}/v2/`).catch(() => undefined))?.status === 401, 'the token registry to answer');
  return {
    host,
    user,
    password,
    get issued() {
      return state.issued;
    },
    stop: async () => {
      child.kill();
      await new Promise<void>((resolve) => tokens.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The local registry, and an embedded runtime (with sandboxes, where the host allows) that pulls from it. */
export interface ImageRuntime {
  registry: LocalRegistry;
  runtime: EmbeddedRuntimeProcess;
  client: CriClient;
  /** The runtime's root dir. */
  root: string;
  /** Removes every pod, closes the client, stops the runtime and the registry, and removes the root dir. */
  stop(): Promise<void>;
}

/**
 * Starts both, with `images` pulled; `prepare` writes what the runtime needs
 * in its root dir before it starts; `wrapper` runs the runtime.
 */
export async function startImageRuntime(
  prefix: string,
  images: readonly string[],
  prepare: (root: string) => void = () => {},
  wrapper: string[] = [],
): Promise<ImageRuntime> {
  const registry = startRegistry();
  const root = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(root, 'registries.yaml'), mirrorConfig(registry.host));
  prepare(root);
  const runtime = await startEmbeddedRuntime(root, [], wrapper);
  const client = new CriClient(runtime.endpoint);
  // Every suite on this helper tests sandboxes: one that starts without them says why, not what it then misses.
  const sandboxes = (await client.status()).status!.conditions.find((c) => c.type === 'ContainerSandboxReady');
  if (!sandboxes?.status) {
    client.close();
    await runtime.stop();
    registry.stop();
    throw new Error(`the embedded runtime in ${root} has no sandboxes: ${sandboxes?.message ?? 'no ContainerSandboxReady condition'}`);
  }
  for (const image of images) await client.pullImage({ image });
  return {
    registry,
    runtime,
    client,
    root,
    stop: async () => {
      // Pods outlive their runtime (their holders hold their namespaces), so they go first.
      for (const pod of await client.listPodSandbox()) await client.removePodSandbox(pod.id);
      client.close();
      await runtime.stop();
      registry.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
