// The kubelet's security context for a container: the pod's fields under the
// container's, as CRI carries them, and the runAsNonRoot check before
// CreateContainer (verifyRunAsNonRoot).
import { describe, expect, it } from 'vitest';
import type { Container, Pod } from '../../src/engine/api/v1.js';
import { generateContainerConfig } from '../../src/engine/kuberuntime/container-config.js';
import { linuxContainerSecurityContext, needsImageUser, verifyRunAsNonRoot } from '../../src/engine/kuberuntime/security-context.js';

function pod(podContext?: Record<string, unknown>, own?: Record<string, unknown>): { pod: Pod; container: Container } {
  const container: Container = { name: 'main', image: 'busybox:1.36', ...(own ? { securityContext: own } : {}) };
  const p: Pod = { metadata: { name: 'web', namespace: 'default', uid: 'uid-1' }, spec: { containers: [container], ...(podContext ? { securityContext: podContext } : {}) } };
  return { pod: p, container };
}

const namespaceOptions = { network: 'POD', pid: 'CONTAINER', ipc: 'POD' };

describe('linuxContainerSecurityContext', () => {
  it.each<[string, Record<string, unknown> | undefined, Record<string, unknown> | undefined, Record<string, unknown>]>([
    ['nothing set: the namespaces alone', undefined, undefined, { namespaceOptions }],
    ["the pod's user and group", { runAsUser: 1000, runAsGroup: 3000 }, undefined, { namespaceOptions, runAsUser: { value: 1000 }, runAsGroup: { value: 3000 } }],
    ["the container's user over the pod's", { runAsUser: 1000, runAsGroup: 3000 }, { runAsUser: 2000 }, { namespaceOptions, runAsUser: { value: 2000 }, runAsGroup: { value: 3000 } }],
    ['user 0 is passed, not dropped', { runAsUser: 1000 }, { runAsUser: 0 }, { namespaceOptions, runAsUser: { value: 0 } }],
    ["the pod's supplementalGroups, then its fsGroup", { supplementalGroups: [5, 6], fsGroup: 7 }, undefined, { namespaceOptions, supplementalGroups: [5, 6, 7] }],
    ['a read-only root and privileged, from the container', undefined, { readOnlyRootFilesystem: true, privileged: true }, { namespaceOptions, readonlyRootfs: true, privileged: true }],
    ['false flags leave them out', undefined, { readOnlyRootFilesystem: false, privileged: false }, { namespaceOptions }],
  ])('%s', (_name, podContext, own, want) => {
    const { pod: p, container } = pod(podContext, own);
    expect(linuxContainerSecurityContext(p, container)).toEqual(want);
    expect(generateContainerConfig(p, container, 0, 'sha256:abc', 'node-a', { podIP: '', podIPs: [], hostIP: '10.0.0.1', nodeName: 'node-a' }).linux?.securityContext).toEqual(want);
  });
});

describe('verifyRunAsNonRoot', () => {
  const who = '(pod: "web_default(uid-1)", container: main)';
  it.each<[string, Record<string, unknown> | undefined, Record<string, unknown> | undefined, { uid?: number; username?: string } | undefined, string | undefined]>([
    ['runAsNonRoot unset: anything runs', undefined, undefined, { uid: 0 }, undefined],
    ['runAsNonRoot false', { runAsNonRoot: false }, undefined, { uid: 0 }, undefined],
    ['runAsUser 0 breaks it', { runAsNonRoot: true }, { runAsUser: 0 }, undefined, `container's runAsUser breaks non-root policy ${who}`],
    ['a non-zero runAsUser satisfies it, whatever the image', { runAsNonRoot: true, runAsUser: 1000 }, undefined, undefined, undefined],
    ['an image of uid 0', { runAsNonRoot: true }, undefined, { uid: 0 }, `container has runAsNonRoot and image will run as root ${who}`],
    ['an image of uid 1000', undefined, { runAsNonRoot: true }, { uid: 1000 }, undefined],
    ['an image naming its user', { runAsNonRoot: true }, undefined, { username: 'app' }, `container has runAsNonRoot and image has non-numeric user (app), cannot verify user is non-root ${who}`],
    ['an image with no user runs as root', { runAsNonRoot: true }, undefined, {}, `container has runAsNonRoot and image will run as root ${who}`],
    ["the container's false over the pod's true", { runAsNonRoot: true }, { runAsNonRoot: false }, { uid: 0 }, undefined],
  ])('%s', (_name, podContext, own, image, want) => {
    const { pod: p, container } = pod(podContext, own);
    expect(verifyRunAsNonRoot(p, container, image)).toBe(want);
  });

  it("asks for the image's user only when runAsNonRoot has no runAsUser to go by", () => {
    expect(needsImageUser(pod({ runAsNonRoot: true }).pod, pod({ runAsNonRoot: true }).container)).toBe(true);
    const withUser = pod({ runAsNonRoot: true, runAsUser: 5 });
    expect(needsImageUser(withUser.pod, withUser.container)).toBe(false);
    expect(needsImageUser(pod().pod, pod().container)).toBe(false);
  });
});
