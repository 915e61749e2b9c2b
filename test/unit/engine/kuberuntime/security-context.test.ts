// The kubelet's security context for a container: the pod's fields under the
// container's, as CRI carries them, and the runAsNonRoot check before
// CreateContainer (verifyRunAsNonRoot).
import { describe, expect, it } from 'vitest';
import type { Container, Pod } from '../../../../src/engine/api/v1.js';
import { generateContainerConfig } from '../../../../src/engine/kuberuntime/container-config.js';
import { existsSync } from 'node:fs';
import {
  defaultMaskedPaths,
  linuxContainerSecurityContext,
  needsImageUser,
  seccompProfileFor,
  verifyRunAsNonRoot,
} from '../../../../src/engine/kuberuntime/security-context.js';
import { generatePodSandboxConfig } from '../../../../src/engine/kuberuntime/sandbox.js';

function pod(podContext?: Record<string, unknown>, own?: Record<string, unknown>): { pod: Pod; container: Container } {
  const container: Container = { name: 'main', image: 'busybox:1.36', ...(own ? { securityContext: own } : {}) };
  const p: Pod = {
    metadata: { name: 'web', namespace: 'default', uid: 'uid-1' },
    spec: { containers: [container], ...(podContext ? { securityContext: podContext } : {}) },
  };
  return { pod: p, container };
}

const namespaceOptions = { network: 'POD', pid: 'CONTAINER', ipc: 'POD' };
// The kubelet's lists for a Default procMount (pkg/securitycontext/util.go), as moby has them.
const MASKED = [
  '/proc/asound',
  '/proc/acpi',
  '/proc/interrupts',
  '/proc/kcore',
  '/proc/keys',
  '/proc/latency_stats',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/scsi',
  '/sys/firmware',
  '/sys/devices/virtual/powercap',
];
const READONLY = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'];
const UNMASKED = { maskedPaths: [], readonlyPaths: [] };

describe('linuxContainerSecurityContext', () => {
  it.each<[string, Record<string, unknown> | undefined, Record<string, unknown> | undefined, Record<string, unknown>]>([
    ['nothing set: the namespaces alone', undefined, undefined, { namespaceOptions }],
    [
      "the pod's user and group",
      { runAsUser: 1000, runAsGroup: 3000 },
      undefined,
      { namespaceOptions, runAsUser: { value: 1000 }, runAsGroup: { value: 3000 } },
    ],
    [
      "the container's user over the pod's",
      { runAsUser: 1000, runAsGroup: 3000 },
      { runAsUser: 2000 },
      { namespaceOptions, runAsUser: { value: 2000 }, runAsGroup: { value: 3000 } },
    ],
    ['user 0 is passed, not dropped', { runAsUser: 1000 }, { runAsUser: 0 }, { namespaceOptions, runAsUser: { value: 0 } }],
    [
      "the pod's supplementalGroups, then its fsGroup",
      { supplementalGroups: [5, 6], fsGroup: 7 },
      undefined,
      { namespaceOptions, supplementalGroups: [5, 6, 7] },
    ],
    [
      'a read-only root and privileged, from the container',
      undefined,
      { readOnlyRootFilesystem: true, privileged: true },
      { namespaceOptions, readonlyRootfs: true, privileged: true },
    ],
    ['false flags leave them out', undefined, { readOnlyRootFilesystem: false, privileged: false }, { namespaceOptions }],
    [
      'capabilities added and dropped, as given',
      undefined,
      { capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] } },
      { namespaceOptions, capabilities: { addCapabilities: ['NET_ADMIN'], dropCapabilities: ['ALL'], addAmbientCapabilities: [] } },
    ],
    [
      'capabilities with only drops',
      undefined,
      { capabilities: { drop: ['NET_RAW'] } },
      { namespaceOptions, capabilities: { addCapabilities: [], dropCapabilities: ['NET_RAW'], addAmbientCapabilities: [] } },
    ],
    [
      'allowPrivilegeEscalation false: no_new_privs',
      undefined,
      { allowPrivilegeEscalation: false },
      { namespaceOptions, noNewPrivs: true },
    ],
    ['allowPrivilegeEscalation true or unset: not sent', undefined, { allowPrivilegeEscalation: true }, { namespaceOptions }],
    ['procMount Unmasked: nothing masked or read-only', undefined, { procMount: 'Unmasked' }, { namespaceOptions, ...UNMASKED }],
    [
      'privileged still gets the lists (the runtime leaves them out)',
      undefined,
      { privileged: true, procMount: 'Default' },
      { namespaceOptions, privileged: true },
    ],
  ])('%s', (_name, podContext, own, wanted) => {
    const { pod: p, container } = pod(podContext, own);
    const want = { maskedPaths: MASKED, readonlyPaths: READONLY, seccomp: { profileType: 'Unconfined' }, ...wanted };
    expect(linuxContainerSecurityContext(p, container, { masked: MASKED })).toEqual(want);
    expect(
      generateContainerConfig(p, container, 0, 'sha256:abc', 'node-a', { podIP: '', podIPs: [], hostIP: '10.0.0.1', nodeName: 'node-a' })
        .linux?.securityContext,
    ).toEqual({ ...want, maskedPaths: want.maskedPaths === MASKED ? defaultMaskedPaths() : want.maskedPaths });
  });
});

