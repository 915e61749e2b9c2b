// The kubelet's client certificate manager (client-go's
// util/certificate/manager): a new key and CSR at a jittered 70–90 % of the
// current certificate's lifetime, signed by the cluster and written to the
// store, whose current pair the node's connections read on each new
// connection. Failures back off (2 s doubling, five tries, then every 32 s)
// and count in kubelet_certificate_manager_client_expiration_renew_errors.
import type { X509Certificate } from 'node:crypto';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock, Timer } from '../../../util/clock.js';
import type { CertificateStore } from './cert-store.js';
import { newRequest, requestCertificate, waitForCertificate, type CsrApi, type Subject } from './csr.js';

/** How long a renewal waits for its request to be signed (certificateWaitTimeout). */
const CERTIFICATE_WAIT_TIMEOUT_MS = 15 * 60_000;
const BACKOFF_MS = [2_000, 4_000, 8_000, 16_000, 32_000];
const RETRY_FOREVER_MS = 32_000;
/** The longest delay a Node.js timer takes. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface CertificateManagerDeps {
  store: CertificateStore;
  subject: Subject;
  signerName: string;
  usages: string[];
  /** The CSR API, asked anew for each renewal (with the current certificate). */
  api: () => Promise<CsrApi>;
  clock: Clock;
  /** A number in [0, 1): the jitter of the deadline. */
  random?: () => number;
  registry?: Registry;
  /** `client` or `server`: the metrics' infix. */
  kind: 'client' | 'server';
  onRotated?: (cert: X509Certificate) => void;
  onFailure?: (message: string) => void;
  /** How long a renewal waits to be signed. */
  waitTimeoutMs?: number;
}

/** When the certificate should be renewed: notBefore + its lifetime × [0.7, 0.9) (jitteryDuration). */
export function rotationDeadline(cert: X509Certificate, random: number): number {
  const notBefore = Date.parse(cert.validFrom);
  const total = Date.parse(cert.validTo) - notBefore;
  return notBefore + total * (0.7 + 0.2 * random);
}

export class CertificateManager {
  private timer: Timer | undefined;
  private stopped = true;
  private failures = 0;
  private readonly abort = new AbortController();
  private readonly renewErrors: Counter | undefined;

  constructor(private readonly deps: CertificateManagerDeps) {
    const registers = deps.registry ? [deps.registry] : [];
    if (!deps.registry) return;
    const store = deps.store;
    const clock = deps.clock;
    new Gauge({
      name: `kubelet_certificate_manager_${deps.kind}_ttl_seconds`,
      help: `Gauge of the TTL (time-to-live) of the Kubelet's ${deps.kind} certificate. The value is in seconds until certificate expiry (negative if already expired). If ${deps.kind} certificate is invalid or unused, the value will be +INF.`,
      registers,
      collect() {
        const cert = store.current()?.cert;
        this.set(cert ? (Date.parse(cert.validTo) - clock.now()) / 1000 : Infinity);
      },
    });
    this.renewErrors = new Counter({
      name: `kubelet_certificate_manager_${deps.kind}_expiration_renew_errors`,
      help: `Counter of certificate renewal errors.`,
      registers,
    });
  }

  /** The certificate in use. */
  current(): X509Certificate | undefined {
    return this.deps.store.current()?.cert;
  }

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.abort.abort(new Error('stopped'));
  }

  /** Arms the timer for the next deadline: now when there is no certificate. */
  private schedule(delayMs?: number): void {
    if (this.stopped) return;
    const cert = this.current();
    const now = this.deps.clock.now();
    const at = delayMs !== undefined ? now + delayMs : cert ? rotationDeadline(cert, (this.deps.random ?? Math.random)()) : now;
    this.wakeAt(at);
  }

  /** A timer for `at`, in steps a timer can hold (about 24 days: a longer delay would fire at once). */
  private wakeAt(at: number): void {
    const wait = at - this.deps.clock.now();
    this.timer = this.deps.clock.setTimeout(
      () => (wait > MAX_TIMER_MS ? this.wakeAt(at) : void this.rotate()),
      Math.max(0, Math.min(wait, MAX_TIMER_MS)),
    );
  }

  /** One renewal: a new key and request, the wait, the store; on failure the next try after the back-off. */
  async rotate(): Promise<boolean> {
    const { deps } = this;
    try {
      const request = await newRequest(deps.subject);
      const api = await deps.api();
      const created = await requestCertificate(api, { csrPem: request.csrPem, signerName: deps.signerName, usages: deps.usages });
      const certPem = await waitForCertificate(api, created.name, created.uid, {
        timeoutMs: deps.waitTimeoutMs ?? CERTIFICATE_WAIT_TIMEOUT_MS,
        clock: deps.clock,
        signal: this.abort.signal,
      });
      const cert = deps.store.update(certPem, request.keyPem, new Date(deps.clock.now()));
      this.failures = 0;
      deps.onRotated?.(cert);
      this.schedule();
      return true;
    } catch (err) {
      if (this.stopped) return false;
      this.renewErrors?.inc();
      deps.onFailure?.((err as Error).message);
      this.schedule(BACKOFF_MS[this.failures] ?? RETRY_FOREVER_MS);
      this.failures++;
      return false;
    }
  }
}
