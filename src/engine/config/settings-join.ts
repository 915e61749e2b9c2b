import { join } from 'node:path';
import type { Setting, SettingContext } from './settings.js';

/**
 * The settings of a node's identity in a cluster, in the one table's order
 * (SETTINGS spreads them in): TLS bootstrap, where the certificates are kept,
 * their renewal, and the taints the Node registers with.
 */
export const JOIN_SETTINGS: readonly Setting[] = [
  {
    field: 'bootstrapKubeconfig',
    name: 'bootstrapKubeconfig',
    file: false,
    flag: 'bootstrap-kubeconfig',
    commands: ['run'],
    type: 'path',
    unprinted: true,
    description:
      'A kubeconfig with bootstrap credentials (a bootstrap token): when --kubeconfig is missing or its certificate expired, the node asks the cluster for a client certificate with it (a CertificateSigningRequest) and writes --kubeconfig',
  },
  {
    field: 'certDirectory',
    name: 'certDirectory',
    file: false,
    flag: 'cert-dir',
    commands: ['run'],
    type: 'path',
    unprinted: true,
    default: (c: SettingContext) => join(c.rootDir, 'pki'),
    defaultText: '<root-dir>/pki',
    description: 'Where the node keeps its certificates and keys: kubelet-client-current.pem and the files it points to',
  },
  {
    field: 'rotateCertificates',
    name: 'rotateCertificates',
    file: true,
    flag: 'rotate-certificates',
    allowNo: true,
    commands: ['run'],
    type: 'bool',
    // The kubelet's default is false; kubeadm turns it on, and so does every node knode joins.
    default: true,
    description:
      "Renew the node's client certificate through the cluster before it expires (a new key and CSR at 70–90 % of its lifetime); new connections use the new one",
  },

  {
    field: 'serverTLSBootstrap',
    name: 'serverTLSBootstrap',
    file: true,
    commands: [],
    type: 'bool',
    default: false,
    description:
      "Request the kubelet API's serving certificate from the cluster (signer kubernetes.io/kubelet-serving, the node's name and IP as SANs), serve it once an admin approves it (self-signed until then), and renew it",
  },
  {
    field: 'registerWithTaints',
    name: 'registerWithTaints',
    file: true,
    flag: 'register-with-taints',
    commands: ['run'],
    type: 'taints',
    default: [],
    description:
      "Taints the Node is registered with, 'key=value:Effect,...' (NoSchedule, PreferNoSchedule or NoExecute); a Node that already exists keeps its own",
  },
];
