// The differential corpus: pod scenarios run once through the real kubelet and
// once through knode on the same containerd 2 (differential.test.ts). All
// scenarios run in one go per agent, each pod independent, started in waves
// (WAVE below); a scenario's `edit` and `removeAt` happen at their second after
// the agent showed the pod begun. What each agent showed of the pod over the run is
// compared as states, not seconds (compare.ts, README.md beside this file).
//
// All pods use busybox:1.36 (imported into the containerd by containerd2.sh;
// there is no network here), the host network unless the scenario is about the
// pod network, and a 2 s grace period unless it is about grace periods.
// A scenario lasts long enough for its pod to show every state it will; crash
// loops (`loop`) never settle and are compared by their states and restart counts.
import type { Container, PodSpec } from '../../src/engine/api/v1.js';
import { exec, IMAGE, pod, type Scenario, sh, SLEEP, STUBBORN } from './scenario-parts.js';
import { dnsScenarios } from './dns-scenarios.js';
import { retryScenarios } from './retry-scenarios.js';
import { restartRulesScenarios } from './restart-rules-scenarios.js';
import { probeScenarios } from './probe-scenarios.js';
import { hostsScenarios } from './hosts-scenarios.js';
import { staticApiScenarios } from './static-api-scenarios.js';
import { admissionScenarios } from './admission-scenarios.js';
import { containerScenarios } from './container-scenarios.js';

export { CLUSTER_DNS, CLUSTER_DOMAIN } from './dns-scenarios.js';

export { IMAGE, type Scenario };

/**
 * The main process dies of SIGKILL (`$$$$` is the shell's `$$`: the kubelet expands `$$`
 * to `$` in commands). As PID 1 of its own PID namespace it could not be killed from
 * inside, so these pods share the sandbox's PID namespace (shareProcessNamespace: the
 * sandbox's `sleep infinity` is PID 1 there).
 */
const KILL9 = 'kill -9 $$$$';
const NOT_FOUND: Partial<Container> = { command: ['/no/such/binary'] };

type Policy = 'Always' | 'OnFailure' | 'Never';
const POLICIES: Policy[] = ['Always', 'OnFailure', 'Never'];
const EXITS: { tag: string; what: string; script: string; shared?: boolean }[] = [
  { tag: 'exit0', what: 'exits 0', script: 'echo done; exit 0' },
  { tag: 'exit3', what: 'exits 3', script: 'echo failing; exit 3' },
  { tag: 'killed', what: 'kills itself with SIGKILL', script: KILL9, shared: true },
];

const matrix: Scenario[] = POLICIES.flatMap((policy) =>
  EXITS.map((e): Scenario => {
    const restarts = policy === 'Always' || (policy === 'OnFailure' && e.tag !== 'exit0');
    return {
      name: `${policy.toLowerCase()}-${e.tag}`,
      what: `restartPolicy ${policy}, the container ${e.what}`,
      spec: pod([sh('main', e.script)], { restartPolicy: policy, shareProcessNamespace: e.shared }),
      loop: restarts,
    };
  }),
);

