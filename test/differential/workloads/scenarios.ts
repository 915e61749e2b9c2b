// The workload scenarios of the controller differential (README.md beside this
// file): each a small manifest, how kubectl waits for it in the cluster, and,
// for some, a second version applied over the first (a rollout).

export interface WorkloadScenario {
  name: string;
  manifest: string;
  /** Applied over `manifest` once it has rolled out: a rollout to a new template. */
  update?: string;
  /** kubectl's arguments that wait for the scenario's end (the namespace is added). */
  wait: string[][];
  /** The wait after `update`, when it is not `wait`. */
  updateWait?: string[][];
  /** Each pod's log is compared (the env a pod saw). */
  logs?: boolean;
}

/** Ends at once on SIGTERM (a bare sleep as PID 1 would wait out its grace period). */
const SLEEP = `["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]`;

const deployment = (name: string, spec: string, podSpec = '', env = '') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
${spec}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      terminationGracePeriodSeconds: 2
      containers:
        - name: c
          image: busybox:1.36
          command: ${SLEEP}
${podSpec}${env}`;

const job = (name: string, spec: string, command: string) => `apiVersion: batch/v1
kind: Job
metadata:
  name: ${name}
spec:
${spec}
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: c
          image: busybox:1.36
          command: ${command}
`;

/** A StatefulSet or DaemonSet of busybox sleepers, with SPEC's lines (two-space indented) and the pod's extra container lines. */
const podSet = (kind: 'StatefulSet' | 'DaemonSet', name: string, spec: string, container = '', podSpec = '') => `apiVersion: apps/v1
kind: ${kind}
metadata:
  name: ${name}
spec:
${spec}  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      terminationGracePeriodSeconds: 2
${podSpec}      containers:
        - name: c
          image: busybox:1.36
          command: ${SLEEP}
${container}`;

/**
 * A one-replica Deployment whose container prints what it sees (COMMAND, a shell line, its errors
 * on stdout too, since two streams interleave as they come) and then sleeps. A volume is read
 * through `${KNODE_MOUNT_<PATH>:-<path>}`: a container run as a host process finds it there.
 */
const printer = (name: string, command: string, containerExtra: string, podExtra = '') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 1
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      terminationGracePeriodSeconds: 2
${podExtra}      containers:
        - name: c
          image: busybox:1.36
          command: ["sh", "-c", "(${command}) 2>&1; trap 'exit 0' TERM; sleep 3600 & wait"]
${containerExtra}`;

const V2 = '          env: [{name: V, value: "2"}]\n';

const rollout = (kind: string, name: string) => [['rollout', 'status', `${kind}/${name}`, '--timeout=90s']];
const jobEnds = (name: string, condition: string) => [['wait', `--for=condition=${condition}`, `job/${name}`, '--timeout=90s']];

