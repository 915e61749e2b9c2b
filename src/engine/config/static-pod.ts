import { createHash } from 'node:crypto';
import type { Container, Pod, Probe } from '../api/v1.js';
import { ConfigHashAnnotation, ConfigSeenAnnotation, ConfigSourceAnnotation } from '../api/pod-util.js';
import { compareStrings } from '../../util/compare.js';

export type StaticSource = 'file' | 'http';

export interface StaticPodOrigin {
  source: StaticSource;
  /** The manifest's file path or URL. */
  location: string;
  nodeName: string;
  /** When the source read the pod (the config.seen annotation). */
  seenAt: number;
}

/**
 * Turns a decoded manifest into the pod the kubelet runs, as its
 * config.applyDefaults does: a UID hashed from the manifest, its source and
 * the node (so a restart of knode yields the same UID and adopts the pod's
 * containers), the name suffixed with `-<node>`, the config annotations, and
 * the API server's defaults that a static pod never got from one.
 */
export function applyStaticPodDefaults(manifest: Pod, origin: StaticPodOrigin): Pod {
  const pod = structuredClone(manifest);
  const node = origin.nodeName.toLowerCase();
  const meta = pod.metadata;
  if (!meta.uid) meta.uid = staticPodUid(manifest, origin);
  meta.name = `${meta.name}-${node}`;
  meta.namespace ||= 'default';
  meta.creationTimestamp ||= new Date(origin.seenAt).toISOString().replace(/\.\d{3}Z$/, 'Z');
  meta.annotations = {
    ...meta.annotations,
    [ConfigHashAnnotation]: meta.uid,
    [ConfigSeenAnnotation]: new Date(origin.seenAt).toISOString(),
    [ConfigSourceAnnotation]: origin.source,
  };
  pod.apiVersion = 'v1';
  pod.kind = 'Pod';
  pod.spec.nodeName = origin.nodeName;
  pod.spec.tolerations = [...(pod.spec.tolerations ?? []), { operator: 'Exists', effect: 'NoExecute' }];
  applyPodSpecDefaults(pod);
  pod.status = { phase: 'Pending' };
  return pod;
}

/** md5 over the manifest (keys sorted), `host:<node>` and `file:<path>` or `url:<url>`, as hex. */
export function staticPodUid(manifest: Pod, origin: Omit<StaticPodOrigin, 'seenAt'>): string {
  const hash = createHash('md5');
  hash.update(canonicalJson(manifest));
  hash.update(`host:${origin.nodeName}`);
  hash.update(origin.source === 'file' ? `file:${origin.location}` : `url:${origin.location}`);
  return hash.digest('hex');
}

/** JSON with object keys sorted, so equal objects hash equally whatever the key order in the file. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => compareStrings(a, b)));
    }
    return v;
  });
}

/** The defaults the API server would apply to a pod (pkg/apis/core/v1/defaults.go), for the fields knode reads. */
export function applyPodSpecDefaults(pod: Pod): void {
  const spec = pod.spec;
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.schedulerName ??= 'default-scheduler';
  spec.securityContext ??= {};
  spec.enableServiceLinks ??= true;
  for (const c of spec.initContainers ?? []) applyContainerDefaults(c);
  for (const c of spec.containers) applyContainerDefaults(c);
  for (const v of spec.volumes ?? []) {
    if (!VOLUME_SOURCES.some((source) => v[source] !== undefined && v[source] !== null)) v.emptyDir = {};
    if (v.image) v.image.pullPolicy ??= defaultPullPolicy(v.image.reference ?? '');
  }
}

/**
 * The fields of a v1 VolumeSource. A volume that sets none of them is an
 * emptyDir (SetDefaults_Volume); other keys are dropped by the apiserver's
 * decoder, so they do not count as a source.
 */
const VOLUME_SOURCES = [
  'hostPath',
  'emptyDir',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'persistentVolumeClaim',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'downwardAPI',
  'fc',
  'azureFile',
  'configMap',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'projected',
  'portworxVolume',
  'scaleIO',
  'storageos',
  'csi',
  'ephemeral',
  'image',
] as const;

function applyContainerDefaults(c: Container): void {
  c.imagePullPolicy ??= defaultPullPolicy(c.image ?? '');
  c.terminationMessagePath ??= '/dev/termination-log';
  c.terminationMessagePolicy ??= 'File';
  for (const port of c.ports ?? []) port.protocol ??= 'TCP';
  for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe]) if (probe) applyProbeDefaults(probe);
}

/** SetDefaults_Probe: a field left out or set to 0 gets its default. */
function applyProbeDefaults(p: Probe): void {
  p.timeoutSeconds ||= 1;
  p.periodSeconds ||= 10;
  p.successThreshold ||= 1;
  p.failureThreshold ||= 3;
}

/** `Always` when the tag is `latest` (given, or implied by no tag and no digest), else `IfNotPresent`. */
export function defaultPullPolicy(image: string): 'Always' | 'IfNotPresent' {
  const at = image.indexOf('@');
  const name = at >= 0 ? image.slice(0, at) : image;
  const lastSlash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  const tag = colon > lastSlash ? name.slice(colon + 1) : at >= 0 ? '' : 'latest';
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}