export const scenarios: Scenario[] = [
  ...matrix,
  {
    name: 'never-oomkilled',
    what: 'restartPolicy Never, the container goes over its 16Mi memory limit',
    spec: pod([sh('main', 'x=$(head -c 200000000 /dev/zero | tr "\\0" a); echo ${#x}', { resources: { limits: { memory: '16Mi' } } })], {
      restartPolicy: 'Never',
    }),
  },
  {
    name: 'never-slow-exit0',
    what: 'restartPolicy Never, the container runs 22 s, then exits 0',
    spec: pod([sh('main', 'sleep 22; exit 0')], { restartPolicy: 'Never' }),
    lasts: 30,
  },
  {
    name: 'command-not-found',
    what: 'the command is not in the image (restartPolicy Never)',
    spec: pod([sh('main', '', NOT_FOUND)], { restartPolicy: 'Never' }),
  },
  {
    name: 'command-not-found-always',
    what: 'the command is not in the image (restartPolicy Always)',
    spec: pod([sh('main', '', NOT_FOUND)]),
    loop: true,
  },
  {
    name: 'running',
    what: 'one long-running container (the baseline)',
    spec: pod([sh('main', SLEEP)]),
  },
  {
    name: 'pod-network',
    what: 'a long-running container on the pod network (CNI bridge); IPs are not compared',
    spec: { containers: [sh('main', SLEEP)], terminationGracePeriodSeconds: 2 },
  },
  {
    name: 'hostname-subdomain',
    what: "hostname + subdomain on the pod network: exits 0 only if /etc/hosts names the pod's FQDN (the agents' clusterDomain)",
    spec: {
      containers: [sh('main', `awk '$2 == "web.sub.default.svc.cluster.local" && $3 == "web"' /etc/hosts | grep -q .`)],
      hostname: 'web',
      subdomain: 'sub',
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 2,
    },
  },
  {
    name: 'two-containers-one-exits',
    what: 'restartPolicy Always, one container sleeps, the other exits 0 (and is restarted)',
    spec: pod([sh('app', SLEEP), sh('once', 'exit 0')]),
    loop: true,
  },
  {
    name: 'never-mixed-exits',
    what: 'restartPolicy Never, one container exits 0, the other 1 a second later',
    spec: pod([sh('ok', 'exit 0'), sh('bad', 'sleep 1; exit 1')], { restartPolicy: 'Never' }),
  },
  {
    name: 'container-order',
    what: 'three running containers named out of alphabetical order',
    spec: pod([sh('zeta', SLEEP), sh('alpha', SLEEP), sh('mid', SLEEP)]),
  },
  {
    name: 'active-deadline',
    what: 'activeDeadlineSeconds 8 on a running pod',
    spec: pod([sh('main', SLEEP)], { activeDeadlineSeconds: 8 }),
  },

  // Init containers
  {
    name: 'init-slow',
    what: 'an init container that takes 22 s',
    spec: pod([sh('main', SLEEP)], { initContainers: [sh('prep', 'sleep 22')] }),
    lasts: 30,
  },
  {
    name: 'init-fail-never',
    what: 'an init container that exits 1, restartPolicy Never',
    spec: pod([sh('main', SLEEP)], { restartPolicy: 'Never', initContainers: [sh('prep', 'exit 1')] }),
  },
  {
    name: 'init-fail-always',
    what: 'an init container that exits 1, restartPolicy Always (restarted with back-off)',
    spec: pod([sh('main', SLEEP)], { initContainers: [sh('prep', 'exit 1')] }),
    loop: true,
  },
  {
    name: 'init-second-fails',
    what: 'two init containers, the second exits 2, restartPolicy Never',
    spec: pod([sh('main', SLEEP)], { restartPolicy: 'Never', initContainers: [sh('first', 'exit 0'), sh('second', 'exit 2')] }),
  },
  {
    name: 'init-then-complete',
    what: 'an init container, then a container that exits 0, restartPolicy Never',
    spec: pod([sh('main', 'echo main done')], { restartPolicy: 'Never', initContainers: [sh('prep', 'echo prepared')] }),
  },
  {
    name: 'init-not-found',
    what: 'an init container whose command is not in the image, restartPolicy Never',
    spec: pod([sh('main', SLEEP)], { restartPolicy: 'Never', initContainers: [sh('prep', '', NOT_FOUND)] }),
  },

  // Sidecars (restartable init containers)
  {
    name: 'sidecar-main-completes',
    what: 'restartPolicy Never: the container exits 0 after 12 s, then the sidecar is stopped',
    spec: pod([sh('main', 'sleep 12; exit 0')], {
      restartPolicy: 'Never',
      initContainers: [sh('side', SLEEP, { restartPolicy: 'Always' })],
    }),
  },
  {
    name: 'sidecar-crashing',
    what: 'a sidecar that exits 1 (restarted with back-off) beside a long-running container',
    spec: pod([sh('main', SLEEP)], { initContainers: [sh('side', 'exit 1', { restartPolicy: 'Always' })] }),
    loop: true,
  },
  {
    name: 'sidecar-startup-probe',
    what: 'a sidecar whose startup probe passes after 22 s; the container waits for it',
    spec: pod([sh('main', SLEEP)], {
      initContainers: [
        sh('side', `sleep 22; touch /tmp/up; ${SLEEP}`, {
          restartPolicy: 'Always',
          startupProbe: { ...exec('test', '-f', '/tmp/up'), periodSeconds: 3, failureThreshold: 30 },
        }),
      ],
    }),
    lasts: 30,
  },
  {
    name: 'sidecar-not-ready',
    what: 'a sidecar whose readiness probe fails',
    spec: pod([sh('main', SLEEP)], {
      initContainers: [sh('side', SLEEP, { restartPolicy: 'Always', readinessProbe: { ...exec('false'), periodSeconds: 5 } })],
    }),
  },
  {
    name: 'init-then-sidecar',
    what: 'a regular init container, then a sidecar, then the container',
    spec: pod([sh('main', SLEEP)], { initContainers: [sh('prep', 'echo prepared'), sh('side', SLEEP, { restartPolicy: 'Always' })] }),
  },

  // Probes (exec)
  {
    name: 'liveness-fail',
    what: 'a liveness probe that fails (period 3 s, threshold 1): killed and restarted',
    spec: pod([sh('main', STUBBORN, { livenessProbe: { ...exec('false'), periodSeconds: 3, failureThreshold: 1 } })]),
    loop: true,
  },
  {
    name: 'liveness-fail-never',
    what: 'a failing liveness probe, restartPolicy Never: the container is killed, the pod fails',
    spec: pod([sh('main', STUBBORN, { livenessProbe: { ...exec('false'), periodSeconds: 3, failureThreshold: 1 } })], {
      restartPolicy: 'Never',
    }),
  },
  {
    name: 'liveness-timeout',
    what: 'a liveness probe that takes 5 s with timeoutSeconds 1, restartPolicy Never',
    spec: pod(
      [sh('main', STUBBORN, { livenessProbe: { ...exec('sleep', '5'), periodSeconds: 3, timeoutSeconds: 1, failureThreshold: 1 } })],
      { restartPolicy: 'Never' },
    ),
  },
  {
    name: 'readiness-fail',
    what: 'a readiness probe that fails',
    spec: pod([sh('main', SLEEP, { readinessProbe: { ...exec('false'), periodSeconds: 5 } })]),
  },
  {
    name: 'readiness-delayed',
    what: 'a passing readiness probe with initialDelaySeconds 22',
    spec: pod([sh('main', SLEEP, { readinessProbe: { ...exec('true'), periodSeconds: 5, initialDelaySeconds: 22 } })]),
    lasts: 30,
  },
  {
    name: 'readiness-flips',
    what: 'a readiness probe that passes for 22 s, then fails (threshold 1)',
    spec: pod([
      sh('main', `touch /tmp/ready; sleep 22; rm /tmp/ready; ${SLEEP}`, {
        readinessProbe: { ...exec('test', '-f', '/tmp/ready'), periodSeconds: 3, failureThreshold: 1 },
      }),
    ]),
    lasts: 30,
  },
  {
    name: 'startup-pass',
    what: 'a startup probe that passes after 22 s',
    spec: pod([
      sh('main', `sleep 22; touch /tmp/up; ${SLEEP}`, {
        startupProbe: { ...exec('test', '-f', '/tmp/up'), periodSeconds: 3, failureThreshold: 30 },
      }),
    ]),
    lasts: 30,
  },
  {
    name: 'startup-fail',
    what: 'a startup probe that never passes (period 3 s, threshold 2): killed and restarted',
    spec: pod([sh('main', STUBBORN, { startupProbe: { ...exec('false'), periodSeconds: 3, failureThreshold: 2 } })]),
    loop: true,
  },

  // Lifecycle hooks
  {
    name: 'poststart-fail',
    what: 'a postStart hook that exits 1, restartPolicy Always (the kill may come before a trap: STUBBORN)',
    spec: pod([sh('main', STUBBORN, { lifecycle: { postStart: exec('sh', '-c', 'exit 1') } })]),
    loop: true,
  },
  {
    name: 'poststart-fail-never',
    what: 'a postStart hook that exits 1, restartPolicy Never (STUBBORN, as above)',
    spec: pod([sh('main', STUBBORN, { lifecycle: { postStart: exec('sh', '-c', 'exit 1') } })], { restartPolicy: 'Never' }),
  },
  {
    name: 'poststart-ok',
    what: 'a postStart hook writes a file the container waits for and reports',
    spec: pod(
      [
        sh('main', 'until test -f /tmp/hook; do sleep 0.2; done; cat /tmp/hook > /dev/termination-log', {
          lifecycle: { postStart: exec('sh', '-c', 'echo hooked > /tmp/hook') },
        }),
      ],
      { restartPolicy: 'Never' },
    ),
  },
  {
    name: 'prestop-grace',
    what: 'removed 10 s after it began: a preStop hook of 12 s within a 30 s grace period',
    spec: pod([sh('main', SLEEP, { lifecycle: { preStop: exec('sleep', '12') } })], { terminationGracePeriodSeconds: 30 }),
    removeAt: 10,
    lasts: 35,
  },
  {
    name: 'prestop-over-grace',
    what: 'removed 10 s after it began: a preStop hook of 60 s with a 12 s grace period',
    spec: pod([sh('main', 'sleep 3600', { lifecycle: { preStop: exec('sleep', '60') } })], { terminationGracePeriodSeconds: 12 }),
    removeAt: 10,
    lasts: 35,
  },

  // Images
  {
    name: 'image-never-missing',
    what: 'imagePullPolicy Never with an image that is not there',
    spec: pod([{ name: 'main', image: 'busybox:0.0-missing', imagePullPolicy: 'Never', command: ['sh'] }]),
  },
  {
    name: 'image-ifnotpresent-missing',
    what: 'imagePullPolicy IfNotPresent with an image whose registry refuses connections',
    spec: pod([{ name: 'main', image: '127.0.0.1:9/missing/busybox:1', imagePullPolicy: 'IfNotPresent', command: ['sh'] }]),
    loop: true,
  },

  {
    name: 'image-volume',
    what: "an image volume: the image's files at the mount and a subPath of them, read-only",
    spec: pod(
      [
        sh('main', `test -x /vol/bin/busybox && test -x /sub/busybox && ! touch /vol/new 2>/dev/null && ${SLEEP}`, {
          volumeMounts: [
            { name: 'img', mountPath: '/vol' },
            { name: 'img', mountPath: '/sub', subPath: 'bin' },
          ],
        }),
      ],
      { volumes: [{ name: 'img', image: { reference: IMAGE, pullPolicy: 'IfNotPresent' } }] },
    ),
  },
  {
    name: 'image-volume-never-missing',
    what: 'an image volume with pullPolicy Never and an image that is not there: the container mounting it waits, the other runs',
    spec: pod([sh('mounts', SLEEP, { volumeMounts: [{ name: 'img', mountPath: '/vol' }] }), sh('other', SLEEP)], {
      volumes: [{ name: 'img', image: { reference: 'busybox:0.0-missing', pullPolicy: 'Never' } }],
    }),
  },

  // Environment
  {
    name: 'env-expansion',
    what: 'env $(VAR) expansion: defined, escaped $$(VAR), undefined, and in args',
    spec: pod(
      [
        {
          name: 'main',
          image: IMAGE,
          imagePullPolicy: 'IfNotPresent',
          command: ['sh', '-c', 'echo "$B|$C|$D|$1" > /dev/termination-log', '--'],
          args: ['$(A)-arg'],
          env: [
            { name: 'A', value: 'alpha' },
            { name: 'B', value: '$(A)-beta' },
            { name: 'C', value: '$$(A)' },
            { name: 'D', value: '$(NOPE)' },
          ],
        },
      ],
      { restartPolicy: 'Never' },
    ),
  },
  {
    name: 'env-downward',
    what: 'downward API env (fieldRef: name, namespace, nodeName, serviceAccountName, podIP, hostIP)',
    spec: pod(
      [
        sh('main', 'echo "$NAME|$NS|$NODE|$SA|$PODIP|$HOSTIP" > /dev/termination-log', {
          env: [
            { name: 'NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            { name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
            { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
            { name: 'SA', valueFrom: { fieldRef: { fieldPath: 'spec.serviceAccountName' } } },
            { name: 'PODIP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
            { name: 'HOSTIP', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } },
          ],
        }),
      ],
      { restartPolicy: 'Never' },
    ),
  },
  {
    name: 'env-resources',
    what: 'downward API env (resourceFieldRef: limits.memory, requests.cpu in millicores)',
    spec: pod(
      [
        sh('main', 'echo "$MEM|$CPU" > /dev/termination-log', {
          resources: { requests: { cpu: '250m', memory: '32Mi' }, limits: { memory: '64Mi' } },
          env: [
            { name: 'MEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory' } } },
            { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'requests.cpu', divisor: '1m' } } },
          ],
        }),
      ],
      { restartPolicy: 'Never' },
    ),
  },

  {
    name: 'pid-namespace',
    what: 'the container writes its PID ($$) as its termination message: 1 in a PID namespace of its own',
    spec: pod([sh('main', 'echo "pid $$$$" > /dev/termination-log')], { restartPolicy: 'Never' }),
  },

  // Termination messages
  {
    name: 'termmsg-custom-path',
    what: 'a termination message written to a custom terminationMessagePath, exit 4',
    spec: pod([sh('main', 'echo custom message > /tmp/msg; exit 4', { terminationMessagePath: '/tmp/msg' })], { restartPolicy: 'Never' }),
  },
  {
    name: 'termmsg-fallback-error',
    what: 'FallbackToLogsOnError, exit 1 with no file: the log tail becomes the message',
    spec: pod([sh('main', 'echo line one; echo line two; exit 1', { terminationMessagePolicy: 'FallbackToLogsOnError' })], {
      restartPolicy: 'Never',
    }),
  },
  {
    name: 'termmsg-fallback-success',
    what: 'FallbackToLogsOnError, exit 0 with output: no message',
    spec: pod([sh('main', 'echo all good; exit 0', { terminationMessagePolicy: 'FallbackToLogsOnError' })], { restartPolicy: 'Never' }),
  },
  {
    name: 'termmsg-file-wins',
    what: 'FallbackToLogsOnError, exit 1 with the file written: the file wins',
    spec: pod(
      [
        sh('main', 'echo from the log; echo from the file > /dev/termination-log; exit 1', {
          terminationMessagePolicy: 'FallbackToLogsOnError',
        }),
      ],
      { restartPolicy: 'Never' },
    ),
  },

  // Volumes
  {
    name: 'emptydir-shared',
    what: 'an emptyDir written by an init container and read by the container',
    spec: pod([sh('main', 'cat /data/x > /dev/termination-log', { volumeMounts: [{ name: 'data', mountPath: '/data' }] })], {
      restartPolicy: 'Never',
      volumes: [{ name: 'data', emptyDir: {} }],
      initContainers: [sh('writer', 'echo shared-through-emptydir > /data/x', { volumeMounts: [{ name: 'data', mountPath: '/data' }] })],
    }),
  },
  {
    name: 'emptydir-memory',
    what: 'an emptyDir (medium Memory) shared by two running containers; readiness reads the file',
    spec: pod(
      [
        sh('writer', `echo hi > /data/x; ${SLEEP}`, { volumeMounts: [{ name: 'data', mountPath: '/data' }] }),
        sh('reader', SLEEP, {
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
          readinessProbe: { ...exec('cat', '/data/x'), periodSeconds: 2 },
        }),
      ],
      { volumes: [{ name: 'data', emptyDir: { medium: 'Memory' } }] },
    ),
  },

  {
    name: 'fsgroup-volumes',
    what: 'fsGroup 2000: the emptyDir is group 2000 mode 2777, a downwardAPI file group 2000 (exits 0, else 3; stat in its message)',
    spec: pod(
      [
        sh(
          'main',
          "s=$(stat -c '%g %a' /scratch; stat -L -c '%g %a' /info/name); echo $s > /dev/termination-log; [ \"$s\" = '2000 2777 2000 644' ] || exit 3",
          {
            volumeMounts: [
              { name: 'scratch', mountPath: '/scratch' },
              { name: 'info', mountPath: '/info' },
            ],
          },
        ),
      ],
      {
        restartPolicy: 'Never',
        securityContext: { fsGroup: 2000 },
        volumes: [
          { name: 'scratch', emptyDir: {} },
          { name: 'info', downwardAPI: { items: [{ path: 'name', fieldRef: { fieldPath: 'metadata.name' } }] } },
        ],
      },
    ),
  },

  // Admission: rejected pods, in the kubelet's words
  {
    name: 'admit-cpu-static',
    what: 'asks for 1000 CPUs: a static pod is critical, so the preemption path rejects it (UnexpectedAdmissionError)',
    spec: pod([sh('main', SLEEP, { resources: { requests: { cpu: '1000' } } })]),
  },
  {
    name: 'admit-node-selector',
    what: 'a nodeSelector the node does not have (NodeAffinity)',
    spec: pod([sh('main', SLEEP)], { nodeSelector: { disk: 'ssd' } }),
  },
  {
    name: 'admit-node-affinity',
    what: 'required node affinity to any other host name (NodeAffinity)',
    spec: pod([sh('main', SLEEP)], {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'NotIn', values: ['diffnode'] }] }],
          },
        },
      },
    } as Partial<PodSpec>),
  },
  {
    name: 'admit-os-field',
    what: 'os.name windows (PodOSNotSupported)',
    spec: pod([sh('main', SLEEP)], { os: { name: 'windows' } }),
  },
  {
    name: 'admit-os-label',
    what: 'labelled kubernetes.io/os: windows (PodOSSelectorNodeLabelDoesNotMatch)',
    spec: pod([sh('main', SLEEP)]),
    text: [
      'apiVersion: v1',
      'kind: Pod',
      'metadata:',
      '  name: admit-os-label',
      '  labels:',
      '    kubernetes.io/os: windows',
      'spec:',
      '  hostNetwork: true',
      '  terminationGracePeriodSeconds: 2',
      '  containers:',
      '    - name: main',
      `      image: ${IMAGE}`,
      '      imagePullPolicy: IfNotPresent',
      '      command: ["sh", "-c", "sleep 3600"]',
      '',
    ].join('\n'),
  },

  // Manifests: edits, removals, file names, YAML
  {
    name: 'edit-running',
    what: 'the manifest of a running pod edited 10 s after it began (command changed: a new pod)',
    spec: pod([sh('main', SLEEP)]),
    edit: { at: 10, spec: pod([sh('main', `echo edited; ${SLEEP}`)]) },
    lasts: 35,
  },
  {
    name: 'edit-crashing-fixed',
    what: 'a crash-looping pod whose manifest is fixed 16 s after it began',
    spec: pod([sh('main', 'exit 1')]),
    edit: { at: 16, spec: pod([sh('main', SLEEP)]) },
    lasts: 40,
  },
  {
    name: 'remove-mid-start',
    what: 'removed 12 s after it began, while its 30 s init container runs',
    spec: pod([sh('main', SLEEP)], { initContainers: [sh('prep', 'sleep 30')] }),
    removeAt: 12,
  },
  {
    name: 'manifest-no-extension',
    what: 'a manifest file without an extension (named `manifest-no-extension`)',
    spec: pod([sh('main', SLEEP)]),
    fileName: 'manifest-no-extension',
  },
  {
    name: 'yaml11-boolean',
    what: 'an env var named N, unquoted: a boolean in YAML 1.1, a string in YAML 1.2',
    spec: pod([sh('main', SLEEP)]),
    text: [
      'apiVersion: v1',
      'kind: Pod',
      'metadata:',
      '  name: yaml11-boolean',
      'spec:',
      '  hostNetwork: true',
      '  terminationGracePeriodSeconds: 2',
      '  containers:',
      '    - name: main',
      `      image: ${IMAGE}`,
      '      imagePullPolicy: IfNotPresent',
      '      command: ["sh", "-c", "trap \'exit 0\' TERM; sleep 3600 & wait"]',
      '      env:',
      '        - name: N',
      '          value: "1"',
      '',
    ].join('\n'),
  },
  ...dnsScenarios,
  ...retryScenarios,
  ...restartRulesScenarios,
  ...probeScenarios,
  ...hostsScenarios,
  ...staticApiScenarios,
  ...admissionScenarios,
  ...containerScenarios,
];

/**
 * Scenarios start in waves: WAVE.size manifests written together, a wave every
 * WAVE.gap seconds. Starting every pod at once (60 pods, 2 cores) keeps containerd
 * busy for most of a minute on either agent, and the comparison would measure that.
 * Three pods every 3 s keep the machine (2 cores) from being saturated by the test alone.
 */
export const WAVE = { size: 3, gap: 3 };

/** The second (of the run) when scenario number I is written. */
export function startOf(i: number): number {
  return Math.floor(i / WAVE.size) * WAVE.gap;
}

/** How long a pod shows new states after it began, unless the scenario says (Scenario.lasts). */
export const LASTS = 25;

/** Seconds a pod may take to begin on an agent: the run lasts that much longer. */
export const SLACK = 8;

/** The last second of the run: every scenario's start, plus how long it lasts, its edit or its removal. */
export function runSeconds(list: Scenario[] = scenarios): number {
  return Math.max(...list.flatMap((s, i) => [(s.lasts ?? LASTS) + SLACK, s.edit?.at ?? 0, s.removeAt ?? 0].map((t) => startOf(i) + t)));
}
