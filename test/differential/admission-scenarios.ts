// The differential's admission scenarios beyond those of scenarios.ts: the
// kubelet's other reasons for refusing a pod (resources a static pod cannot
// preempt for, sysctls), in its words, and a safe sysctl it lets through.
// Static pods are critical pods, so a resource that does not fit goes through
// the kubelet's preemption path. No scenario names a runtimeClassName: the
// standalone kubelet v1.37.2 panics on one (README.md, "Left out").
import type { PodSpec } from '../../src/engine/api/v1.js';
import { pod, sh, SLEEP } from './scenario-parts.js';
import type { Scenario } from './scenarios.js';

const running = (extra: Partial<PodSpec>) => pod([sh('main', SLEEP)], extra);

/** A pod on the pod network (namespaced sysctls are refused on the host's). */
function onPodNetwork(extra: Partial<PodSpec>): PodSpec {
  return { ...running(extra), hostNetwork: false };
}

export const admissionScenarios: Scenario[] = [
  {
    name: 'admit-memory-static',
    what: 'asks for 100Ti of memory: the preemption path of a critical pod rejects it',
    spec: pod([sh('main', SLEEP, { resources: { requests: { memory: '100Ti' } } })]),
  },
  {
    name: 'admit-extended-resource',
    what: 'asks for an extended resource the node does not have (example.com/widget)',
    spec: pod([sh('main', SLEEP, { resources: { requests: { 'example.com/widget': '1' }, limits: { 'example.com/widget': '1' } } })]),
  },
  {
    name: 'admit-sysctl-unsafe',
    what: 'an unsafe sysctl (kernel.msgmax) the node does not allow: SysctlForbidden',
    spec: onPodNetwork({ securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '65536' }] } }),
  },
  {
    name: 'admit-sysctl-host-net',
    what: 'a network sysctl on the host network: refused by the validation both run on static pods',
    spec: running({ securityContext: { sysctls: [{ name: 'net.ipv4.ip_local_port_range', value: '32768 60999' }] } }),
  },
  {
    name: 'admit-sysctl-safe',
    what: 'a safe sysctl (kernel.shm_rmid_forced=1) on the pod network: set, shown in the message',
    spec: {
      ...onPodNetwork({ securityContext: { sysctls: [{ name: 'kernel.shm_rmid_forced', value: '1' }] } }),
      restartPolicy: 'Never',
      containers: [sh('main', 'cat /proc/sys/kernel/shm_rmid_forced > /dev/termination-log')],
    },
  },
];
