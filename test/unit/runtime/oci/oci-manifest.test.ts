import { describe, expect, it } from 'vitest';
import { credentialsFor, parseChallenge } from '../../../../src/runtime/oci/auth.js';
import {
  MediaType,
  parseImageConfig,
  parseManifest,
  selectManifest,
  type Descriptor,
  type Platform,
} from '../../../../src/runtime/oci/manifest.js';
import { endpointsFor, parseRegistryConfig } from '../../../../src/runtime/oci/registry-config.js';
import type { AuthConfig__Output } from '../../../../src/cri/gen/runtime/v1/AuthConfig.js';

const digest = (c: string) => `sha256:${c.repeat(64)}`;
const entry = (c: string, platform?: Platform, mediaType: string = MediaType.ociManifest): Descriptor => ({
  mediaType,
  digest: digest(c),
  size: 100,
  platform,
});

describe('selectManifest', () => {
  const index = {
    mediaType: MediaType.ociIndex,
    manifests: [
      entry('a', { os: 'linux', architecture: 'arm64', variant: 'v8' }),
      entry('b', { os: 'linux', architecture: 'amd64' }),
      entry('c', { os: 'linux', architecture: 'arm', variant: 'v6' }),
      entry('d', { os: 'linux', architecture: 'arm', variant: 'v7' }),
      entry('e', { os: 'windows', architecture: 'amd64' }),
      entry('f', { os: 'unknown', architecture: 'unknown' }),
      entry('9'),
    ],
  };
  it.each<[string, Platform, string]>([
    ['linux/amd64, not the arm64 entry listed first', { os: 'linux', architecture: 'amd64' }, 'b'],
    ['arm64 without a variant as v8', { os: 'linux', architecture: 'arm64' }, 'a'],
    ['arm64/v8', { os: 'linux', architecture: 'arm64', variant: 'v8' }, 'a'],
    ['arm/v7 over arm/v6', { os: 'linux', architecture: 'arm', variant: 'v7' }, 'd'],
    ['arm/v6', { os: 'linux', architecture: 'arm', variant: 'v6' }, 'c'],
    ['windows when asked for', { os: 'windows', architecture: 'amd64' }, 'e'],
  ])('picks %s', (_, platform, want) => {
    expect(selectManifest(index, platform).digest).toBe(digest(want));
  });

  it('names what the index has when nothing matches', () => {
    expect(() => selectManifest(index, { os: 'linux', architecture: 's390x' })).toThrow(
      'no image for platform linux/s390x (the index has: linux/arm64/v8, linux/amd64, linux/arm/v6, linux/arm/v7, windows/amd64, unknown/unknown, unknown)',
    );
  });
});

describe('parseManifest', () => {
  const layer = { mediaType: MediaType.ociLayerGzip, digest: digest('1'), size: 10 };
  const config = { mediaType: MediaType.ociConfig, digest: digest('2'), size: 5 };
  const json = (doc: object) => Buffer.from(JSON.stringify(doc));

  it.each([
    ['an OCI index', { schemaVersion: 2, mediaType: MediaType.ociIndex, manifests: [entry('a')] }, '', MediaType.ociIndex],
    ['a Docker manifest list', { schemaVersion: 2, mediaType: MediaType.dockerList, manifests: [entry('a')] }, '', MediaType.dockerList],
    ['an OCI manifest', { schemaVersion: 2, mediaType: MediaType.ociManifest, config, layers: [layer] }, '', MediaType.ociManifest],
    [
      'a Docker v2 manifest',
      { schemaVersion: 2, mediaType: MediaType.dockerManifest, config, layers: [{ ...layer, mediaType: MediaType.dockerLayerGzip }] },
      '',
      MediaType.dockerManifest,
    ],
    [
      'an OCI manifest without mediaType, from Content-Type',
      { schemaVersion: 2, config, layers: [layer] },
      MediaType.ociManifest,
      MediaType.ociManifest,
    ],
  ])('reads %s', (_, doc, contentType, mediaType) => {
    expect(parseManifest(json(doc), contentType).mediaType).toBe(mediaType);
  });

  it.each([
    ['Docker schema 1', { schemaVersion: 1, name: 'x' }, /schema 1/],
    [
      'a zstd layer',
      { schemaVersion: 2, mediaType: MediaType.ociManifest, config, layers: [{ ...layer, mediaType: MediaType.ociLayerZstd }] },
      /zstd/,
    ],
    [
      'a digest that could name a path',
      { schemaVersion: 2, mediaType: MediaType.ociManifest, config, layers: [{ ...layer, digest: 'sha256:../../etc' }] },
      /malformed digest/,
    ],
    [
      'sha512 digests',
      { schemaVersion: 2, mediaType: MediaType.ociManifest, config: { ...config, digest: `sha512:${'a'.repeat(128)}` }, layers: [] },
      /unsupported or malformed digest/,
    ],
    ['an unknown media type', { schemaVersion: 2, mediaType: 'application/vnd.example+json' }, /unsupported manifest media type/],
  ])('refuses %s', (_, doc, message) => {
    expect(() => parseManifest(json(doc), '')).toThrow(message);
  });

  it('checks the config names as many layers as the manifest', () => {
    expect(() => parseImageConfig(json({ rootfs: { type: 'layers', diff_ids: [digest('1')] } }), 2)).toThrow(
      'image config names 1 layers, the manifest 2',
    );
  });
});

