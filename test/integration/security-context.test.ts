// The container's security context through the engine to a real containerd,
// which applies it as the kubelet's runtime would: the user, and no_new_privs
// for allowPrivilegeEscalation: false only. (The embedded runtime's sandboxes
// apply it too: test/e2e/sandbox-apply.test.ts.)
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { containerOf, startNode } from '../helpers/node.js';
import { runtimesUnderTest } from '../helpers/runtimes.js';

const image = 'busybox:1.36';
const show = ['sh', '-c', 'echo uid=$(id -u) $(grep NoNewPrivs: /proc/self/status)'];

describe.each(runtimesUnderTest().filter((r) => r.kind === 'containerd'))('security context on $name', (runtime) => {
  it('runs as runAsUser, and sets no_new_privs only where allowPrivilegeEscalation is false', async () => {
    const { endpoint, cleanup } = await runtime.start();
    const node = await startNode(endpoint);
    try {
      node.writePod('nnp', {
        restartPolicy: 'Never',
        securityContext: { runAsUser: 1234 },
        containers: [
          { name: 'allowed', image, command: show },
          { name: 'refused', image, command: show, securityContext: { allowPrivilegeEscalation: false } },
        ],
      });
      const pod = await node.waitForPod('nnp', 'Succeeded', (p) => p.status?.phase === 'Succeeded');
      const output = async (name: string) => {
        const id = containerOf(pod, name)!.containerID!.split('://')[1];
        return readFileSync((await node.client.containerStatus(id)).status!.logPath, 'utf8')
          .trim()
          .replace(/^\S+ stdout F /, '');
      };
      expect(await output('allowed')).toMatch(/^uid=1234 NoNewPrivs:\s+0$/);
      expect(await output('refused')).toMatch(/^uid=1234 NoNewPrivs:\s+1$/);
    } finally {
      await node.stop();
      await cleanup();
    }
  });
});
