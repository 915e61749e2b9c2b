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
];
