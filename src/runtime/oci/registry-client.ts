// One repository on one registry endpoint, spoken to with the OCI
// distribution API over the global fetch: manifests by tag or digest, blobs
// by digest, with the auth challenges answered on the way.
import { basicHeader, fetchToken, parseChallenge, reasonOf, RegistryError, type Credentials } from './auth.js';
import { MANIFEST_ACCEPT } from './manifest.js';
import type { RegistryEndpoint } from './registry-config.js';
import { sha256 } from './content-store.js';

export interface FetchedManifest {
  bytes: Buffer;
  contentType: string;
  /** sha256 of the bytes, checked against the registry's Docker-Content-Digest. */
  digest: string;
}

/** containerd's limit for a manifest or index. */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

export interface ClientOptions {
  /** How long to wait for an answer's headers, and for each chunk of a body. */
  timeoutMs?: number;
}

/** Node's fetch says "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND, a TLS error) is in its cause. */
export function networkReason(err: unknown): string {
  const cause = (err as { cause?: { message?: string; code?: string } }).cause;
  return cause?.message ?? (err as Error).message ?? String(err);
}

export class RegistryClient {
  private authorization: string | undefined;
  private base: string;
  private readonly timeoutMs: number;

  constructor(
    readonly endpoint: RegistryEndpoint,
    readonly repository: string,
    private readonly credentials: Credentials | undefined,
    options: ClientOptions = {},
  ) {
    this.base = endpoint.base;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    if (credentials?.registryToken) this.authorization = `Bearer ${credentials.registryToken}`;
  }

  async manifest(reference: string): Promise<FetchedManifest> {
    const controller = new AbortController();
    const res = await this.get(`manifests/${reference}`, { accept: MANIFEST_ACCEPT }, controller);
    if (!res.body) throw new RegistryError(`${this.endpoint.host}: manifest ${reference} came without a body`);
    const parts: Uint8Array[] = [];
    let length = 0;
    for await (const chunk of idle(res.body, this.timeoutMs, controller, `${this.endpoint.host}: manifest ${reference}`)) {
      length += chunk.length;
      // Manifests are small; a registry that sends more is not sending a manifest.
      if (length > MAX_MANIFEST_BYTES)
        throw new RegistryError(`${this.endpoint.host}: manifest ${reference} is larger than ${MAX_MANIFEST_BYTES} bytes`);
      parts.push(chunk);
    }
    const bytes = Buffer.concat(parts);
    const digest = sha256(bytes);
    const claimed = res.headers.get('docker-content-digest');
    if (claimed && claimed.startsWith('sha256:') && claimed !== digest) {
      throw new RegistryError(`${this.endpoint.host}: manifest ${reference} has digest ${digest}, but the registry says ${claimed}`);
    }
    return { bytes, contentType: res.headers.get('content-type') ?? '', digest };
  }

  /** The blob's bytes as they arrive; the caller verifies them (ContentStore.writeBlob). */
  async blob(digest: string): Promise<AsyncIterable<Uint8Array>> {
    const controller = new AbortController();
    const res = await this.get(`blobs/${digest}`, {}, controller);
    if (!res.body) throw new RegistryError(`${this.endpoint.host}: blob ${digest} came without a body`);
    return idle(res.body, this.timeoutMs, controller, `${this.endpoint.host}: blob ${digest}`);
  }

  /** A GET that answers 2xx, after at most one auth challenge; anything else is a RegistryError. */
  private async get(path: string, headers: Record<string, string>, controller = new AbortController()): Promise<Response> {
    let res = await this.send(path, headers, controller);
    if (res.status === 401) {
      const challenge = parseChallenge(res.headers.get('www-authenticate') ?? '');
      await res.body?.cancel();
      if (challenge?.scheme === 'bearer') {
        const signal = AbortSignal.timeout(this.timeoutMs);
        this.authorization = `Bearer ${await fetchToken(challenge, `repository:${this.repository}:pull`, this.credentials, signal)}`;
      } else if (challenge?.scheme === 'basic' && this.credentials?.username) {
        this.authorization = basicHeader(this.credentials);
      } else {
        throw new RegistryError(
          `${this.endpoint.host}: 401 Unauthorized${challenge?.scheme === 'basic' ? ': the registry wants a user name and password' : ''}`,
          401,
          'UNAUTHORIZED',
        );
      }
      res = await this.send(path, headers, controller);
    }
    if (!res.ok) {
      const reason = await reasonOf(res);
      throw new RegistryError(`${this.endpoint.host}: ${reason.message}`, res.status, reason.code);
    }
    return res;
  }

  private async send(path: string, headers: Record<string, string>, controller: AbortController): Promise<Response> {
    const timer = setTimeout(() => controller.abort(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    try {
      const all = this.authorization ? { ...headers, authorization: this.authorization } : headers;
      try {
        return await fetch(`${this.base}/v2/${this.repository}/${path}`, { headers: all, signal: controller.signal });
      } catch (err) {
        // An insecure registry named without a scheme: HTTPS first, plain HTTP when it cannot connect (Docker's rule).
        if (this.endpoint.httpFallback && this.base.startsWith('https:') && !controller.signal.aborted) {
          this.base = `http:${this.base.slice(6)}`;
          return await fetch(`${this.base}/v2/${this.repository}/${path}`, { headers: all, signal: controller.signal });
        }
        throw err;
      }
    } catch (err) {
      if (err instanceof RegistryError) throw err;
      const why = controller.signal.aborted ? String((controller.signal.reason as Error)?.message ?? 'aborted') : networkReason(err);
      throw new RegistryError(`${this.endpoint.host}: ${why}`);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A body that fails when no chunk arrives for `timeoutMs` (a stalled registry must not hang a pull). */
async function* idle(
  body: ReadableStream<Uint8Array>,
  timeoutMs: number,
  controller: AbortController,
  what: string,
): AsyncGenerator<Uint8Array> {
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(new Error(`${what}: no data for ${timeoutMs} ms`)), timeoutMs);
  };
  try {
    arm();
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      arm();
      yield chunk;
    }
  } catch (err) {
    throw new RegistryError(
      controller.signal.aborted ? String((controller.signal.reason as Error).message) : `${what}: ${networkReason(err)}`,
    );
  } finally {
    clearTimeout(timer);
  }
}
