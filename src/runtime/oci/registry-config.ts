// `<root-dir>/registries.yaml`: which hosts serve a registry's images, in
// the shape of containerd's hosts.toml (one entry per registry name: mirrors
// tried in order, then the registry's own server), written in YAML like the
// rest of knode's files. Its presence is what turns real pulls on.
//
//   registries:
//     docker.io:
//       mirrors: [http://127.0.0.1:5000]   # tried first, in order
//       server: none                       # default https://registry-1.docker.io; none = mirrors only
//     127.0.0.1:5000:
//       insecure: true                     # plain HTTP allowed to this host
//   platform: linux/amd64                  # default: the host's
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { hostPlatform, parsePlatform, type Platform } from './manifest.js';

export interface RegistryEntry {
  mirrors: string[];
  /** The registry's own endpoint; `none` leaves only the mirrors. */
  server?: string;
  insecure: boolean;
}

export interface RegistryConfig {
  registries: Record<string, RegistryEntry>;
  platform: Platform;
  /** The file it came from, for messages. */
  file?: string;
}

/** One place a registry's API answers: a base URL (`<base>/v2/...`). */
export interface RegistryEndpoint {
  /** `https://host[:port][/path]`, no trailing slash. */
  base: string;
  /** host[:port], as messages and credentials name it. */
  host: string;
  /** Try plain HTTP when HTTPS cannot connect (an insecure host named without a scheme). */
  httpFallback: boolean;
}

export class RegistryConfigError extends Error {
  override readonly name = 'RegistryConfigError';
}

export const DOCKER_HUB_SERVER = 'https://registry-1.docker.io';

export function loadRegistryConfig(file: string): RegistryConfig {
  let doc: unknown;
  try {
    doc = parse(readFileSync(file, 'utf8')) ?? {};
  } catch (err) {
    throw new RegistryConfigError(`${file}: ${(err as Error).message}`);
  }
  try {
    return { ...parseRegistryConfig(doc), file };
  } catch (err) {
    throw new RegistryConfigError(`${file}: ${(err as Error).message}`);
  }
}

export function parseRegistryConfig(doc: unknown): RegistryConfig {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new RegistryConfigError('want a mapping with "registries" (and "platform")');
  const { registries = {}, platform, ...rest } = doc as Record<string, unknown>;
  const unknownKeys = Object.keys(rest);
  if (unknownKeys.length) throw new RegistryConfigError(`unknown key "${unknownKeys[0]}" (known: registries, platform)`);
  if (typeof registries !== 'object' || registries === null || Array.isArray(registries))
    throw new RegistryConfigError('"registries" must map registry names to settings');
  const out: RegistryConfig = { registries: {}, platform: platform === undefined ? hostPlatform() : parsePlatform(String(platform)) };
  for (const [name, raw] of Object.entries(registries as Record<string, unknown>)) {
    const entry = (raw ?? {}) as Record<string, unknown>;
    const { mirrors = [], server, insecure = false, ...extra } = entry;
    if (Object.keys(extra).length)
      throw new RegistryConfigError(`registries.${name}: unknown key "${Object.keys(extra)[0]}" (known: mirrors, server, insecure)`);
    if (!Array.isArray(mirrors) || mirrors.some((m) => typeof m !== 'string'))
      throw new RegistryConfigError(`registries.${name}.mirrors must be a list of URLs`);
    if (server !== undefined && typeof server !== 'string')
      throw new RegistryConfigError(`registries.${name}.server must be a URL or "none"`);
    if (typeof insecure !== 'boolean') throw new RegistryConfigError(`registries.${name}.insecure must be true or false`);
    out.registries[name] = { mirrors: mirrors as string[], server, insecure };
  }
  // Every endpoint is checked now, so a plain-HTTP mirror without `insecure` fails at start, not at the first pull.
  for (const name of Object.keys(out.registries)) endpointsFor(out, name);
  return out;
}

function isInsecure(config: RegistryConfig, host: string): boolean {
  return config.registries[host]?.insecure === true;
}

function endpoint(config: RegistryConfig, registry: string, url: string): RegistryEndpoint {
  const schemed = /^[a-z][a-z0-9+.-]*:\/\//i.test(url);
  let parsed: URL;
  try {
    parsed = new URL(schemed ? url : `https://${url}`);
  } catch {
    throw new RegistryConfigError(`registries.${registry}: "${url}" is not a URL`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new RegistryConfigError(`registries.${registry}: "${url}": only http and https`);
  const host = parsed.host;
  const insecure = isInsecure(config, host);
  if (parsed.protocol === 'http:' && !insecure) {
    throw new RegistryConfigError(
      `registries.${registry}: "${url}" is plain HTTP; allow it with "insecure: true" under registries."${host}"`,
    );
  }
  const base = `${parsed.protocol}//${host}${parsed.pathname.replace(/\/+$/, '').replace(/\/v2$/, '')}`;
  return { base, host, httpFallback: !schemed && insecure };
}

/** The endpoints to try for images of `registry` (a reference's domain), in order. */
export function endpointsFor(config: RegistryConfig, registry: string): RegistryEndpoint[] {
  const entry = config.registries[registry];
  const out = (entry?.mirrors ?? []).map((m) => endpoint(config, registry, m));
  const server = entry?.server ?? (registry === 'docker.io' ? DOCKER_HUB_SERVER : registry);
  if (server !== 'none') out.push(endpoint(config, registry, server));
  if (out.length === 0) throw new RegistryConfigError(`registries.${registry}: no mirrors and server "none": nowhere to pull from`);
  return out;
}
