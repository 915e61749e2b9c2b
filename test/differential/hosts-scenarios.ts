// The differential's /etc/hosts and hostname scenarios: the container writes
// the file (or its hostname) to its termination message, so the two agents'
// files are compared in the pods' statuses. On the pod network the pod's IP
// differs per run, so the container writes it as <ip> (from the downward API).
import type { Container, PodSpec } from '../../src/engine/api/v1.js';
import { pod, sh } from './scenario-parts.js';
import type { Scenario } from './scenarios.js';

/** A container that puts the output of WHAT (and its errors), its pod IP blanked, in its termination message. */
function show(what: string): Container {
  // A host-network pod of a standalone kubelet has no IP: nothing to blank then.
  return sh('main', `${what} 2>&1 | sed "s/\${POD_IP:-<no ip>}/<ip>/g" > /dev/termination-log 2>&1`, {
    env: [{ name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }],
  });
}

/** A pod on the pod network that exits 0 once it has shown what it shows. */
function onPodNetwork(what: string, extra: Partial<PodSpec> = {}): PodSpec {
  return { restartPolicy: 'Never', terminationGracePeriodSeconds: 2, containers: [show(what)], ...extra };
}

const ALIASES = [
  { ip: '10.1.2.3', hostnames: ['foo.local', 'bar.local'] },
  { ip: '10.1.2.4', hostnames: ['baz'] },
];

/** A name of 73 characters whose first 63 end in a dash (the static pod's name adds `-diffnode`). */
const LONG = `hostname-long-${'x'.repeat(48)}-and-the-rest`;

export const hostsScenarios: Scenario[] = [
  {
    name: 'hosts-pod-network',
    what: "the kubelet-managed /etc/hosts of a pod on the pod network (the pod's name and IP)",
    spec: onPodNetwork('cat /etc/hosts'),
  },
  {
    name: 'hosts-aliases',
    what: 'hostAliases on the pod network: their lines after the managed ones',
    spec: onPodNetwork('cat /etc/hosts', { hostAliases: ALIASES }),
  },
  {
    name: 'hosts-aliases-host-net',
    what: "hostAliases on the host network: the host's /etc/hosts, then the aliases",
    spec: pod([show('cat /etc/hosts')], { restartPolicy: 'Never', hostAliases: ALIASES }),
  },
  {
    name: 'hosts-hostname-only',
    what: "spec.hostname without a subdomain: the pod's hostname and its hosts line",
    spec: onPodNetwork('(hostname; cat /etc/hosts)', { hostname: 'custom' }),
  },
  {
    name: LONG,
    what: 'a pod name of more than 63 characters: the hostname is cut to 63 and its trailing dash dropped',
    spec: onPodNetwork('(hostname; cat /etc/hosts)'),
  },
];
