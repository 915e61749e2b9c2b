// The mutations of the validation differential, as data (the pod's own
// fields here, its containers' in mutations-container.ts): a path into a base
// manifest (see bases.ts; `spec.containers.0.ports.0` indexes arrays) and the
// values to put there, valid ones and invalid ones alike, so that the real
// kube-apiserver decides which is which. DELETE removes the field. A path that
// a base lacks is created. Compound mutations (fields that must agree) are
// functions over the whole pod.
import { DELETE, INT32_OUT, NAMES, SECONDS, type FieldMutation } from './mutation-values.js';

type Json = Record<string, unknown>;

/** Pod-level fields, and the values each is given. */
export const POD_MUTATIONS: readonly FieldMutation[] = [
  { at: 'apiVersion', values: [DELETE, '', 'v2', 'apps/v1', 'V1'] },
  { at: 'kind', values: [DELETE, '', 'pod', 'Pods'] },
  { at: 'metadata.name', values: [...NAMES, DELETE, 7] },
  { at: 'metadata.generateName', values: ['web-', 'Web-'] },
  {
    at: 'metadata.labels',
    values: [
      {},
      { 'a/b/c': 'x' },
      { 'example.com/app': 'v' },
      { app: 'v'.repeat(64) },
      { app: '-x' },
      { '': 'x' },
      { app: 7 },
      { 'UPPER.com/x': 'y' },
      { ['k'.repeat(64)]: 'v' },
    ],
  },
  {
    at: 'metadata.annotations',
    values: [{}, { note: 'x'.repeat(300 * 1024) }, { note: 'x'.repeat(100 * 1024) }, { 'bad key': 'x' }, { 'example.com/a': '' }, { a: 1 }],
  },
  { at: 'metadata.uid', values: ['1234', 5] },
  { at: 'spec.restartPolicy', values: ['Never', 'OnFailure', 'Sometimes', '', 'always'] },
  { at: 'spec.terminationGracePeriodSeconds', values: SECONDS },
  { at: 'spec.activeDeadlineSeconds', values: [1, 0, -5, 2147483648, '60'] },
  { at: 'spec.dnsPolicy', values: ['Default', 'None', 'ClusterFirst', 'ClusterFirstWithHostNet', 'Bogus', ''] },
  {
    at: 'spec.dnsConfig',
    values: [
      DELETE,
      {},
      { nameservers: ['1.1.1.1', '8.8.8.8', '9.9.9.9', '4.4.4.4'] },
      { nameservers: ['not-an-ip'] },
      { searches: Array.from({ length: 33 }, (_, i) => `s${i}.local`) },
      { searches: ['x'.repeat(2050)] },
      { options: [{ value: '1' }] },
      { options: [{ name: 'ndots', value: '5' }] },
    ],
  },
  { at: 'spec.dnsConfig.nameservers', values: [[], ['::1'], ['10.0.0.1', 'x']] },
  {
    at: 'spec.hostAliases',
    values: [
      [{ ip: '10.0.0.1', hostnames: ['a.local'] }],
      [{ ip: 'nope', hostnames: ['a'] }],
      [{ ip: '::1', hostnames: ['UPPER'] }],
      [{ hostnames: ['a'] }],
      [{ ip: '10.0.0.1' }],
    ],
  },
  { at: 'spec.hostname', values: ['h', 'Host', 'a'.repeat(64), 'a.b'] },
  { at: 'spec.subdomain', values: ['s', 'S', 'a'.repeat(64)] },
  { at: 'spec.os', values: [{ name: 'linux' }, { name: 'windows' }, { name: 'plan9' }, {}, { name: '' }] },
  { at: 'spec.hostNetwork', values: [true, false, 'yes'] },
  { at: 'spec.hostPID', values: [true, false] },
  { at: 'spec.hostIPC', values: [true, false] },
  { at: 'spec.shareProcessNamespace', values: [true, false, 1] },
  { at: 'spec.priority', values: [0, 100, ...INT32_OUT] },
  { at: 'spec.nodeSelector', values: [{}, { disk: 'ssd' }, { 'bad key!': 'x' }, { disk: 'x'.repeat(64) }, { disk: 1 }] },
  { at: 'spec.nodeName', values: ['node-1', 'Node_1'] },
  { at: 'spec.imagePullSecrets', values: [[{ name: 'regcred' }], [{}], [{ name: 'Bad_Name' }]] },
  { at: 'spec.schedulingGates', values: [[{ name: 'example.com/gate' }], [{ name: 'bad gate' }], [{ name: 'g' }, { name: 'g' }]] },
  { at: 'spec.setHostnameAsFQDN', values: [true, 'yes'] },
  { at: 'spec.resourceClaims', values: [[{ name: 'gpu', resourceClaimName: 'gpu-claim' }], [{ name: 'Bad_Name' }]] },
  { at: 'spec.schedulerName', values: ['default-scheduler', 'Bad Name'] },
  { at: 'spec.serviceAccountName', values: ['default', 'Bad_Name'] },
  { at: 'spec.automountServiceAccountToken', values: [false, true] },
  { at: 'spec.enableServiceLinks', values: [false] },
  { at: 'spec.preemptionPolicy', values: ['Never', 'PreemptLowerPriority', 'Sometimes'] },
  { at: 'spec.runtimeClassName', values: ['Bad_Class'] },
  {
    at: 'spec.tolerations',
    values: [
      [],
      [{ operator: 'Exists' }],
      [{ key: 'k', operator: 'Exists', value: 'v' }],
      [{ operator: 'Equal', value: 'v' }],
      [{ key: 'k', value: 'v', effect: 'NoRun' }],
      [{ key: 'k', effect: 'NoSchedule', tolerationSeconds: 5 }],
      [{ key: 'k', operator: 'Lt', value: '3' }],
      [{ key: 'k', operator: 'In', value: 'v' }],
      [{ key: 'bad key', operator: 'Exists' }],
      [{ key: 'k', value: '-bad-' }],
      [{ key: 'k', effect: 'NoExecute', tolerationSeconds: -1 }],
    ],
  },
  { at: 'spec.tolerations.0.effect', values: ['NoSchedule', 'PreferNoSchedule', 'NoExecute', 'Never', ''] },
  {
    at: 'spec.affinity',
    values: [
      {},
      { nodeAffinity: {} },
      { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } },
      {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Bogus', values: ['x'] }] }],
          },
        },
      },
      {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'In' }] }] },
        },
      },
      {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }],
          },
        },
      },
      { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, preference: {} }] } },
      { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 101, preference: {} }] } },
      { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: '' }] } },
      {
        podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: 'bad key!' } }] },
      },
    ],
  },
  {
    at: 'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.0.matchExpressions.0.operator',
    values: ['NotIn', 'Gt', 'DoesNotExist', 'Within'],
  },
  {
    at: 'spec.securityContext',
    values: [
      {},
      { runAsUser: -1 },
      { runAsUser: 2147483648 },
      { runAsGroup: -5 },
      { fsGroup: -1 },
      { supplementalGroups: [-1] },
      { runAsNonRoot: 'yes' },
      { fsGroupChangePolicy: 'Sometimes' },
      { fsGroupChangePolicy: 'OnRootMismatch' },
      { seccompProfile: { type: 'Localhost' } },
      { seccompProfile: { type: 'Localhost', localhostProfile: '/abs.json' } },
      { seccompProfile: { type: 'RuntimeDefault', localhostProfile: 'x.json' } },
      { seccompProfile: { type: 'Bogus' } },
      { sysctls: [{ name: 'kernel.shm_rmid_forced', value: '1' }] },
      { sysctls: [{ name: 'Bad Name', value: '1' }] },
      {
        sysctls: [
          { name: 'net.core.somaxconn', value: '1' },
          { name: 'net.core.somaxconn', value: '2' },
        ],
      },
      { appArmorProfile: { type: 'Bogus' } },
      { seLinuxOptions: { level: 's0:c123,c456' } },
      { supplementalGroupsPolicy: 'Strict' },
      { supplementalGroupsPolicy: 'Bogus' },
    ],
  },
  {
    at: 'spec.volumes',
    values: [
      [],
      [{ name: 'v' }],
      [
        { name: 'v', emptyDir: {} },
        { name: 'v', emptyDir: {} },
      ],
      [{ name: 'Bad_Name', emptyDir: {} }],
      [{ emptyDir: {} }],
      [{ name: 'v', emptyDir: {}, hostPath: { path: '/tmp' } }],
      [{ name: 'v', hostPath: { path: '/a/../b' } }],
      [{ name: 'v', hostPath: { path: '' } }],
      [{ name: 'v', hostPath: { path: '/tmp', type: 'Bogus' } }],
      [{ name: 'v', emptyDir: { medium: 'Bogus' } }],
      [{ name: 'v', emptyDir: { sizeLimit: '-1' } }],
      [{ name: 'v', configMap: {} }],
      [{ name: 'v', configMap: { name: 'c', defaultMode: 1000 } }],
      [{ name: 'v', secret: { secretName: 's', items: [{ key: 'k', path: '../x' }] } }],
      [{ name: 'v', secret: { secretName: 's', items: [{ key: '', path: 'x' }] } }],
      [{ name: 'v', downwardAPI: { items: [{ path: 'x', fieldRef: { fieldPath: 'spec.bogus' } }] } }],
      [{ name: 'v', downwardAPI: { items: [{ path: '/abs', fieldRef: { fieldPath: 'metadata.name' } }] } }],
      [{ name: 'v', persistentVolumeClaim: { claimName: '' } }],
      [{ name: 'v', image: { reference: 'busybox', pullPolicy: 'Bogus' } }],
      [{ name: 'v', nfs: { server: 'nfs.local', path: 'relative' } }],
      [{ name: 'v', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 60 } }] } }],
    ],
  },
  { at: 'spec.volumes.0.name', values: ['other', '', 'UPPER', 'a'.repeat(64)] },
  { at: 'spec.volumes.1.hostPath.type', values: ['', 'DirectoryOrCreate', 'File', 'Socket', 'CharDevice', 'Bogus', 'directory'] },
  { at: 'spec.volumes.3.configMap.defaultMode', values: [0, 511, 512, -1, 0o644, '0644'] },
];

