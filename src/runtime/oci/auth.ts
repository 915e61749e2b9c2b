// Registry authentication as the distribution spec has it: a 401 answer
// carries a WWW-Authenticate challenge; `Basic` wants the user's credentials
// on every request, `Bearer` sends the client to a token server (with those
// credentials, or anonymously) for a token scoped to the repository.
import type { AuthConfig__Output } from '../../cri/gen/runtime/v1/AuthConfig.js';

/** What the CRI request (or the user) gave to log in with. */
export interface Credentials {
  username?: string;
  password?: string;
  /** An OAuth2 refresh token, exchanged at the token server (Docker's identitytoken). */
  identityToken?: string;
  /** A bearer token to send as it is. */
  registryToken?: string;
}

export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

/** Parses `Bearer realm="https://auth",service="registry",scope="repository:x:pull"` (one challenge). */
export function parseChallenge(header: string): Challenge | undefined {
  const match = /^\s*([A-Za-z][\w-]*)\s*(.*)$/s.exec(header);
  if (!match) return undefined;
  const params: Record<string, string> = {};
  const pattern = /([\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))\s*,?/g;
  for (let m = pattern.exec(match[2]); m; m = pattern.exec(match[2])) {
    params[m[1].toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3];
  }
  return { scheme: match[1].toLowerCase(), params };
}

/**
 * The credentials of a CRI AuthConfig for `host`: `auth` is base64 of
 * `user:password`; a server_address that names another host keeps them
 * from being sent there (as containerd does).
 */
export function credentialsFor(auth: AuthConfig__Output | null | undefined, hosts: string[]): Credentials | undefined {
  if (!auth) return undefined;
  if (auth.serverAddress) {
    const server = auth.serverAddress.replace(/^[a-z]+:\/\//, '').replace(/\/.*$/, '');
    const aliases = server === 'index.docker.io' || server === 'registry-1.docker.io' ? ['docker.io', server] : [server];
    if (!hosts.some((h) => aliases.includes(h))) return undefined;
  }
  let { username, password } = auth;
  if (auth.auth && !username) {
    const decoded = Buffer.from(auth.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) {
      username = decoded.slice(0, colon);
      password = decoded.slice(colon + 1);
    }
  }
  const out: Credentials = {};
  if (username) Object.assign(out, { username, password });
  if (auth.identityToken) out.identityToken = auth.identityToken;
  if (auth.registryToken) out.registryToken = auth.registryToken;
  return Object.keys(out).length ? out : undefined;
}

export function basicHeader(c: Credentials): string {
  return `Basic ${Buffer.from(`${c.username ?? ''}:${c.password ?? ''}`).toString('base64')}`;
}

/** An answer that stops a pull: the registry's own words, its HTTP status and error code. */
export class RegistryError extends Error {
  override readonly name = 'RegistryError';
  constructor(
    message: string,
    readonly status?: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** The registry's reason from an error answer: `{errors:[{code,message}]}` when it sends one. */
export async function reasonOf(res: Response): Promise<{ message: string; code?: string }> {
  const status = `${res.status} ${res.statusText}`.trim();
  let text = '';
  try {
    text = await res.text();
  } catch {
    // The status line is reason enough.
  }
  try {
    const errors = (JSON.parse(text) as { errors?: { code?: string; message?: string }[] }).errors;
    if (errors?.length) {
      return { message: `${status}: ${errors.map((e) => `${e.message ?? e.code} (${e.code})`).join('; ')}`, code: errors[0].code };
    }
  } catch {
    // Not JSON: a proxy's page, or nothing.
  }
  return { message: text && text.length < 200 ? `${status}: ${text.trim()}` : status };
}

/**
 * Fetches a bearer token for `scope` from the challenge's realm: a GET with
 * basic credentials (or none), or, with an identity token, the OAuth2
 * refresh-token POST.
 */
export async function fetchToken(
  challenge: Challenge,
  scope: string,
  creds: Credentials | undefined,
  signal: AbortSignal,
): Promise<string> {
  const realm = challenge.params.realm;
  if (!realm) throw new RegistryError('the registry asked for a bearer token but named no realm');
  const url = new URL(realm);
  const service = challenge.params.service;
  const scopes = challenge.params.scope ? [challenge.params.scope] : [scope];
  let res: Response;
  if (creds?.identityToken) {
    const form = new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: creds.identityToken,
      client_id: 'knode',
      scope: scopes.join(' '),
    });
    if (service) form.set('service', service);
    res = await fetch(url, { method: 'POST', body: form, signal });
  } else {
    if (service) url.searchParams.set('service', service);
    for (const s of scopes) url.searchParams.append('scope', s);
    const headers: Record<string, string> = {};
    if (creds?.username) headers.authorization = basicHeader(creds);
    res = await fetch(url, { headers, signal });
  }
  if (!res.ok) {
    const reason = await reasonOf(res);
    throw new RegistryError(`token server ${url.host} refused: ${reason.message}`, res.status, reason.code);
  }
  const body = (await res.json()) as { token?: string; access_token?: string };
  const token = body.token ?? body.access_token;
  if (!token) throw new RegistryError(`token server ${url.host} answered without a token`);
  return token;
}
