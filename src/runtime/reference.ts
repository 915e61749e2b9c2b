import { invalid } from './errors.js';

/** An image reference in the normalized form containerd stores (`docker.io/library/busybox:1.36`). */
export interface ImageReference {
  /** Registry host, with port when given. */
  domain: string;
  /** Repository path under the registry. */
  path: string;
  tag?: string;
  digest?: string;
}

const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;
const DOMAIN = /^(?:localhost|[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*)(?::\d+)?$/;

/**
 * Parses an image reference the way Docker normalizes it: a first component
 * without a dot, a colon or `localhost` is a Docker Hub path, one-component
 * Hub paths live under `library/`, `index.docker.io` is `docker.io`, and a
 * missing tag means `latest`. A reference with both a tag and a digest keeps
 * both; the digest is what gets pulled.
 */
export function parseReference(input: string): ImageReference {
  if (input === '' || input.length > 4096 || /\s/.test(input)) throw invalid(`invalid image reference "${input}"`);
  let rest = input;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) throw invalid(`invalid image reference "${input}": bad digest`);
  }
  let tag: string | undefined;
  const lastColon = rest.lastIndexOf(':');
  if (lastColon > rest.lastIndexOf('/')) {
    tag = rest.slice(lastColon + 1);
    rest = rest.slice(0, lastColon);
    if (!TAG.test(tag)) throw invalid(`invalid image reference "${input}": bad tag "${tag}"`);
  }
  const parts = rest.split('/');
  let domain = 'docker.io';
  if (parts.length > 1 && (parts[0].includes('.') || parts[0].includes(':') || parts[0] === 'localhost')) {
    domain = parts.shift()!;
    if (!DOMAIN.test(domain)) throw invalid(`invalid image reference "${input}": bad registry "${domain}"`);
    // Docker's old name for Docker Hub is the same registry.
    if (domain === 'index.docker.io') domain = 'docker.io';
  }
  if (domain === 'docker.io' && parts.length === 1) parts.unshift('library');
  for (const part of parts) {
    if (!PATH_COMPONENT.test(part)) {
      throw invalid(`invalid image reference "${input}": repository name must be lowercase letters, digits and separators`);
    }
  }
  if (!tag && !digest) tag = 'latest';
  return { domain, path: parts.join('/'), tag, digest };
}

export function repository(ref: ImageReference): string {
  return `${ref.domain}/${ref.path}`;
}

/** The normalized reference, `repo:tag` or `repo@digest`. */
export function formatReference(ref: ImageReference): string {
  if (ref.digest) return `${repository(ref)}@${ref.digest}`;
  return `${repository(ref)}:${ref.tag}`;
}