/** Fields that must agree with each other, each mutation a function of the pod. */
export const COMPOUND_MUTATIONS: readonly ((pod: Json) => void)[] = [
  (pod) => Object.assign(spec(pod), { hostNetwork: true }),
  (pod) =>
    Object.assign(spec(pod), {
      hostNetwork: true,
      containers: [{ name: 'c', image: 'busybox', ports: [{ containerPort: 80, hostPort: 81 }] }],
    }),
  (pod) => Object.assign(spec(pod), { hostNetwork: true, containers: [{ name: 'c', image: 'busybox', ports: [{ containerPort: 80 }] }] }),
  (pod) => Object.assign(spec(pod), { shareProcessNamespace: true, hostPID: true }),
  (pod) => Object.assign(spec(pod), { dnsPolicy: 'None', dnsConfig: undefined }),
  (pod) => Object.assign(spec(pod), { dnsPolicy: 'None', dnsConfig: { searches: ['a.local'] } }),
  (pod) => Object.assign(spec(pod), { hostNetwork: true, securityContext: { sysctls: [{ name: 'net.core.somaxconn', value: '1' }] } }),
  (pod) => Object.assign(spec(pod), { hostIPC: true, securityContext: { sysctls: [{ name: 'kernel.shm_rmid_forced', value: '1' }] } }),
  (pod) =>
    Object.assign(spec(pod), {
      terminationGracePeriodSeconds: 2,
      containers: [{ name: 'c', image: 'busybox', lifecycle: { preStop: { sleep: { seconds: 5 } } } }],
    }),
  (pod) => Object.assign(spec(pod), { os: { name: 'windows' }, securityContext: { seccompProfile: { type: 'RuntimeDefault' } } }),
  (pod) =>
    Object.assign(spec(pod), {
      os: { name: 'windows' },
      containers: [{ name: 'c', image: 'busybox', securityContext: { privileged: true } }],
    }),
  (pod) => Object.assign(spec(pod), { initContainers: [{ name: 'c', image: 'busybox' }], containers: [{ name: 'c', image: 'busybox' }] }),
  (pod) =>
    Object.assign(spec(pod), {
      volumes: [{ name: 'v', emptyDir: {} }],
      containers: [
        {
          name: 'c',
          image: 'busybox',
          volumeMounts: [
            { name: 'v', mountPath: '/a' },
            { name: 'v', mountPath: '/a/' },
          ],
        },
      ],
    }),
  (pod) => Object.assign(spec(pod), { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', restartPolicy: 'Always' }] }),
  (pod) =>
    Object.assign(spec(pod), {
      containers: [
        { name: 'c', image: 'busybox', ports: [{ name: 'web', containerPort: 80 }] },
        { name: 'd', image: 'busybox', ports: [{ name: 'web', containerPort: 81 }] },
      ],
    }),
  (pod) =>
    Object.assign(spec(pod), {
      containers: [
        { name: 'c', image: 'busybox', ports: [{ containerPort: 80, hostPort: 80 }] },
        { name: 'd', image: 'busybox', ports: [{ containerPort: 80, hostPort: 80 }] },
      ],
    }),
  (pod) => Object.assign(spec(pod), { hostUsers: false, hostNetwork: true }),
  (pod) => Object.assign(spec(pod), { hostUsers: false }),
  // A container's own policy with its rules (ContainerRestartRules): valid, and wrong in each part.
  ownRestartRules('Never', [{ action: 'Restart', exitCodes: { operator: 'In', values: [42] } }]),
  ownRestartRules('OnFailure', [{ action: 'Restart', exitCodes: { operator: 'NotIn', values: [0, 1] } }]),
  ownRestartRules('Always', [{ action: 'Restart', exitCodes: { operator: 'In', values: [] } }]),
  ownRestartRules('Never', [{ action: 'Restart' }]),
  ownRestartRules('Never', [{ action: 'Restart', exitCodes: { operator: 'Equals', values: [1] } }]),
  ownRestartRules('Never', [{ action: 'RestartAllContainers', exitCodes: { operator: 'In', values: [3] } }]),
  ownRestartRules('Never', [{ action: '', exitCodes: { operator: 'In', values: [3] } }]),
];

/** Sets the first container's own restartPolicy and restartPolicyRules. */
function ownRestartRules(restartPolicy: string, restartPolicyRules: Json[]): (pod: Json) => void {
  return (pod) => {
    const containers = spec(pod).containers;
    if (Array.isArray(containers) && typeof containers[0] === 'object' && containers[0] !== null)
      Object.assign(containers[0], { restartPolicy, restartPolicyRules });
  };
}

function spec(pod: Json): Json {
  if (typeof pod.spec !== 'object' || pod.spec === null) pod.spec = {};
  return pod.spec as Json;
}
