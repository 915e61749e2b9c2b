// Bootstrap tokens and what kubeadm's token discovery checks with them: the
// token's form, the detached JWS the controller manager's bootstrapsigner puts
// beside cluster-info's kubeconfig, and the CA public-key pins
// (--discovery-token-ca-cert-hash). Pure functions over node:crypto.
import { createHash, createHmac, timingSafeEqual, X509Certificate } from 'node:crypto';

/** `[a-z0-9]{6}.[a-z0-9]{16}`, as bootstrapapi.BootstrapTokenPattern. */
export const BOOTSTRAP_TOKEN_PATTERN = String.raw`\A([a-z0-9]{6})\.([a-z0-9]{16})\z`;
const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;

export interface BootstrapToken {
  id: string;
  secret: string;
}

/** The token's id and secret; kubeadm's error when it is not of the form. */
export function parseBootstrapToken(token: string): BootstrapToken {
  const match = TOKEN.exec(token);
  if (!match) throw new Error(`the bootstrap token "${token}" was not of the form "${BOOTSTRAP_TOKEN_PATTERN}"`);
  return { id: match[1]!, secret: match[2]! };
}

const base64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/**
 * Whether `detached` (a compact JWS with its payload left out:
 * `header..signature`) signs `content` with the token: HS256, keyed by the
 * token's secret, its header naming the token id as `kid`, as
 * k8s.io/cluster-bootstrap's ComputeDetachedSignature makes it.
 */
export function detachedSignatureValid(detached: string, content: string, token: BootstrapToken): boolean {
  const parts = detached.split('.');
  if (parts.length !== 3 || parts[1] !== '') return false;
  const [header, , signature] = parts as [string, string, string];
  let parsed: { alg?: unknown; kid?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown; kid?: unknown };
  } catch {
    return false;
  }
  if (parsed.alg !== 'HS256' || parsed.kid !== token.id) return false;
  const expected = createHmac('sha256', token.secret)
    .update(`${header}.${base64url(content)}`)
    .digest();
  const given = Buffer.from(signature, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A CA certificate's pin as kubeadm prints it: `sha256:` and the hex SHA-256 of its Subject Public Key Info. */
export function caCertHash(cert: X509Certificate): string {
  const spki = cert.publicKey.export({ type: 'spki', format: 'der' });
  return `sha256:${createHash('sha256').update(spki).digest('hex')}`;
}

/** The pins as kubeadm's pubkeypin.Set.Allow takes them (sha256:<hex>, lowercased); its errors. */
export function parsePins(hashes: readonly string[]): string[] {
  return hashes.map((hash) => {
    const parts = hash.split(':');
    const prefix = 'invalid discovery token CA certificate hash: ';
    if (parts.length !== 2) throw new Error(`${prefix}invalid hash, expected "format:hex-value". Known format(s) are: sha256`);
    const [format, value] = parts as [string, string];
    if (format.toLowerCase() !== 'sha256') throw new Error(`${prefix}unknown hash format "${format}". Known format(s) are: sha256`);
    if (Math.floor(value.length / 2) !== 32)
      throw new Error(`${prefix}invalid hash "${hash}", expected a 32 byte SHA-256 hash, found ${Math.floor(value.length / 2)} bytes`);
    if (!/^[0-9a-fA-F]+$/.test(value)) throw new Error(`${prefix}invalid hash "${hash}", could not decode SHA-256 from hex`);
    return `sha256:${value.toLowerCase()}`;
  });
}

/** The certificates of a PEM bundle. */
export function certificatesOf(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => new X509Certificate(block));
}
