import { humanDuration } from '../engine/api/printers.js';
import { canonicalQuantity } from '../engine/api/quantity.js';
import type { Event } from '../engine/api/cluster.js';
import type { Container, ContainerPort, ContainerState, Pod, Probe, Volume } from '../engine/api/v1.js';
import { TabWriter } from '../util/tabwriter.js';
import { eventInterval, sortEvents } from './event-table.js';

/** kubectl describe's PrefixWriter: lines, each indented two spaces a level, cells ending in tabs. */
export class PrefixWriter {
  readonly chunks: string[] = [''];

  write(level: number, text: string): void {
    this.chunks[this.chunks.length - 1] += '  '.repeat(level) + text;
  }

  /** Go's tabwriter Flush: what follows is aligned on its own. */
  flush(): void {
    this.chunks.push('');
  }
}

/** Go's time.RFC1123Z in the local zone, as kubectl prints times: "Mon, 02 Jan 2006 15:04:05 -0700". */
export function rfc1123z(time: string | undefined): string {
  const d = new Date(time ?? 0);
  const pad = (n: number) => String(n).padStart(2, '0');
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const offset = -d.getTimezoneOffset();
  const zone = `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}${pad(Math.abs(offset) % 60)}`;
  return `${days[d.getDay()]}, ${pad(d.getDate())} ${months[d.getMonth()]} ${d.getFullYear()} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${zone}`;
}

/** printLabelsMultiline: "Labels:\tk=v", then one "\tk=v" a line, sorted; `<none>` when empty. */
export function labelsMultiline(w: PrefixWriter, title: string, labels: Record<string, string> | undefined, skip: string[] = []): void {
  w.write(0, `${title}:\t`);
  const keys = Object.keys(labels ?? {})
    .filter((k) => !skip.includes(k))
    .sort();
  if (keys.length === 0) return w.write(0, '<none>\n');
  keys.forEach((key, i) => w.write(0, `${i ? '\t' : ''}${key}=${labels![key]}\n`));
}

/** printAnnotationsMultiline: long or multi-line values go on lines of their own, cut at 140 characters. */
export function annotationsMultiline(
  w: PrefixWriter,
  title: string,
  annotations: Record<string, string> | undefined,
  skip: string[] = [],
): void {
  w.write(0, `${title}:\t`);
  const keys = Object.keys(annotations ?? {})
    .filter((k) => k !== 'kubectl.kubernetes.io/last-applied-configuration' && !skip.includes(k))
    .sort();
  if (keys.length === 0) return w.write(0, '<none>\n');
  keys.forEach((key, i) => {
    if (i) w.write(0, '\t');
    const value = annotations![key].replace(/\n$/, '');
    if (value.length + key.length + 2 > 140 || value.includes('\n')) {
      w.write(0, `${key}:\n`);
      for (const line of value.split('\n')) w.write(0, `\t  ${line.length > 138 ? `${line.slice(0, 138)}...` : line}\n`);
    } else w.write(0, `${key}: ${value}\n`);
  });
}

export function tolerationsMultiline(w: PrefixWriter, title: string, tolerations: Pod['spec']['tolerations']): void {
  w.write(0, `${title}:\t`);
  if (!tolerations?.length) return w.write(0, '<none>\n');
  [...tolerations]
    .sort((a, b) => ((a.key ?? '') < (b.key ?? '') ? -1 : (a.key ?? '') > (b.key ?? '') ? 1 : 0))
    .forEach((t, i) => {
      let line = `${i ? '\t' : ''}${t.key ?? ''}`;
      if (t.value) line += `=${t.value}`;
      if (t.effect) line += `:${t.effect}`;
      if (t.operator === 'Exists' && !t.value) line += t.key || t.effect ? ' op=Exists' : 'op=Exists';
      if (t.tolerationSeconds !== undefined) line += ` for ${t.tolerationSeconds}s`;
      w.write(0, `${line}\n`);
    });
}

