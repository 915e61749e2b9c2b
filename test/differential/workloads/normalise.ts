// A workload scenario's objects reduced to text, per kind, the same function for
// the cluster's (kubectl get -o json) and knode's (knode apply -o json): what a
// controller decides (names, labels, owners, status fields, conditions, pod
// counts and phases), without what differs by construction (uids, times,
// resourceVersions, random name suffixes, hash values, the namespace, what the
// apiserver's admission and kubectl apply add). README.md beside this file lists it.

/** The kinds compared, in the order their blocks print. */
export const KINDS = ['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'Pod'] as const;

type Obj = Record<string, unknown> & {
  kind?: string;
  metadata?: {
    name?: string;
    generateName?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { kind: string; name: string; controller?: boolean; blockOwnerDeletion?: boolean }[];
    finalizers?: string[];
    deletionTimestamp?: string;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
};

const UID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
/** Added by kubectl apply or by the apiserver, not by a controller. */
const DROPPED_ANNOTATIONS = new Set(['kubectl.kubernetes.io/last-applied-configuration']);
const TIMES = new Set(['startTime', 'completionTime', 'lastUpdateTime', 'lastTransitionTime', 'lastProbeTime']);

/** The hash values in these objects (pod-template-hash, controller-revision-hash), each replaced by `<hash>`. */
function hashesIn(items: Obj[]): string[] {
  const out = new Set<string>();
  for (const o of items) {
    const labels = { ...o.metadata?.labels, ...((o.spec?.selector as { matchLabels?: Record<string, string> })?.matchLabels ?? {}) };
    for (const key of ['pod-template-hash', 'controller-revision-hash']) {
      const v = labels[key];
      if (v) out.add(v.slice(v.lastIndexOf('-') + 1));
    }
    for (const key of ['currentRevision', 'updateRevision']) {
      const v = o.status?.[key];
      if (typeof v === 'string') out.add(v.slice(v.lastIndexOf('-') + 1));
    }
  }
  return [...out].filter((h) => h.length >= 6);
}

/** Scrubs one object: uids, hashes, random suffixes of generated names. */
function scrubbed(o: Obj, hashes: string[], generated: Map<string, string>): Obj {
  let text = JSON.stringify(o).replace(UID, '<uid>');
  for (const h of hashes) text = text.split(h).join('<hash>');
  // A pod named in a message (a Job's pod failure policy): by its namespace-free generated pattern.
  for (const [name, pattern] of generated) text = text.replace(new RegExp(`[\\w-]+/${name}\\b`, 'g'), `<ns>/${pattern}`);
  const out = JSON.parse(text) as Obj;
  const m = out.metadata ?? {};
  if (m.generateName && m.name?.startsWith(m.generateName) && m.name.length === m.generateName.length + 5)
    m.name = `${m.generateName}<rand>`;
  // terminatingReplicas: whether it is written, not how many; `knode apply` prints the moment a rollout
  // ends, while the old pods still stop, and the cluster side is read once it has settled.
  if (typeof out.status?.terminatingReplicas === 'number') out.status.terminatingReplicas = 'set';
  // An old ReplicaSet a rollout scaled down to 0: each step down is a generation, and how many steps it
  // took depends on when each new pod became available, on either side (4 or 5 for deploy-surge-percent).
  const generation = out.status?.observedGeneration;
  if (out.kind === 'ReplicaSet' && out.spec?.replicas === 0 && typeof generation === 'number' && generation > 1)
    out.status!.observedGeneration = 'scaled down in steps';
  // Likewise the new ReplicaSet a rollout scaled up (a revision past the first): how many steps up it
  // took depends on when each old pod went (deploy-surge-percent's: 2 on one side, 3 on the other, in one run).
  const revision = Number(out.metadata?.annotations?.['deployment.kubernetes.io/revision'] ?? 1);
  if (out.kind === 'ReplicaSet' && Number(out.spec?.replicas) > 0 && revision > 1 && typeof generation === 'number' && generation > 1)
    out.status!.observedGeneration = 'scaled up in steps';
  return out;
}

function value(v: unknown): string {
  if (v === undefined) return '-';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function conditions(list: unknown): string[] {
  const cs = (list ?? []) as Record<string, unknown>[];
  return cs
    .map((c) => `condition ${value(c.type)}=${value(c.status)} reason=${value(c.reason)} message=${JSON.stringify(c.message ?? '')}`)
    .sort();
}

/** The status fields other than times and conditions; a time prints as `set`. */
function statusFields(status: Record<string, unknown> | undefined): string {
  const s = status ?? {};
  return Object.keys(s)
    .filter((k) => k !== 'conditions' && k !== 'containerStatuses' && k !== 'initContainerStatuses')
    .sort()
    .map((k) => `${k}=${TIMES.has(k) ? 'set' : value(s[k])}`)
    .join(' ');
}

function meta(o: Obj): string[] {
  const m = o.metadata ?? {};
  const labels = Object.entries(m.labels ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`);
  const annotations = Object.entries(m.annotations ?? {})
    .filter(([k]) => !DROPPED_ANNOTATIONS.has(k))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v.length > 60 ? '<long>' : v}`);
  const owners = (m.ownerReferences ?? []).map(
    (r) => `${r.kind}/${r.name}${r.controller ? ' controller' : ''}${r.blockOwnerDeletion ? ' blockOwnerDeletion' : ''}`,
  );
  return [
    `labels ${labels.join(' ') || '-'}`,
    `annotations ${annotations.join(' ') || '-'}`,
    `owners ${owners.join(', ') || '-'}`,
    `finalizers ${(m.finalizers ?? []).join(' ') || '-'}${m.deletionTimestamp ? ' | deleting' : ''}`,
  ];
}

/** A pod: what its controller set (name, meta, hostname, env names) and how it ended (phase, exit codes). */
function pod(o: Obj, log: string | undefined): string[] {
  const spec = o.spec ?? {};
  const containers = (spec.containers ?? []) as { name: string; env?: { name: string }[] }[];
  const statuses = (o.status?.containerStatuses ?? []) as {
    name: string;
    ready: boolean;
    restartCount: number;
    state?: { running?: unknown; terminated?: { reason?: string; exitCode: number }; waiting?: { reason?: string } };
  }[];
  const state = (s: (typeof statuses)[number]) =>
    s.state?.terminated
      ? `terminated ${s.state.terminated.reason} exit=${s.state.terminated.exitCode}`
      : s.state?.running
        ? 'running'
        : `waiting ${s.state?.waiting?.reason ?? '-'}`;
  const finished = o.status?.phase === 'Succeeded' || o.status?.phase === 'Failed';
  const lines = [
    `phase ${value(o.status?.phase)} | hostname ${value(spec.hostname)} | subdomain ${value(spec.subdomain)} | restartPolicy ${value(spec.restartPolicy)}`,
    ...containers.map((c) => `container ${c.name} env ${(c.env ?? []).map((e) => e.name).join(',') || '-'}`),
    ...statuses.map((s) => `status ${s.name}: ${state(s)} ready=${s.ready} restarts=${s.restartCount}`),
    // Type and status only: the reasons are the kubelet's (the kubelet differential compares them).
    // A finished pod's PodReadyToStartContainers is when its node removed the sandbox: the kubelet's timing.
    `conditions ${((o.status?.conditions ?? []) as { type: string; status: string }[])
      .filter((c) => !(finished && c.type === 'PodReadyToStartContainers'))
      .map((c) => `${c.type}=${c.status}`)
      .sort()
      .join(' ')}`,
  ];
  if (log !== undefined) lines.push(`log ${JSON.stringify(log.trim())}`);
  return lines;
}

function workload(o: Obj): string[] {
  const spec = o.spec ?? {};
  const fields = [
    'replicas',
    'completions',
    'parallelism',
    'backoffLimit',
    'completionMode',
    'podManagementPolicy',
    'revisionHistoryLimit',
  ];
  const shown = fields.filter((f) => spec[f] !== undefined).map((f) => `${f}=${value(spec[f])}`);
  return [`spec ${shown.join(' ') || '-'}`, `status ${statusFields(o.status) || '-'}`, ...conditions(o.status?.conditions)];
}

/**
 * The objects of one scenario as a text block per kind: each object a few lines, the
 * objects sorted by their text (pods of one pattern in any order). `logs` maps a pod's
 * real name to its log, for the scenarios that compare logs.
 */
export function normaliseObjects(items: Obj[], logs: Map<string, string> = new Map()): Map<string, string> {
  const hashes = hashesIn(items);
  const generated = new Map(
    items
      .map((o) => o.metadata ?? {})
      .filter((m) => m.generateName && m.name?.startsWith(m.generateName) && m.name.length === m.generateName.length + 5)
      .map((m) => [m.name!, `${m.generateName}<rand>`] as const),
  );
  const out = new Map<string, string>();
  for (const kind of KINDS) {
    // A pod being deleted is one its controller no longer counts; when it goes is the kubelet's timing.
    const objects = items.filter((o) => o.kind === kind && !o.metadata?.deletionTimestamp);
    if (objects.length === 0) continue;
    const texts = objects.map((raw) => {
      const o = scrubbed(raw, hashes, generated);
      const body = kind === 'Pod' ? pod(o, logs.get(raw.metadata?.name ?? '')) : workload(o);
      return [`${kind} ${o.metadata?.name}`, ...meta(o), ...body].join('\n  ');
    });
    out.set(kind, [`${objects.length} ${kind}`, ...texts.sort()].join('\n'));
  }
  return out;
}

export type { Obj as KubeJson };
