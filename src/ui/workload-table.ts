// Workloads, ConfigMaps, Secrets and claims as `kubectl get
// deploy,rs,sts,ds,job,cronjob,cm,secret,pvc` prints them when asked for
// several kinds: one table per kind, names as `<kind>.<group>/<name>`.
import { humanDuration } from '../engine/api/printers.js';
import { canonicalQuantity } from '../engine/api/quantity.js';
import { selectorString } from './describe-workload.js';
import type {
  ConfigMap,
  CronJob,
  DaemonSet,
  Deployment,
  Job,
  KubeObject,
  LabelSelector,
  PersistentVolumeClaim,
  ReplicaSet,
  Secret,
  StatefulSet,
} from '../engine/api/workloads.js';
import { formatTable } from './pod-table.js';

interface KindTable {
  kind: string;
  /** kubectl's resource name, as it prefixes names: deployment.apps. */
  resource: string;
  columns: string[];
  cells: (o: KubeObject, now: number) => string[];
  /** The columns -o wide adds after the others, and their cells. */
  wide?: { columns: string[]; cells: (o: KubeObject) => string[] };
}

/** A pod template's containers' names and images, comma-separated, as kubectl's wide columns. */
function templateCells(template: { spec: { containers: { name: string; image?: string }[] } } | undefined): string[] {
  const containers = template?.spec.containers ?? [];
  return [containers.map((c) => c.name).join(','), containers.map((c) => c.image ?? '').join(',')];
}

/** CONTAINERS, IMAGES and SELECTOR (kubectl's FormatLabelSelector: `<none>` for an empty one) of a workload's template and selector. */
const withSelector = (of: (o: KubeObject) => { template?: Parameters<typeof templateCells>[0]; selector?: LabelSelector }) => ({
  columns: ['CONTAINERS', 'IMAGES', 'SELECTOR'],
  cells: (o: KubeObject) => [...templateCells(of(o).template), selectorString(of(o).selector) || '<none>'],
});

const age = (o: KubeObject, now: number) =>
  o.metadata.creationTimestamp ? humanDuration(now - Date.parse(o.metadata.creationTimestamp)) : '<unknown>';
const n = (v: number | undefined | null) => String(v ?? 0);

const TABLES: KindTable[] = [
  {
    kind: 'Deployment',
    resource: 'deployment.apps',
    columns: ['READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE'],
    cells: (o, now) => {
      const d = o as Deployment;
      return [
        `${n(d.status?.readyReplicas)}/${n(d.spec.replicas)}`,
        n(d.status?.updatedReplicas),
        n(d.status?.availableReplicas),
        age(o, now),
      ];
    },
    // A Deployment's selector as labels.Selector prints it: empty, not <none>.
    wide: {
      columns: ['CONTAINERS', 'IMAGES', 'SELECTOR'],
      cells: (o) => [...templateCells((o as Deployment).spec.template), selectorString((o as Deployment).spec.selector)],
    },
  },
  {
    kind: 'ReplicaSet',
    resource: 'replicaset.apps',
    columns: ['DESIRED', 'CURRENT', 'READY', 'AGE'],
    cells: (o, now) => {
      const rs = o as ReplicaSet;
      return [n(rs.spec.replicas), n(rs.status?.replicas), n(rs.status?.readyReplicas), age(o, now)];
    },
    wide: withSelector((o) => (o as ReplicaSet).spec),
  },
  {
    kind: 'StatefulSet',
    resource: 'statefulset.apps',
    columns: ['READY', 'AGE'],
    cells: (o, now) => {
      const s = o as StatefulSet;
      return [`${n(s.status?.readyReplicas)}/${n(s.spec.replicas)}`, age(o, now)];
    },
    wide: { columns: ['CONTAINERS', 'IMAGES'], cells: (o) => templateCells((o as StatefulSet).spec.template) },
  },
  {
    kind: 'DaemonSet',
    resource: 'daemonset.apps',
    columns: ['DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE'],
    cells: (o, now) => {
      const ds = o as DaemonSet;
      const status = ds.status;
      const selector = Object.entries(ds.spec.template.spec.nodeSelector ?? {}).map(([k, v]) => `${k}=${v}`);
      return [
        n(status?.desiredNumberScheduled),
        n(status?.currentNumberScheduled),
        n(status?.numberReady),
        n(status?.updatedNumberScheduled),
        n(status?.numberAvailable),
        selector.join(',') || '<none>',
        age(o, now),
      ];
    },
    wide: withSelector((o) => (o as DaemonSet).spec),
  },
  {
    kind: 'Job',
    resource: 'job.batch',
    columns: ['STATUS', 'COMPLETIONS', 'DURATION', 'AGE'],
    cells: (o, now) => jobCells(o as Job, now),
    wide: withSelector((o) => (o as Job).spec),
  },
  {
    kind: 'CronJob',
    resource: 'cronjob.batch',
    columns: ['SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST SCHEDULE', 'AGE'],
    cells: (o, now) => {
      const cj = o as CronJob;
      const last = cj.status?.lastScheduleTime;
      return [
        cj.spec.schedule,
        cj.spec.timeZone ?? '<none>',
        cj.spec.suspend ? 'True' : 'False',
        String(cj.status?.active?.length ?? 0),
        last ? humanDuration(now - Date.parse(last)) : '<none>',
        age(o, now),
      ];
    },
    wide: withSelector((o) => (o as CronJob).spec.jobTemplate.spec),
  },
  {
    kind: 'ConfigMap',
    resource: 'configmap',
    columns: ['DATA', 'AGE'],
    cells: (o, now) => {
      const cm = o as ConfigMap;
      return [String(Object.keys(cm.data ?? {}).length + Object.keys(cm.binaryData ?? {}).length), age(o, now)];
    },
  },
  {
    kind: 'Secret',
    resource: 'secret',
    columns: ['TYPE', 'DATA', 'AGE'],
    cells: (o, now) => {
      const secret = o as Secret;
      return [secret.type ?? '', String(Object.keys(secret.data ?? {}).length), age(o, now)];
    },
  },
  {
    kind: 'PersistentVolumeClaim',
    resource: 'persistentvolumeclaim',
    columns: ['STATUS', 'VOLUME', 'CAPACITY', 'ACCESS MODES', 'STORAGECLASS', 'VOLUMEATTRIBUTESCLASS', 'AGE'],
    cells: (o, now) => claimCells(o as PersistentVolumeClaim, now),
    wide: { columns: ['VOLUMEMODE'], cells: (o) => [(o as PersistentVolumeClaim).spec.volumeMode ?? '<unset>'] },
  },
];