describe('seccompProfileFor', () => {
  const root = '/var/lib/knode/kubelet/seccomp';
  it.each<[string, Record<string, unknown> | undefined, Record<string, unknown> | undefined, boolean, Record<string, unknown>]>([
    ['none named: Unconfined', undefined, undefined, false, { profileType: 'Unconfined' }],
    ['none named, seccompDefault on: RuntimeDefault', undefined, undefined, true, { profileType: 'RuntimeDefault' }],
    ["the pod's", { seccompProfile: { type: 'RuntimeDefault' } }, undefined, false, { profileType: 'RuntimeDefault' }],
    [
      "the container's over the pod's",
      { seccompProfile: { type: 'RuntimeDefault' } },
      { seccompProfile: { type: 'Unconfined' } },
      true,
      { profileType: 'Unconfined' },
    ],
    [
      'Localhost: its path under the profile root',
      undefined,
      { seccompProfile: { type: 'Localhost', localhostProfile: 'profiles/audit.json' } },
      false,
      { profileType: 'Localhost', localhostRef: `${root}/profiles/audit.json` },
    ],
  ])('%s', (_name, podContext, own, fallbackToRuntimeDefault, wanted) => {
    const { pod: p, container } = pod(podContext, own);
    expect(seccompProfileFor(p, container, { profileRoot: root, fallbackToRuntimeDefault })).toEqual(wanted);
  });

  it('reaches the container config, and the sandbox always asks for RuntimeDefault, privileged when a container is', () => {
    const { pod: p, container } = pod({ seccompProfile: { type: 'Localhost', localhostProfile: 'a.json' } }, { privileged: true });
    const config = generateContainerConfig(
      p,
      container,
      0,
      'sha256:abc',
      'node-a',
      { podIP: '', podIPs: [], hostIP: '10.0.0.1', nodeName: 'node-a' },
      new Map(),
      undefined,
      { seccomp: { profileRoot: root, fallbackToRuntimeDefault: false } },
    );
    expect(config.linux?.securityContext?.seccomp).toEqual({ profileType: 'Localhost', localhostRef: `${root}/a.json` });
    expect(generatePodSandboxConfig(p, 0, 'node-a', '/var/log/pods').linux?.securityContext).toMatchObject({
      privileged: true,
      seccomp: { profileType: 'RuntimeDefault' },
    });
    expect(generatePodSandboxConfig(pod().pod, 0, 'node-a', '/var/log/pods').linux?.securityContext).not.toHaveProperty('privileged');
  });
});

describe('defaultMaskedPaths', () => {
  it("is the kubelet's list, then each possible CPU's thermal_throttle directory this host has", () => {
    const paths = defaultMaskedPaths();
    expect(paths.slice(0, MASKED.length)).toEqual(MASKED);
    const thermal = paths.slice(MASKED.length);
    for (const path of thermal) expect(path).toMatch(/^\/sys\/devices\/system\/cpu\/cpu\d+\/thermal_throttle$/);
    expect(thermal.every((path) => existsSync(path))).toBe(true);
    expect(existsSync('/sys/devices/system/cpu/cpu0/thermal_throttle')).toBe(
      thermal.includes('/sys/devices/system/cpu/cpu0/thermal_throttle'),
    );
  });
});

describe('verifyRunAsNonRoot', () => {
  const who = '(pod: "web_default(uid-1)", container: main)';
  it.each<
    [
      string,
      Record<string, unknown> | undefined,
      Record<string, unknown> | undefined,
      { uid?: number; username?: string } | undefined,
      string | undefined,
    ]
  >([
    ['runAsNonRoot unset: anything runs', undefined, undefined, { uid: 0 }, undefined],
    ['runAsNonRoot false', { runAsNonRoot: false }, undefined, { uid: 0 }, undefined],
    ['runAsUser 0 breaks it', { runAsNonRoot: true }, { runAsUser: 0 }, undefined, `container's runAsUser breaks non-root policy ${who}`],
    ['a non-zero runAsUser satisfies it, whatever the image', { runAsNonRoot: true, runAsUser: 1000 }, undefined, undefined, undefined],
    ['an image of uid 0', { runAsNonRoot: true }, undefined, { uid: 0 }, `container has runAsNonRoot and image will run as root ${who}`],
    ['an image of uid 1000', undefined, { runAsNonRoot: true }, { uid: 1000 }, undefined],
    [
      'an image naming its user',
      { runAsNonRoot: true },
      undefined,
      { username: 'app' },
      `container has runAsNonRoot and image has non-numeric user (app), cannot verify user is non-root ${who}`,
    ],
    [
      'an image with no user runs as root',
      { runAsNonRoot: true },
      undefined,
      {},
      `container has runAsNonRoot and image will run as root ${who}`,
    ],
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
