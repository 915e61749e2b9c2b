import type { Event } from '../engine/api/cluster.js';
import { parseCpu, parseMemory } from '../engine/api/quantity.js';
import type { Container, ContainerStatus, EnvVar, Pod, Quantity } from '../engine/api/v1.js';
import { qosClassOf } from '../engine/status/qos.js';
import {
  age,
  annotationsMultiline,
  finishDescription,
  describeProbe,
  describeResources,
  describeState,
  describeVolumes,
  labelsMultiline,
  ports,
  PrefixWriter,
  rfc1123z,
  tolerationsMultiline,
} from './describe-parts.js';

/**
 * `kubectl describe pod` of one pod, laid out as kubectl's describePod does
 * (read from k8s.io/kubectl/pkg/describe, written anew): the pod's fields,
 * its containers with their states, conditions, volumes, QoS class and, when
 * given, its events. `events` undefined leaves the Events section out (as
 * `--show-events=false`). `specKnown` false (a pod rebuilt from the runtime)
 * leaves the QoS class unknown: the resources it derives from are not there.
 */
export function describePod(pod: Pod, events: Event[] | undefined, now: number, specKnown = true): string {
  const w = new PrefixWriter();
  const { metadata, spec } = pod;
  const status = pod.status ?? {};
  w.write(0, `Name:\t${metadata.name ?? ''}\n`);
  w.write(0, `Namespace:\t${metadata.namespace ?? 'default'}\n`);
  if (spec.priority !== undefined) w.write(0, `Priority:\t${spec.priority}\n`);
  if (spec.priorityClassName) w.write(0, `Priority Class Name:\t${spec.priorityClassName}\n`);
  const runtimeClass = (spec as { runtimeClassName?: string }).runtimeClassName;
  if (runtimeClass) w.write(0, `Runtime Class Name:\t${runtimeClass}\n`);
  if (spec.serviceAccountName) w.write(0, `Service Account:\t${spec.serviceAccountName}\n`);
  w.write(0, `Node:\t${spec.nodeName ? `${spec.nodeName}/${status.hostIP ?? ''}` : '<none>'}\n`);
  if (status.startTime) w.write(0, `Start Time:\t${rfc1123z(status.startTime)}\n`);
  labelsMultiline(w, 'Labels', metadata.labels);
  // A pod from the apiserver carries the kubelet's config annotations in the node's copy only: left out, as kubectl shows it.
  const fromApi = metadata.annotations?.['kubernetes.io/config.source'] === 'api';
  annotationsMultiline(w, 'Annotations', metadata.annotations, fromApi ? ['kubernetes.io/config.seen', 'kubernetes.io/config.source'] : []);
  if (metadata.deletionTimestamp && status.phase !== 'Failed' && status.phase !== 'Succeeded') {
    w.write(0, `Status:\tTerminating (lasts ${age(metadata.deletionTimestamp, now)})\n`);
    w.write(0, `Termination Grace Period:\t${metadata.deletionGracePeriodSeconds ?? 0}s\n`);
  } else w.write(0, `Status:\t${status.phase ?? ''}\n`);
  if (status.reason) w.write(0, `Reason:\t${status.reason}\n`);
  if (status.message) w.write(0, `Message:\t${status.message}\n`);
  const seccomp = (spec.securityContext as { seccompProfile?: { type: string; localhostProfile?: string } } | undefined)?.seccompProfile;
  if (seccomp) {
    w.write(0, `SeccompProfile:\t${seccomp.type}\n`);
    if (seccomp.type === 'Localhost') w.write(0, `LocalhostProfile:\t${seccomp.localhostProfile ?? ''}\n`);
  }
  w.write(0, `IP:\t${status.podIP ?? ''}\n`);
  if (status.podIPs?.length) {
    w.write(0, 'IPs:\n');
    for (const ip of status.podIPs) w.write(1, `IP:\t${ip.ip}\n`);
  } else w.write(0, 'IPs:\t<none>\n');
  const controller = metadata.ownerReferences?.find((o) => o.controller);
  if (controller) w.write(0, `Controlled By:\t${controller.kind}/${controller.name}\n`);
  if (spec.initContainers?.length) describeContainers(w, 'Init Containers', spec.initContainers, status.initContainerStatuses, pod);
  describeContainers(w, 'Containers', spec.containers, status.containerStatuses, pod);
  if (status.conditions?.length) {
    w.write(0, 'Conditions:\n  Type\tStatus\n');
    for (const c of status.conditions) w.write(1, `${c.type} \t${c.status} \n`);
  }
  describeVolumes(w, spec.volumes);
  w.write(0, `QoS Class:\t${specKnown ? (status.qosClass ?? qosClassOf(pod)) : '<unknown>'}\n`);
  labelsMultiline(w, 'Node-Selectors', spec.nodeSelector);
  tolerationsMultiline(w, 'Tolerations', spec.tolerations);
  return finishDescription(w, events, now);
}

/**
 * describeContainers, for a pod (its statuses given) or a pod template
 * (SPACE "  ": the title indented by it and each name by one more space, as
 * kubectl's DescribePodTemplate prints them; no statuses).
 */