describe('registries.yaml', () => {
  it('tries the mirrors first, then the registry; docker.io is registry-1.docker.io', () => {
    const config = parseRegistryConfig({
      registries: {
        'docker.io': { mirrors: ['http://127.0.0.1:5000', 'https://mirror.example/v2/'] },
        '127.0.0.1:5000': { insecure: true },
      },
    });
    expect(endpointsFor(config, 'docker.io')).toEqual([
      { base: 'http://127.0.0.1:5000', host: '127.0.0.1:5000', httpFallback: false },
      { base: 'https://mirror.example', host: 'mirror.example', httpFallback: false },
      { base: 'https://registry-1.docker.io', host: 'registry-1.docker.io', httpFallback: false },
    ]);
  });

  it('an insecure registry named without a scheme tries HTTPS, then plain HTTP', () => {
    const config = parseRegistryConfig({ registries: { 'localhost:5000': { insecure: true } } });
    expect(endpointsFor(config, 'localhost:5000')).toEqual([
      { base: 'https://localhost:5000', host: 'localhost:5000', httpFallback: true },
    ]);
    expect(endpointsFor(config, 'quay.io')).toEqual([{ base: 'https://quay.io', host: 'quay.io', httpFallback: false }]);
  });

  it('server: none leaves only the mirrors', () => {
    const config = parseRegistryConfig({ registries: { 'docker.io': { mirrors: ['https://m.example'], server: 'none' } } });
    expect(endpointsFor(config, 'docker.io').map((e) => e.host)).toEqual(['m.example']);
  });

  it.each([
    [
      'plain HTTP to a host not marked insecure',
      { registries: { 'docker.io': { mirrors: ['http://10.0.0.1:5000'] } } },
      /plain HTTP; allow it with "insecure: true" under registries."10.0.0.1:5000"/,
    ],
    ['an unknown key', { registries: { 'docker.io': { mirror: ['x'] } } }, /unknown key "mirror"/],
    ['a bad platform', { platform: 'linux' }, /bad platform/],
    ['nowhere to pull from', { registries: { 'docker.io': { server: 'none' } } }, /nowhere to pull from/],
  ])('refuses %s', (_, doc, message) => {
    expect(() => parseRegistryConfig(doc)).toThrow(message);
  });

  it('an empty file means: real pulls, straight from each registry, for the host platform', () => {
    const config = parseRegistryConfig({});
    expect(config.registries).toEqual({});
    expect(config.platform.os).toBe('linux');
  });
});

describe('auth', () => {
  it('parses a bearer challenge', () => {
    expect(
      parseChallenge('Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/busybox:pull"'),
    ).toEqual({
      scheme: 'bearer',
      params: { realm: 'https://auth.docker.io/token', service: 'registry.docker.io', scope: 'repository:library/busybox:pull' },
    });
    expect(parseChallenge('Basic realm="Registry Realm"')).toEqual({ scheme: 'basic', params: { realm: 'Registry Realm' } });
  });

  const auth = (fields: Partial<AuthConfig__Output>): AuthConfig__Output => ({
    username: '',
    password: '',
    auth: '',
    serverAddress: '',
    identityToken: '',
    registryToken: '',
    ...fields,
  });

  it('takes the CRI AuthConfig: user and password, or base64 auth', () => {
    expect(credentialsFor(auth({ username: 'u', password: 'p' }), ['r.example'])).toEqual({ username: 'u', password: 'p' });
    expect(credentialsFor(auth({ auth: Buffer.from('me:se:cret').toString('base64') }), ['r.example'])).toEqual({
      username: 'me',
      password: 'se:cret',
    });
    expect(credentialsFor(auth({}), ['r.example'])).toBeUndefined();
  });

  it('sends credentials only to the server they name', () => {
    expect(credentialsFor(auth({ username: 'u', password: 'p', serverAddress: 'https://other.example' }), ['r.example'])).toBeUndefined();
    expect(
      credentialsFor(auth({ username: 'u', password: 'p', serverAddress: 'https://index.docker.io/v1/' }), [
        'registry-1.docker.io',
        'docker.io',
      ]),
    ).toEqual({ username: 'u', password: 'p' });
  });
});
