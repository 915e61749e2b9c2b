// The valid pod manifests the validation differential starts from: each one
// the real kube-apiserver accepts as it is (a dry-run create), and between them
// every field of the PodSpec the mutations touch is present to be changed.
type Json = Record<string, unknown>;

/** A web server: ports, probes of each kind, env from each source, volumes of several types, resources. */
function web(): Json {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web', tier: 'front' }, annotations: { 'example.com/owner': 'team-a' } },
    spec: {
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      activeDeadlineSeconds: 600,
      dnsPolicy: 'ClusterFirst',
      volumes: [
        { name: 'scratch', emptyDir: { sizeLimit: '64Mi' } },
        { name: 'host', hostPath: { path: '/var/log', type: 'Directory' } },
        { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
        { name: 'conf', configMap: { name: 'web-conf', optional: true, defaultMode: 420, items: [{ key: 'a', path: 'a.conf' }] } },
        { name: 'creds', secret: { secretName: 'web-creds', optional: true } },
      ],
      containers: [
        {
          name: 'main',
          image: 'nginx:1.27',
          imagePullPolicy: 'IfNotPresent',
          command: ['nginx'],
          args: ['-g', 'daemon off;'],
          workingDir: '/srv',
          ports: [
            { name: 'http', containerPort: 8080, protocol: 'TCP' },
            { name: 'metrics', containerPort: 9090, hostPort: 19090, protocol: 'TCP' },
          ],
          env: [
            { name: 'MODE', value: 'prod' },
            { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            { name: 'CPU', valueFrom: { resourceFieldRef: { containerName: 'main', resource: 'limits.cpu' } } },
            { name: 'CONF', valueFrom: { configMapKeyRef: { name: 'web-conf', key: 'a', optional: true } } },
          ],
          envFrom: [{ configMapRef: { name: 'web-conf', optional: true }, prefix: 'CONF_' }],
          volumeMounts: [
            { name: 'scratch', mountPath: '/scratch' },
            { name: 'host', mountPath: '/host-logs', readOnly: true },
            { name: 'info', mountPath: '/etc/info', subPath: 'labels' },
          ],
          resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } },
          livenessProbe: { httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' }, periodSeconds: 10, failureThreshold: 3 },
          readinessProbe: { tcpSocket: { port: 'http' }, initialDelaySeconds: 2, successThreshold: 2 },
          startupProbe: { exec: { command: ['true'] }, failureThreshold: 30, periodSeconds: 2 },
          lifecycle: { preStop: { sleep: { seconds: 5 } }, postStart: { exec: { command: ['true'] } } },
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'FallbackToLogsOnError',
        },
      ],
    },
  };
}

/** A job-like pod with init containers (one a sidecar), security contexts, scheduling and DNS fields. */
function batch(): Json {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'batch-1', namespace: 'default', labels: { app: 'batch' } },
    spec: {
      restartPolicy: 'OnFailure',
      hostname: 'worker',
      subdomain: 'jobs',
      shareProcessNamespace: true,
      securityContext: {
        runAsUser: 1000,
        runAsGroup: 1000,
        runAsNonRoot: true,
        fsGroup: 2000,
        supplementalGroups: [3000],
        seccompProfile: { type: 'RuntimeDefault' },
        sysctls: [{ name: 'net.ipv4.ip_local_port_range', value: '1024 65000' }],
      },
      tolerations: [
        { key: 'dedicated', operator: 'Equal', value: 'batch', effect: 'NoSchedule' },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
      ],
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] }] }],
          },
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 10, preference: { matchExpressions: [{ key: 'disk', operator: 'Exists' }] } },
          ],
        },
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 50, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'batch' } } } },
          ],
        },
      },
      dnsPolicy: 'None',
      dnsConfig: { nameservers: ['10.0.0.10'], searches: ['jobs.default.svc.cluster.local'], options: [{ name: 'ndots', value: '2' }] },
      hostAliases: [{ ip: '10.1.2.3', hostnames: ['db.local', 'cache.local'] }],
      os: { name: 'linux' },
      priorityClassName: '',
      volumes: [
        { name: 'work', emptyDir: {} },
        {
          name: 'proj',
          projected: { sources: [{ downwardAPI: { items: [{ path: 'name', fieldRef: { fieldPath: 'metadata.name' } }] } }] },
        },
      ],
      initContainers: [
        { name: 'setup', image: 'busybox:1.36', command: ['sh', '-c', 'true'], volumeMounts: [{ name: 'work', mountPath: '/work' }] },
        {
          name: 'proxy',
          image: 'busybox:1.36',
          restartPolicy: 'Always',
          command: ['sleep', '3600'],
          readinessProbe: { grpc: { port: 9000 }, timeoutSeconds: 2 },
          ports: [{ containerPort: 9000, name: 'grpc' }],
        },
      ],
      containers: [
        {
          name: 'job',
          image: 'busybox:1.36',
          command: ['sh', '-c', 'echo done'],
          volumeMounts: [
            { name: 'work', mountPath: '/work' },
            { name: 'proj', mountPath: '/proj', readOnly: true },
          ],
          securityContext: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] },
            procMount: 'Default',
          },
          resources: { requests: { 'example.com/widget': '1', cpu: '50m' }, limits: { 'example.com/widget': '1' } },
          env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
        },
      ],
    },
  };
}

/** The least a pod can be. */
function minimal(): Json {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'tiny' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
}

/** A pod on the host's network and namespaces. */
function host(): Json {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'host-agent', namespace: 'default' },
    spec: {
      hostNetwork: true,
      hostPID: false,
      hostIPC: true,
      dnsPolicy: 'ClusterFirstWithHostNet',
      priority: 0,
      containers: [
        {
          name: 'agent',
          image: 'registry.example.com/agent@sha256:' + 'a'.repeat(64),
          ports: [{ containerPort: 9100, hostPort: 9100, protocol: 'UDP' }],
          securityContext: { privileged: true },
          volumeMounts: [{ name: 'root', mountPath: '/host', mountPropagation: 'HostToContainer' }],
        },
      ],
      volumes: [{ name: 'root', hostPath: { path: '/' } }],
    },
  };
}

export const BASES: readonly (() => Json)[] = [web, batch, minimal, host];
