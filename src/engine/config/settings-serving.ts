import type { Setting } from './settings.js';

/**
 * The settings of a node that serves others, in the one table's order
 * (SETTINGS spreads them in): the read-only and kubelet APIs' addresses,
 * ports and certificates, pod DNS, and the Node's status and Lease
 * frequencies, with the kubelet's names and defaults.
 */
export const SERVING_SETTINGS: readonly Setting[] = [
  {
    field: 'address',
    name: 'address',
    file: true,
    flag: 'address',
    commands: ['run'],
    type: 'string',
    default: '127.0.0.1',
    description: 'Address of the read-only API (loopback unless --allow-remote)',
  },
  {
    field: 'readOnlyPort',
    name: 'readOnlyPort',
    file: true,
    flag: 'read-only-port',
    commands: ['run'],
    type: 'int',
    default: 10255,
    description:
      'Port of the read-only API (/pods, /healthz, /metrics ...); 0 turns TCP off (the unix socket <root-dir>/run/knode.sock stays)',
  },
  {
    field: 'port',
    name: 'port',
    file: true,
    flag: 'port',
    commands: ['run'],
    type: 'int',
    default: 10250,
    description: 'Port of the kubelet API (HTTPS, on --node-ip; served with --kubeconfig, for kubectl logs); 0 turns it off',
  },
  {
    field: 'tlsCertFile',
    name: 'tlsCertFile',
    file: true,
    flag: 'tls-cert-file',
    commands: ['run'],
    type: 'string',
    defaultText: 'self-signed, made under --root-dir',
    description: 'Serving certificate of the kubelet API',
  },
  {
    field: 'tlsPrivateKeyFile',
    name: 'tlsPrivateKeyFile',
    file: true,
    flag: 'tls-private-key-file',
    commands: ['run'],
    type: 'string',
    description: 'Key of --tls-cert-file',
  },
  {
    field: 'clusterDomain',
    name: 'clusterDomain',
    file: true,
    flag: 'cluster-domain',
    commands: ['run', 'apply'],
    type: 'string',
    // The kubelet's default is empty; kubeadm and every cluster knode joins set cluster.local.
    default: 'cluster.local',
    description:
      "The cluster's DNS domain: ClusterFirst pods search NAMESPACE.svc.DOMAIN, svc.DOMAIN and DOMAIN before the host's search paths, and a pod with a subdomain gets the name HOSTNAME.SUBDOMAIN.NAMESPACE.svc.DOMAIN in its /etc/hosts. Empty: no cluster search paths, and that name ends in svc.",
  },
  {
    field: 'clusterDNS',
    name: 'clusterDNS',
    file: true,
    flag: 'cluster-dns',
    commands: ['run', 'apply'],
    type: 'strings',
    default: [],
    description:
      "Comma-separated IPs of the cluster DNS servers: the nameservers of ClusterFirst pods (and ClusterFirstWithHostNet ones). None: such pods get the host's resolver, with a MissingClusterDNS warning",
  },
  {
    field: 'resolvConf',
    name: 'resolvConf',
    file: true,
    flag: 'resolv-conf',
    commands: ['run', 'apply'],
    type: 'string',
    default: '/etc/resolv.conf',
    description:
      "The resolver file pods with dnsPolicy Default get (its nameservers, search paths and options), and whose search paths ClusterFirst pods add to the cluster's. Empty: those pods use the node's loopback as nameserver",
  },
  {
    field: 'nodeStatusUpdateFrequency',
    name: 'nodeStatusUpdateFrequency',
    file: true,
    flag: 'node-status-update-frequency',
    commands: ['run'],
    type: 'duration',
    default: 10_000,
    description: 'How often the Node status is computed and, when it changed, written (Go duration)',
  },
  {
    field: 'nodeStatusReportFrequency',
    name: 'nodeStatusReportFrequency',
    file: true,
    commands: [],
    type: 'duration',
    default: 300_000,
    description: 'How often the Node status is written even when nothing changed',
  },
  {
    field: 'nodeLeaseDurationSeconds',
    name: 'nodeLeaseDurationSeconds',
    file: true,
    commands: [],
    type: 'int',
    default: 40,
    description: "The node Lease's duration in seconds; it is renewed every quarter of it",
  },
];
