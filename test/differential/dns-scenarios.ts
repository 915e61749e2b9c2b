// The differential's DNS scenarios: one pod per dnsPolicy (and dnsConfig
// merged, and cut to the resolver's limits) whose container writes its
// /etc/resolv.conf to its termination message, so the two agents' files are
// compared in the pods' statuses. Both agents run with the same
// --cluster-dns and --cluster-domain (harness.ts); the runtime is the same
// containerd 2, which writes the file from the sandbox's DNSConfig.
import type { PodSpec } from '../../src/engine/api/v1.js';
import type { Scenario } from './scenarios.js';

/** The cluster DNS server and domain both agents are given. */
export const CLUSTER_DNS = '10.96.0.10';
export const CLUSTER_DOMAIN = 'cluster.local';

/** A pod that puts its resolv.conf in its termination message and exits 0; `hostNetwork` unless said. */
function resolvPod(extra: Partial<PodSpec>): PodSpec {
  return {
    hostNetwork: true,
    restartPolicy: 'Never',
    terminationGracePeriodSeconds: 2,
    containers: [
      {
        name: 'main',
        image: 'busybox:1.36',
        imagePullPolicy: 'IfNotPresent',
        command: ['sh', '-c', 'cat /etc/resolv.conf > /dev/termination-log'],
      },
    ],
    ...extra,
  };
}

// One option at most per pod: the kubelet keeps options in a Go map, so the order of two is random.
export const dnsScenarios: Scenario[] = [
  {
    name: 'dns-cluster-first',
    what: 'dnsPolicy ClusterFirst (the default) on the pod network: the cluster DNS, the cluster search paths, ndots:5',
    spec: resolvPod({ hostNetwork: false }),
  },
  {
    name: 'dns-cluster-first-host-net',
    what: "dnsPolicy ClusterFirst on the host network: the host's resolver (as Default)",
    spec: resolvPod({ dnsPolicy: 'ClusterFirst' }),
  },
  {
    name: 'dns-cluster-first-with-host-net',
    what: 'dnsPolicy ClusterFirstWithHostNet on the host network: the cluster DNS',
    spec: resolvPod({ dnsPolicy: 'ClusterFirstWithHostNet' }),
  },
  {
    name: 'dns-default',
    what: "dnsPolicy Default on the pod network: the host's resolver",
    spec: resolvPod({ hostNetwork: false, dnsPolicy: 'Default' }),
  },
  {
    name: 'dns-none',
    what: "dnsPolicy None: the pod's dnsConfig only",
    spec: resolvPod({
      dnsPolicy: 'None',
      dnsConfig: { nameservers: ['203.0.113.1'], searches: ['my.example'], options: [{ name: 'ndots', value: '2' }] },
    }),
  },
  {
    name: 'dns-config-merged',
    what: 'ClusterFirst with a dnsConfig: 4 nameservers cut to 3, its search path appended, its ndots winning',
    spec: resolvPod({
      hostNetwork: false,
      dnsConfig: {
        nameservers: ['203.0.113.1', '203.0.113.2', '203.0.113.3'],
        searches: ['my.example', 'svc.cluster.local'],
        options: [{ name: 'ndots', value: '1' }],
      },
    }),
  },
  {
    name: 'dns-search-limit',
    what: "ClusterFirst with 32 search paths of the pod's: 35 in all, cut to 32",
    spec: resolvPod({
      hostNetwork: false,
      dnsConfig: { searches: Array.from({ length: 32 }, (_, i) => `s${i + 1}.example`) },
    }),
  },
];