/** The access modes' short names, in kubectl's order (GetAccessModesAsString). */
const ACCESS_MODES: [string, string][] = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];

/** What kubectl's printer and describer show of a claim's storage: capacity and access modes only once it names its volume. */
export function claimStorage(claim: PersistentVolumeClaim): { storageClass: string; capacity: string; accessModes: string } {
  const bound = !!claim.spec.volumeName;
  const modes = ACCESS_MODES.filter(([mode]) => claim.status?.accessModes?.includes(mode)).map(([, short]) => short);
  const storage = claim.status?.capacity?.storage;
  return {
    storageClass: claim.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? claim.spec.storageClassName ?? '',
    capacity: bound ? (storage === undefined ? '0' : canonicalQuantity(storage)) : '',
    accessModes: bound ? modes.join(',') : '',
  };
}

function claimCells(claim: PersistentVolumeClaim, now: number): string[] {
  const { storageClass, capacity, accessModes } = claimStorage(claim);
  return [
    claim.metadata.deletionTimestamp ? 'Terminating' : (claim.status?.phase ?? ''),
    claim.spec.volumeName ?? '',
    capacity,
    accessModes,
    storageClass,
    claim.spec.volumeAttributesClassName ?? '<unset>',
    age(claim, now),
  ];
}

/** kubectl's job printer: the status from the conditions, completions, and how long it ran. */
function jobCells(job: Job, now: number): string[] {
  const conditions = job.status?.conditions ?? [];
  const has = (type: string) => conditions.some((c) => c.type === type && c.status === 'True');
  const status = has('Complete')
    ? 'Complete'
    : has('Failed')
      ? 'Failed'
      : has('FailureTarget')
        ? 'FailureTarget'
        : has('SuccessCriteriaMet')
          ? 'SuccessCriteriaMet'
          : job.spec.suspend
            ? 'Suspended'
            : 'Running';
  const completions =
    job.spec.completions !== undefined && job.spec.completions !== null
      ? `${n(job.status?.succeeded)}/${job.spec.completions}`
      : `${n(job.status?.succeeded)}/1 of ${n(job.spec.parallelism)}`;
  const start = job.status?.startTime ? Date.parse(job.status.startTime) : undefined;
  const end = job.status?.completionTime ? Date.parse(job.status.completionTime) : now;
  return [status, completions, start !== undefined ? humanDuration(end - start) : '', age(job, now)];
}

/** Columns that change with the clock alone: left out of a row that is sent when the object changes. */
const CLOCKED = new Set(['AGE', 'DURATION', 'LAST SCHEDULE']);

/** One workload's row, column by column, without the columns that move with the clock; undefined for other kinds. */
export function workloadRow(o: KubeObject, now: number): { resource: string; cells: [string, string][] } | undefined {
  const table = TABLES.find((t) => t.kind === o.kind);
  if (!table) return undefined;
  const values = table.cells(o, now);
  const cells = table.columns.map((column, i): [string, string] => [column, values[i]]).filter(([column]) => !CLOCKED.has(column));
  return { resource: table.resource, cells };
}

/**
 * The tables of every kind that has objects, in the order their kinds come
 * in OBJECTS (the order they were asked for), blank lines between them; only
 * NAMESPACE's objects unless it is undefined (then with a NAMESPACE column).
 * Names go after their resource (`deployment.apps/web`) unless PREFIXED is
 * false, as kubectl get prints one kind it was asked for alone; WIDE adds
 * -o wide's columns (containers, images, selector).
 */
export function workloadTables(objects: KubeObject[], now: number, namespace: string | undefined, prefixed = true, wide = false): string[] {
  const out: string[] = [];
  const kinds = [...new Set(objects.map((o) => o.kind))];
  for (const table of kinds.flatMap((kind) => TABLES.filter((t) => t.kind === kind))) {
    const mine = objects.filter((o) => o.kind === table.kind && (namespace === undefined || o.metadata.namespace === namespace));
    if (mine.length === 0) continue;
    const extra = wide ? table.wide : undefined;
    const header = [...(namespace === undefined ? ['NAMESPACE'] : []), 'NAME', ...table.columns, ...(extra?.columns ?? [])];
    const rows = mine.map((o) => [
      ...(namespace === undefined ? [o.metadata.namespace ?? ''] : []),
      prefixed ? `${table.resource}/${o.metadata.name}` : (o.metadata.name ?? ''),
      ...table.cells(o, now),
      ...(extra?.cells(o) ?? []),
    ]);
    out.push(formatTable(header, rows));
  }
  return out;
}