export const workloadScenarios: WorkloadScenario[] = [
  { name: 'deploy-2', manifest: deployment('web', '  replicas: 2'), wait: rollout('deployment', 'web') },
  {
    name: 'deploy-readiness',
    manifest: deployment(
      'ready',
      '  replicas: 1\n  minReadySeconds: 1',
      '          readinessProbe:\n            exec: {command: ["true"]}\n            periodSeconds: 1\n',
    ),
    wait: rollout('deployment', 'ready'),
  },
  {
    name: 'deploy-recreate',
    manifest: deployment('recreate', '  replicas: 2\n  strategy: {type: Recreate}'),
    update: deployment('recreate', '  replicas: 2\n  strategy: {type: Recreate}', '', '          env: [{name: V, value: "2"}]\n'),
    wait: rollout('deployment', 'recreate'),
  },
  {
    name: 'deploy-rolling-update',
    manifest: deployment('rolling', '  replicas: 2\n  revisionHistoryLimit: 1'),
    update: deployment('rolling', '  replicas: 2\n  revisionHistoryLimit: 1', '', '          env: [{name: V, value: "2"}]\n'),
    wait: rollout('deployment', 'rolling'),
  },
  {
    name: 'replicaset',
    manifest: `apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: rs
spec:
  replicas: 2
  selector:
    matchLabels: {app: rs}
  template:
    metadata:
      labels: {app: rs}
    spec:
      terminationGracePeriodSeconds: 2
      containers:
        - name: c
          image: busybox:1.36
          command: ${SLEEP}
`,
    wait: [['wait', '--for=jsonpath={.status.availableReplicas}=2', 'replicaset/rs', '--timeout=90s']],
  },
  {
    name: 'job-3x2',
    manifest: job('count', '  completions: 3\n  parallelism: 2', '["sh", "-c", "echo done"]'),
    wait: jobEnds('count', 'complete'),
  },
  {
    name: 'job-fails',
    manifest: job('fails', '  backoffLimit: 1', '["sh", "-c", "exit 3"]'),
    wait: jobEnds('fails', 'failed'),
  },
  {
    name: 'job-indexed',
    manifest: job(
      'indexed',
      '  completions: 2\n  parallelism: 2\n  completionMode: Indexed',
      '["sh", "-c", "echo index $JOB_COMPLETION_INDEX"]',
    ),
    wait: jobEnds('indexed', 'complete'),
    logs: true,
  },
  {
    name: 'statefulset-2',
    manifest: `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  replicas: 2
  serviceName: db
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      terminationGracePeriodSeconds: 2
      containers:
        - name: c
          image: busybox:1.36
          command: ${SLEEP}
`,
    wait: rollout('statefulset', 'db'),
  },
  {
    name: 'daemonset',
    manifest: `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels: {app: agent}
  template:
    metadata:
      labels: {app: agent}
    spec:
      terminationGracePeriodSeconds: 2
      containers:
        - name: c
          image: busybox:1.36
          command: ${SLEEP}
`,
    wait: rollout('daemonset', 'agent'),
  },
  {
    name: 'deploy-configmap-env',
    manifest: `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  GREETING: hello
  COLOUR: blue
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: envy
spec:
  replicas: 1
  selector:
    matchLabels: {app: envy}
  template:
    metadata:
      labels: {app: envy}
    spec:
      terminationGracePeriodSeconds: 2
      containers:
        - name: c
          image: busybox:1.36
          command: ["sh", "-c", "echo GREETING=$GREETING COLOUR=$COLOUR ONE=$ONE; trap 'exit 0' TERM; sleep 3600 & wait"]
          envFrom: [{configMapRef: {name: settings}}]
          env: [{name: ONE, valueFrom: {configMapKeyRef: {name: settings, key: COLOUR}}}]
`,
    wait: rollout('deployment', 'envy'),
    logs: true,
  },
  {
    name: 'deploy-scale-down',
    manifest: deployment('shrink', '  replicas: 3'),
    update: deployment('shrink', '  replicas: 1'),
    wait: rollout('deployment', 'shrink'),
  },
  {
    name: 'deploy-max-unavailable',
    manifest: deployment('unavail', '  replicas: 3\n  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}'),
    update: deployment('unavail', '  replicas: 3\n  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}', '', V2),
    wait: rollout('deployment', 'unavail'),
  },
  {
    name: 'deploy-surge-percent',
    manifest: deployment('surge', '  replicas: 4\n  strategy: {rollingUpdate: {maxSurge: 50%, maxUnavailable: 0}}'),
    update: deployment('surge', '  replicas: 4\n  strategy: {rollingUpdate: {maxSurge: 50%, maxUnavailable: 0}}', '', V2),
    wait: rollout('deployment', 'surge'),
  },
  { name: 'deploy-zero', manifest: deployment('none', '  replicas: 0'), wait: rollout('deployment', 'none') },
  {
    name: 'deploy-secret-volume',
    manifest: `apiVersion: v1
kind: Secret
metadata:
  name: creds
type: Opaque
stringData:
  user: admin
data:
  pass: czNjcjN0
---
${printer(
  'secretive',
  'd=${KNODE_MOUNT_CREDS:-/creds}; cat $d/user; echo; cat $d/pass; echo; stat -L -c %a $d/user',
  '          volumeMounts: [{name: creds, mountPath: /creds}]\n',
  '      volumes: [{name: creds, secret: {secretName: creds, defaultMode: 0400}}]\n',
)}`,
    wait: rollout('deployment', 'secretive'),
    logs: true,
  },
  {
    name: 'deploy-configmap-items',
    manifest: `apiVersion: v1
kind: ConfigMap
metadata:
  name: files
data:
  a.conf: alpha
  b.conf: beta
---
${printer(
  'itemised',
  'd=${KNODE_MOUNT_CFG:-/cfg}; ls $d; ls $d/only; cat $d/only/b; echo; stat -L -c %a $d/only/b',
  '          volumeMounts: [{name: cfg, mountPath: /cfg}]\n',
  '      volumes: [{name: cfg, configMap: {name: files, items: [{key: b.conf, path: only/b, mode: 0600}]}}]\n',
)}`,
    wait: rollout('deployment', 'itemised'),
    logs: true,
  },
  {
    name: 'deploy-projected',
    manifest: `apiVersion: v1
kind: ConfigMap
metadata:
  name: proj-cm
data:
  colour: green
---
apiVersion: v1
kind: Secret
metadata:
  name: proj-secret
stringData:
  token: t0ken
---
${printer(
  'projected',
  'd=${KNODE_MOUNT_ALL:-/all}; cat $d/colour; echo; cat $d/token; echo; cat $d/labels; echo',
  '          volumeMounts: [{name: all, mountPath: /all}]\n',
  `      volumes:
        - name: all
          projected:
            sources:
              - configMap: {name: proj-cm}
              - secret: {name: proj-secret}
              - downwardAPI:
                  items:
                    - path: labels
                      fieldRef:
                        fieldPath: "metadata.labels['app']"
`,
)}`,
    wait: rollout('deployment', 'projected'),
    logs: true,
  },
  {
    name: 'deploy-secret-env',
    manifest: `apiVersion: v1
kind: Secret
metadata:
  name: env-secret
stringData:
  KEY: value-from-secret
---
${printer(
  'secret-env',
  'echo KEY=$KEY OPT=$OPT',
  `          env:
            - {name: KEY, valueFrom: {secretKeyRef: {name: env-secret, key: KEY}}}
            - {name: OPT, valueFrom: {secretKeyRef: {name: absent, key: K, optional: true}}}
`,
)}`,
    wait: rollout('deployment', 'secret-env'),
    logs: true,
  },
  {
    name: 'replicaset-scale-down',
    manifest: deployment('rs-shrink', '  replicas: 3').replace('kind: Deployment', 'kind: ReplicaSet'),
    update: deployment('rs-shrink', '  replicas: 1').replace('kind: Deployment', 'kind: ReplicaSet'),
    wait: [['wait', '--for=jsonpath={.status.availableReplicas}=3', 'replicaset/rs-shrink', '--timeout=90s']],
    updateWait: [['wait', '--for=jsonpath={.status.replicas}=1', 'replicaset/rs-shrink', '--timeout=90s']],
  },
  {
    name: 'statefulset-parallel',
    manifest: podSet('StatefulSet', 'par', '  replicas: 3\n  serviceName: par\n  podManagementPolicy: Parallel\n'),
    wait: rollout('statefulset', 'par'),
  },
  {
    name: 'statefulset-update',
    manifest: podSet('StatefulSet', 'upd', '  replicas: 2\n  serviceName: upd\n'),
    update: podSet('StatefulSet', 'upd', '  replicas: 2\n  serviceName: upd\n', V2),
    wait: rollout('statefulset', 'upd'),
  },
  {
    name: 'statefulset-partition',
    manifest: podSet('StatefulSet', 'part', '  replicas: 2\n  serviceName: part\n  updateStrategy: {rollingUpdate: {partition: 1}}\n'),
    update: podSet('StatefulSet', 'part', '  replicas: 2\n  serviceName: part\n  updateStrategy: {rollingUpdate: {partition: 1}}\n', V2),
    wait: rollout('statefulset', 'part'),
  },
  {
    name: 'daemonset-update',
    manifest: podSet('DaemonSet', 'agent-upd', ''),
    update: podSet('DaemonSet', 'agent-upd', '', V2),
    wait: rollout('daemonset', 'agent-upd'),
  },
  {
    name: 'daemonset-no-match',
    manifest: podSet('DaemonSet', 'elsewhere', '', '', '      nodeSelector: {disk: ssd}\n'),
    wait: [['wait', '--for=jsonpath={.status.observedGeneration}=1', 'daemonset/elsewhere', '--timeout=90s']],
  },
  {
    name: 'job-backoff-2',
    manifest: job('retries', '  backoffLimit: 2', '["sh", "-c", "exit 1"]'),
    wait: jobEnds('retries', 'failed'),
  },
  {
    name: 'job-work-queue',
    manifest: job('queue', '  parallelism: 2', '["sh", "-c", "echo worked"]'),
    wait: jobEnds('queue', 'complete'),
  },
  {
    name: 'job-completions-zero',
    manifest: job('nothing', '  completions: 0', '["sh", "-c", "echo never"]'),
    wait: jobEnds('nothing', 'complete'),
  },
  {
    name: 'job-deadline',
    manifest: job('late', '  activeDeadlineSeconds: 2\n  backoffLimit: 0', `["sh", "-c", "trap 'exit 0' TERM; sleep 60 & wait"]`),
    wait: jobEnds('late', 'failed'),
  },
  {
    name: 'job-pod-failure-policy',
    manifest: job(
      'policy',
      '  backoffLimit: 3\n  podFailurePolicy:\n    rules:\n      - action: FailJob\n        onExitCodes: {containerName: c, operator: In, values: [42]}',
      '["sh", "-c", "exit 42"]',
    ),
    wait: jobEnds('policy', 'failed'),
  },
];
