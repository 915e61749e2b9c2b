import type { Clock } from '../../util/clock.js';
import type { Pod } from '../api/v1.js';
import { ClusterError, type ClusterClient, type LocalApi, type PodApi } from './client.js';

/** A ConfigMap's or Secret's keys, decoded. */
export type ConfigData = Map<string, Buffer>;

/** How long a fetched ConfigMap or Secret is used before it is read again (the kubelet's TTL cache). */
const OBJECT_TTL_MS = 10_000;
/** A token is replaced once 80% of its lifetime has passed, as the kubelet's token manager does. */
const TOKEN_REFRESH_FRACTION = 0.8;

/** Why a pod cannot have an object it names: not found (optional references then count as empty), or an error. */
export class ObjectError extends Error {
  override readonly name = 'ObjectError';
  constructor(
    message: string,
    readonly notFound: boolean,
  ) {
    super(message);
  }
}

/**
 * ConfigMaps, Secrets and service account tokens for the pods of a node
 * that joined a cluster (the kubelet's configmap, secret and token
 * managers): read from the apiserver (the Node authorizer lets a node read
 * only what its pods name), cached for 10 s and read once for all who ask
 * meanwhile, tokens renewed at 80% of their lifetime. Secret values never
 * reach a log or an event.
 */
export class ObjectManager {
  private readonly objects = new Map<string, { data: ConfigData; at: number }>();
  private readonly tokens = new Map<string, { token: string; issuedAt: number; expiresAt: number }>();
  /** The reads under way, by object. */
  private readonly reading = new Map<string, Promise<ConfigData>>();

  constructor(
    private readonly client: (PodApi & Partial<Pick<ClusterClient, 'createToken'>> & Partial<Pick<LocalApi, 'claimPath'>>) | undefined,
    private readonly clock: Clock,
  ) {}

  async configMap(namespace: string, name: string): Promise<ConfigData> {
    return this.get('configmap', namespace, name, async (client) => {
      const cm = await client.getConfigMap(namespace, name);
      const data: ConfigData = new Map();
      for (const [k, v] of Object.entries(cm.data ?? {})) data.set(k, Buffer.from(v, 'utf8'));
      for (const [k, v] of Object.entries(cm.binaryData ?? {})) data.set(k, Buffer.from(v, 'base64'));
      return data;
    });
  }

  async secret(namespace: string, name: string): Promise<ConfigData> {
    return this.get('secret', namespace, name, async (client) => {
      const secret = await client.getSecret(namespace, name);
      return new Map(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]));
    });
  }

  /** A token of the pod's service account for `audience` (the apiserver's when empty), bound to the pod. */
  async serviceAccountToken(pod: Pod, audience: string, expirationSeconds: number): Promise<string> {
    const namespace = pod.metadata.namespace!;
    const account = pod.spec.serviceAccountName || 'default';
    if (!this.client?.createToken)
      throw new ObjectError(
        `serviceaccount "${account}" token: a standalone node issues no tokens (give --kubeconfig to join a cluster)`,
        false,
      );
    const key = `${namespace}/${account}/${audience}/${expirationSeconds}/${pod.metadata.uid}`;
    const now = this.clock.now();
    const cached = this.tokens.get(key);
    if (cached && now < cached.issuedAt + (cached.expiresAt - cached.issuedAt) * TOKEN_REFRESH_FRACTION) return cached.token;
    try {
      const answer = await this.client.createToken(namespace, account, {
        audiences: audience ? [audience] : [],
        expirationSeconds,
        pod: { name: pod.metadata.name!, uid: pod.metadata.uid! },
      });
      this.tokens.set(key, { token: answer.token, issuedAt: now, expiresAt: answer.expiresAt });
      return answer.token;
    } catch (err) {
      // A token that is still valid serves while a new one cannot be had.
      if (cached && now < cached.expiresAt) return cached.token;
      throw new ObjectError(`serviceaccount "${account}" token: ${(err as Error).message}`, ClusterError.notFound(err));
    }
  }

  /**
   * The host directory of a PersistentVolumeClaim (a standalone node's local
   * apiserver keeps one per claim); the kubelet's desired state populator's
   * text when the claim cannot be had.
   */
  async claimPath(namespace: string, name: string): Promise<string> {
    if (!this.client?.claimPath)
      throw new ObjectError(`persistentVolumeClaim "${name}" cannot be attached: knode supports claims only on a standalone node`, false);
    try {
      return await this.client.claimPath(namespace, name);
    } catch (err) {
      throw new ObjectError(
        `error processing PVC ${namespace}/${name}: failed to fetch PVC from API server: ${(err as Error).message}`,
        ClusterError.notFound(err),
      );
    }
  }

  /** Forgets the tokens of a pod that is gone. */
  forgetPod(uid: string): void {
    for (const key of this.tokens.keys()) if (key.endsWith(`/${uid}`)) this.tokens.delete(key);
  }

  private async get(kind: string, namespace: string, name: string, fetch: (client: PodApi) => Promise<ConfigData>): Promise<ConfigData> {
    if (!this.client)
      throw new ObjectError(`${kind} "${name}" not found: knode serves static pods without an apiserver (give --kubeconfig)`, true);
    const key = `${kind}/${namespace}/${name}`;
    const cached = this.objects.get(key);
    if (cached && this.clock.now() - cached.at < OBJECT_TTL_MS) return cached.data;
    // One read at a time per object: a burst of pods naming the same one (every pod's root CA) waits for it together.
    let reading = this.reading.get(key);
    if (!reading) {
      reading = this.read(key, kind, name, fetch(this.client)).finally(() => this.reading.delete(key));
      this.reading.set(key, reading);
    }
    return reading;
  }

  private async read(key: string, kind: string, name: string, fetched: Promise<ConfigData>): Promise<ConfigData> {
    try {
      const data = await fetched;
      this.objects.set(key, { data, at: this.clock.now() });
      return data;
    } catch (err) {
      if (ClusterError.notFound(err)) {
        this.objects.delete(key);
        throw new ObjectError(`${kind} "${name}" not found`, true);
      }
      throw new ObjectError(`${kind} "${name}": ${(err as Error).message}`, false);
    }
  }
}
