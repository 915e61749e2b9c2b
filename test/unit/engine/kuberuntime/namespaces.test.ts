// The namespace modes the kubelet gives a pod's sandbox and each of its
// containers (namespacesForPod).
import { describe, expect, it } from 'vitest';
import type { Pod, PodSpec } from '../../../../src/engine/api/v1.js';
import { generateContainerConfig } from '../../../../src/engine/kuberuntime/container-config.js';
import type { PodAddresses } from '../../../../src/engine/kuberuntime/env.js';
import { namespacesForPod } from '../../../../src/engine/kuberuntime/namespaces.js';
import { generatePodSandboxConfig } from '../../../../src/engine/kuberuntime/sandbox.js';

const addresses: PodAddresses = { podIP: '10.88.0.5', podIPs: ['10.88.0.5'], hostIP: '192.168.1.10', nodeName: 'node-a' };

function pod(spec: Partial<PodSpec> = {}): Pod {
  return {
    metadata: { name: 'web', namespace: 'default', uid: 'uid-1' },
    spec: { containers: [{ name: 'main', image: 'busybox:1.36', command: ['sh'] }], ...spec },
  };
}

describe('namespacesForPod', () => {
  it.each([
    ["a plain pod: its own PID namespace per container, the pod's network and IPC", {}, { network: 'POD', pid: 'CONTAINER', ipc: 'POD' }],
    ["shareProcessNamespace: the pod's PID namespace", { shareProcessNamespace: true }, { network: 'POD', pid: 'POD', ipc: 'POD' }],
    ['shareProcessNamespace false', { shareProcessNamespace: false }, { network: 'POD', pid: 'CONTAINER', ipc: 'POD' }],
    [
      'hostPID wins over shareProcessNamespace',
      { hostPID: true, shareProcessNamespace: true },
      { network: 'POD', pid: 'NODE', ipc: 'POD' },
    ],
    ['hostNetwork and hostIPC', { hostNetwork: true, hostIPC: true }, { network: 'NODE', pid: 'CONTAINER', ipc: 'NODE' }],
  ] as const)('%s', (_name, spec, want) => {
    expect(namespacesForPod(pod(spec))).toEqual(want);
  });

  it('are the same on the sandbox config and on every container config', () => {
    for (const spec of [{}, { shareProcessNamespace: true }, { hostPID: true }] as const) {
      const p = pod(spec);
      const container = generateContainerConfig(p, p.spec.containers[0], 0, 'sha256:abc', 'node-a', addresses);
      expect(container.linux?.securityContext?.namespaceOptions).toEqual(namespacesForPod(p));
      expect(generatePodSandboxConfig(p, 0, 'node-a', '/var/log/pods').linux?.securityContext?.namespaceOptions).toEqual(
        namespacesForPod(p),
      );
    }
  });
});

describe('the sandbox config', () => {
  it("carries the pod's sysctls as a map, names as given, and none when the pod has none", () => {
    const p = pod({
      securityContext: {
        sysctls: [
          { name: 'kernel.shm_rmid_forced', value: '1' },
          { name: 'fs/mqueue/msg_max', value: '64' },
        ],
      },
    });
    expect(generatePodSandboxConfig(p, 0, 'node-a', '/var/log/pods').linux).toEqual({
      cgroupParent: '',
      securityContext: { namespaceOptions: namespacesForPod(p), seccomp: { profileType: 'RuntimeDefault' } },
      sysctls: { 'kernel.shm_rmid_forced': '1', 'fs/mqueue/msg_max': '64' },
    });
    expect(generatePodSandboxConfig(pod(), 0, 'node-a', '/var/log/pods').linux).not.toHaveProperty('sysctls');
  });
});
