// The pods of the eviction differential (README.md beside this file): what
// each agent runs, the memory each pod takes once the trigger file appears,
// and the PriorityClasses the cluster holds for them.

/** MiB each memory pod writes into its memory-backed emptyDir after the trigger (its memcg is charged). */
export interface MemoryPod {
  name: string;
  mib: number;
  /** requests (= limits for Guaranteed); none: BestEffort. */
  memory?: { request: string; limit?: string };
  priorityClassName?: string;
}

export const PRIORITY_CLASSES = [
  { name: 'evict-low', value: 10 },
  { name: 'evict-high', value: 1000 },
];

/**
 * The static pod (BestEffort, priority 0, over its requests) would rank
 * before `be-low` if it could be evicted; `critical` likewise.
 */
export const STATIC_POD: MemoryPod = { name: 'static', mib: 150 };
export const MEMORY_PODS: MemoryPod[] = [
  { name: 'be-low', mib: 300, priorityClassName: 'evict-low' },
  { name: 'burstable-high', mib: 3072, memory: { request: '64Mi' }, priorityClassName: 'evict-high' },
  { name: 'guaranteed', mib: 50, memory: { request: '256Mi', limit: '256Mi' }, priorityClassName: 'evict-high' },
  { name: 'critical', mib: 150, priorityClassName: 'system-node-critical' },
];
/**
 * How far above the working set measured before the agent starts the
 * threshold lies. All pods together add 3722 MiB: over it by 1.7 GiB;
 * without `be-low` 3422 MiB, still over by 1.4 GiB; without
 * `burstable-high` too, 350 MiB, under by 1.6 GiB: two evictions, then no
 * more, whatever else on the machine moves the working set by less than
 * that. (The kubelet sizes a memory-backed emptyDir to the node's
 * allocatable memory, the working set plus the margin: above 3 GiB.)
 */
export const MARGIN_MIB = 2000;

/** No trap: sh as pid 1 ignores SIGTERM, so an evicted container dies of the SIGKILL after the grace period (137) on both agents. */
const sleeper = 'while true; do sleep 1; done';

function memoryContainer(p: MemoryPod): Record<string, unknown> {
  const script = `until [ -e /trigger/go ]; do sleep 1; done; dd if=/dev/zero of=/mem/fill bs=1M count=${p.mib} 2>/dev/null; ${sleeper}`;
  const resources = p.memory
    ? {
        requests: { memory: p.memory.request, ...(p.memory.limit ? { cpu: '50m' } : {}) },
        ...(p.memory.limit ? { limits: { memory: p.memory.limit, cpu: '50m' } } : {}),
      }
    : undefined;
  return {
    name: 'app',
    image: 'busybox:1.36',
    imagePullPolicy: 'IfNotPresent',
    command: ['sh', '-c', script],
    ...(resources ? { resources } : {}),
    volumeMounts: [
      { name: 'mem', mountPath: '/mem' },
      { name: 'trigger', mountPath: '/trigger' },
    ],
  };
}

/** A pod object (as JSON, which YAML reads) for the cluster or the static dir. */
function pod(name: string, namespace: string, spec: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { test: 'evictdiff' } },
    spec: { hostNetwork: true, terminationGracePeriodSeconds: 5, ...spec },
  };
}

export function memoryPod(p: MemoryPod, namespace: string, triggerDir: string, nodeName?: string): Record<string, unknown> {
  return pod(p.name, namespace, {
    ...(nodeName ? { nodeName } : {}),
    ...(p.priorityClassName ? { priorityClassName: p.priorityClassName } : {}),
    containers: [memoryContainer(p)],
    volumes: [
      { name: 'mem', emptyDir: { medium: 'Memory' } },
      { name: 'trigger', hostPath: { path: triggerDir, type: 'Directory' } },
    ],
  });
}

/** Pods over a local storage limit from the start; their memory requests keep them behind the memory pods in the ranking. */
export function storagePods(namespace: string, nodeName: string): Record<string, unknown>[] {
  const fill = (path: string) => `dd if=/dev/zero of=${path} bs=1M count=3 2>/dev/null; ${sleeper}`;
  const requests = { memory: '32Mi' };
  return [
    pod('emptydir-limit', namespace, {
      nodeName,
      containers: [
        {
          name: 'app',
          image: 'busybox:1.36',
          command: ['sh', '-c', fill('/scratch/fill')],
          resources: { requests },
          volumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
        },
      ],
      volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1Mi' } }],
    }),
    pod('ephemeral-limit', namespace, {
      nodeName,
      containers: [
        {
          name: 'app',
          image: 'busybox:1.36',
          command: ['sh', '-c', fill('/fill')],
          resources: { requests, limits: { 'ephemeral-storage': '1Mi' } },
        },
      ],
    }),
  ];
}

/** Pods bound to the node once it is under memory pressure: the BestEffort one is rejected, the Burstable one admitted. */
export function admissionPods(namespace: string, nodeName: string): Record<string, unknown>[] {
  const container = (resources?: Record<string, unknown>) => ({
    name: 'app',
    image: 'busybox:1.36',
    command: ['sh', '-c', sleeper],
    ...(resources ? { resources } : {}),
  });
  return [
    pod('admit-besteffort', namespace, { nodeName, containers: [container()] }),
    pod('admit-burstable', namespace, { nodeName, containers: [container({ requests: { memory: '32Mi' } })] }),
  ];
}