export function ports(list: ContainerPort[] | undefined, host: boolean): string {
  return (list ?? [])
    .map((p) => `${host ? (p.hostPort ?? 0) : p.containerPort}/${p.protocol ?? 'TCP'}${p.name ? ` (${p.name})` : ''}`)
    .join(', ');
}

/** DescribeProbe, with the apiserver's defaults for what the manifest left out. */
export function describeProbe(probe: Probe): string {
  const attrs =
    `delay=${probe.initialDelaySeconds ?? 0}s timeout=${probe.timeoutSeconds ?? 1}s period=${probe.periodSeconds ?? 10}s ` +
    `successThreshold=${probe.successThreshold ?? 1} failureThreshold=${probe.failureThreshold ?? 3}`;
  if (probe.exec) return `exec [${(probe.exec.command ?? []).join(' ')}] ${attrs}`;
  if (probe.httpGet) {
    const host = probe.httpGet.host ?? '';
    const port = String(probe.httpGet.port);
    const joined = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    return `http-get ${(probe.httpGet.scheme ?? 'HTTP').toLowerCase()}://${joined}${probe.httpGet.path ?? ''} ${attrs}`;
  }
  if (probe.tcpSocket) return `tcp-socket ${probe.tcpSocket.host ?? ''}:${probe.tcpSocket.port} ${attrs}`;
  if (probe.grpc) return `grpc <pod>:${probe.grpc.port} ${probe.grpc.service ?? ''} ${attrs}`;
  return `unknown ${attrs}`;
}

export function describeResources(w: PrefixWriter, resources: Container['resources'], level: number): void {
  for (const [title, list] of [
    ['Limits', resources?.limits],
    ['Requests', resources?.requests],
  ] as const) {
    const names = Object.keys(list ?? {}).sort();
    if (names.length) w.write(level, `${title}:\n`);
    for (const name of names) w.write(level + 1, `${name}:\t${canonicalQuantity(list![name])}\n`);
  }
}

/** describeStatus: Running with its start, Waiting with its reason, Terminated with its exit code and times. */
export function describeState(w: PrefixWriter, title: string, state: ContainerState | undefined): void {
  if (state?.running) {
    w.write(2, `${title}:\tRunning\n`);
    w.write(3, `Started:\t${rfc1123z(state.running.startedAt)}\n`);
  } else if (state?.terminated) {
    const t = state.terminated;
    w.write(2, `${title}:\tTerminated\n`);
    if (t.reason) w.write(3, `Reason:\t${t.reason}\n`);
    if (t.message) w.write(3, `Message:\t${t.message}\n`);
    w.write(3, `Exit Code:\t${t.exitCode}\n`);
    if (t.signal) w.write(3, `Signal:\t${t.signal}\n`);
    w.write(3, `Started:\t${rfc1123z(t.startedAt)}\n`);
    w.write(3, `Finished:\t${rfc1123z(t.finishedAt)}\n`);
  } else {
    w.write(2, `${title}:\tWaiting\n`);
    if (state?.waiting?.reason) w.write(3, `Reason:\t${state.waiting.reason}\n`);
  }
}