export function describeContainers(
  w: PrefixWriter,
  title: string,
  containers: Container[],
  statuses: ContainerStatus[] = [],
  pod: Pod,
  space = '',
): void {
  w.write(0, `${space}${title}:${containers.length ? '' : ' <none>'}\n`);
  for (const c of containers) {
    const status = statuses.find((s) => s.name === c.name);
    w.write(1, `${space ? ' ' : ''}${c.name}:\n`);
    if (status) w.write(2, `Container ID:\t${status.containerID ?? ''}\n`);
    w.write(2, `Image:\t${c.image ?? ''}\n`);
    if (status) w.write(2, `Image ID:\t${status.imageID ?? ''}\n`);
    const [port, hostPort] = [ports(c.ports, false), ports(c.ports, true)];
    w.write(2, port.includes(',') ? `Ports:\t${port}\n` : `Port:\t${port || '<none>'}\n`);
    w.write(2, hostPort.includes(',') ? `Host Ports:\t${hostPort}\n` : `Host Port:\t${hostPort || '<none>'}\n`);
    const seccomp = (c.securityContext as { seccompProfile?: { type: string; localhostProfile?: string } } | undefined)?.seccompProfile;
    if (seccomp) {
      w.write(2, `SeccompProfile:\t${seccomp.type}\n`);
      if (seccomp.type === 'Localhost') w.write(3, `LocalhostProfile:\t${seccomp.localhostProfile ?? ''}\n`);
    }
    for (const [label, lines] of [
      ['Command', c.command],
      ['Args', c.args],
    ] as const) {
      if (!lines?.length) continue;
      w.write(2, `${label}:\n`);
      for (const line of lines.flatMap((l) => l.split('\n'))) w.write(3, `${line}\n`);
    }
    if (status) {
      describeState(w, 'State', status.state);
      if (status.lastState?.terminated) describeState(w, 'Last State', status.lastState);
      w.write(2, `Ready:\t${status.ready ? 'True' : 'False'}\n`);
      w.write(2, `Restart Count:\t${status.restartCount}\n`);
    }
    describeResources(w, c.resources, 2);
    if (c.livenessProbe) w.write(2, `Liveness:\t${describeProbe(c.livenessProbe)}\n`);
    if (c.readinessProbe) w.write(2, `Readiness:\t${describeProbe(c.readinessProbe)}\n`);
    if (c.startupProbe) w.write(2, `Startup:\t${describeProbe(c.startupProbe)}\n`);
    if (c.envFrom?.length) {
      w.write(2, 'Environment Variables from:\n');
      for (const e of c.envFrom) {
        const [from, ref] = e.configMapRef ? ['ConfigMap', e.configMapRef] : ['Secret', e.secretRef];
        const optional = ref?.optional === true;
        w.write(3, `${ref?.name ?? ''}\t${from}${e.prefix ? ` with prefix '${e.prefix}'` : ''}\tOptional: ${optional}\n`);
      }
    }
    w.write(2, `Environment:${c.env?.length ? '' : '\t<none>'}\n`);
    for (const e of c.env ?? []) describeEnv(w, e, c, pod);
    const mounts = [...(c.volumeMounts ?? [])].sort((a, b) => (a.mountPath < b.mountPath ? -1 : a.mountPath > b.mountPath ? 1 : 0));
    w.write(2, `Mounts:${mounts.length ? '' : '\t<none>'}\n`);
    for (const m of mounts)
      w.write(
        3,
        `${m.mountPath} from ${m.name} (${[m.readOnly ? 'ro' : 'rw', ...(m.subPath ? [`path=${JSON.stringify(m.subPath)}`] : [])].join(',')})\n`,
      );
  }
}

function describeEnv(w: PrefixWriter, e: EnvVar, c: Container, pod: Pod): void {
  const from = e.valueFrom;
  if (!from) {
    (e.value ?? '').split('\n').forEach((line, i) => w.write(3, i === 0 ? `${e.name}:\t${line}\n` : `\t${line}\n`));
  } else if (from.fieldRef) {
    w.write(
      3,
      `${e.name}:\t${fieldValue(pod, from.fieldRef.fieldPath)} (${from.fieldRef.apiVersion ?? 'v1'}:${from.fieldRef.fieldPath})\n`,
    );
  } else if (from.resourceFieldRef) {
    const resource = from.resourceFieldRef.resource;
    let value = resourceValue(c, resource, from.resourceFieldRef.divisor);
    if (value === '0' && (resource === 'limits.cpu' || resource === 'limits.memory')) value = 'node allocatable';
    w.write(3, `${e.name}:\t${value} (${resource})\n`);
  } else if (from.secretKeyRef) {
    const { key, name, optional } = from.secretKeyRef;
    w.write(3, `${e.name}:\t<set to the key '${key}' in secret '${name ?? ''}'>\tOptional: ${optional === true}\n`);
  } else if (from.configMapKeyRef) {
    const { key, name, optional } = from.configMapKeyRef;
    w.write(3, `${e.name}:\t<set to the key '${key}' of config map '${name ?? ''}'>\tOptional: ${optional === true}\n`);
  }
}

/**
 * kubectl's EnvValueRetriever: it converts the field path with client-go's
 * scheme, which knows only metadata.name and metadata.namespace for pods;
 * any other field (labels, the pod IP...) prints empty there, and so here.
 */
function fieldValue(pod: Pod, path: string): string {
  if (path === 'metadata.name') return pod.metadata.name ?? '';
  if (path === 'metadata.namespace') return pod.metadata.namespace ?? '';
  return '';
}

/** ExtractContainerResourceValue: CPU in whole divisors (1 core by default), rounded up; memory and storage in bytes over the divisor. */
function resourceValue(c: Container, resource: string, divisor: Quantity | undefined): string {
  const [kind, name] = resource.split('.', 2) as ['limits' | 'requests', string];
  const quantity = c.resources?.[kind]?.[name] ?? 0;
  if (name === 'cpu') return String(Math.ceil(parseCpu(quantity) / (parseCpu(divisor ?? 1) || 1000)));
  return String(Math.ceil(parseMemory(quantity) / (parseMemory(divisor ?? 1) || 1)));
}