/** describeVolumes; in a pod template (SPACE "  ") the title is indented by it and each name by one more space, the rest as in a pod. */
export function describeVolumes(w: PrefixWriter, volumes: Volume[] | undefined, space = ''): void {
  if (!volumes?.length) return w.write(0, `${space}Volumes:\t<none>\n`);
  w.write(0, `${space}Volumes:\n`);
  for (const v of volumes) {
    w.write(1, `${space ? ' ' : ''}${v.name}:\n`);
    const source = v as Record<string, Record<string, unknown> | undefined>;
    const optional = (o: Record<string, unknown> | undefined) => o?.optional === true;
    if (v.hostPath) {
      w.write(
        2,
        `Type:\tHostPath (bare host directory volume)\n    Path:\t${v.hostPath.path}\n    HostPathType:\t${v.hostPath.type || '<none>'}\n`,
      );
    } else if (v.emptyDir) {
      const limit =
        v.emptyDir.sizeLimit !== undefined && canonicalQuantity(v.emptyDir.sizeLimit) !== '0'
          ? canonicalQuantity(v.emptyDir.sizeLimit)
          : '<unset>';
      w.write(
        2,
        `Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)\n    Medium:\t${v.emptyDir.medium ?? ''}\n    SizeLimit:\t${limit}\n`,
      );
    } else if (source.secret) {
      w.write(
        2,
        `Type:\tSecret (a volume populated by a Secret)\n    SecretName:\t${source.secret.secretName as string}\n    Optional:\t${optional(source.secret)}\n`,
      );
    } else if (source.configMap) {
      w.write(
        2,
        `Type:\tConfigMap (a volume populated by a ConfigMap)\n    Name:\t${source.configMap.name as string}\n    Optional:\t${optional(source.configMap)}\n`,
      );
    } else if (source.persistentVolumeClaim) {
      const claim = source.persistentVolumeClaim;
      w.write(
        2,
        `Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)\n    ClaimName:\t${claim.claimName as string}\n    ReadOnly:\t${claim.readOnly === true}\n`,
      );
    } else if (source.downwardAPI) {
      w.write(2, 'Type:\tDownwardAPI (a volume populated by information about the pod)\n    Items:\n');
      for (const item of (source.downwardAPI.items ?? []) as {
        path: string;
        fieldRef?: { fieldPath: string };
        resourceFieldRef?: { resource: string };
      }[]) {
        if (item.fieldRef) w.write(3, `${item.fieldRef.fieldPath} -> ${item.path}\n`);
        if (item.resourceFieldRef) w.write(3, `${item.resourceFieldRef.resource} -> ${item.path}\n`);
      }
    } else if (source.projected) {
      w.write(2, 'Type:\tProjected (a volume that contains injected data from multiple sources)\n');
      for (const s of (source.projected.sources ?? []) as Record<string, Record<string, unknown> | undefined>[]) {
        if (s.secret) w.write(2, `SecretName:\t${s.secret.name as string}\n    Optional:\t${optional(s.secret)}\n`);
        else if (s.downwardAPI) w.write(2, 'DownwardAPI:\ttrue\n');
        else if (s.configMap) w.write(2, `ConfigMapName:\t${s.configMap.name as string}\n    Optional:\t${optional(s.configMap)}\n`);
        else if (s.serviceAccountToken)
          w.write(2, `TokenExpirationSeconds:\t${(s.serviceAccountToken.expirationSeconds as number) ?? 3607}\n`);
      }
    } else if (v.image) {
      w.write(
        2,
        `Type:\tImage (a container image or OCI artifact)\n    Reference:\t${v.image.reference ?? ''}\n    PullPolicy:\t${v.image.pullPolicy ?? ''}\n`,
      );
    } else w.write(2, '<unknown>\n');
  }
}

/** DescribeEvents: Type, Reason, Age, From, Message, oldest first; the message names the container's field. */
export function describeEvents(w: PrefixWriter, events: Event[], now: number): void {
  if (events.length === 0) return w.write(0, 'Events:\t<none>\n');
  w.flush();
  w.write(0, 'Events:\n  Type\tReason\tAge\tFrom\tMessage\n');
  w.write(1, '----\t------\t----\t----\t-------\n');
  for (const e of sortEvents(events)) {
    const message = e.involvedObject.fieldPath ? `${e.involvedObject.fieldPath}: ${e.message.trim()}` : e.message.trim();
    w.write(1, `${e.type}\t${e.reason}\t${eventInterval(e, now)}\t${e.source.component || (e.reportingComponent ?? '')}\t${message}\n`);
  }
}

/** The end of a description: its events when given, then each part aligned as kubectl's tabbedString aligns it. */
export function finishDescription(w: PrefixWriter, events: Event[] | undefined, now: number): string {
  if (events) describeEvents(w, events, now);
  const tabs = new TabWriter({ minWidth: 0, padding: 2 });
  return w.chunks.map((chunk) => tabs.format(chunk)).join('');
}

/** The age of a time, as kubectl prints it. */
export function age(time: string | undefined, now: number): string {
  return time ? humanDuration(now - Date.parse(time)) : '<unknown>';
}
