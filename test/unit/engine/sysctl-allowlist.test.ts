// The kubelet's sysctl admission: safe sysctls and --allowed-unsafe-sysctls
// patterns, a namespace shared with the host refused, SysctlForbidden.
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/engine/api/v1.js';
import { SysctlAllowlist } from '../../../src/engine/sysctl-allowlist.js';

function pod(sysctls: string[], spec: Partial<Pod['spec']> = {}): Pod {
  return {
    metadata: { uid: 'u', name: 'p', namespace: 'default' },
    spec: {
      containers: [{ name: 'c', image: 'busybox' }],
      securityContext: { sysctls: sysctls.map((name) => ({ name, value: '1' })) },
      ...spec,
    },
  };
}

const forbidden = (message: string) => ({ admit: false, reason: 'SysctlForbidden', message: `forbidden sysctl: ${message}` });

describe('SysctlAllowlist', () => {
  const safeOnly = new SysctlAllowlist([], '6.1.0');
  const withUnsafe = new SysctlAllowlist(['kernel.msg*', 'fs/mqueue/*', 'kernel.sem', 'net.core.somaxconn'], '6.1.0');

  it.each<[string, SysctlAllowlist, Pod, object]>([
    ['no sysctls', safeOnly, pod([]), { admit: true }],
    ['the safe ones', safeOnly, pod(['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net/ipv4/tcp_rmem']), { admit: true }],
    ['an unsafe one without the flag', safeOnly, pod(['kernel.msgmax']), forbidden('"kernel.msgmax" not allowlisted')],
    [
      'unsafe ones the flag names or prefixes',
      withUnsafe,
      pod(['kernel.msgmax', 'fs.mqueue.msg_max', 'kernel.sem', 'net.core.somaxconn']),
      { admit: true },
    ],
    ['a slashed name, reported in the dotted form', safeOnly, pod(['kernel/shmmax']), forbidden('"kernel.shmmax" not allowlisted')],
    [
      'an IPC sysctl with hostIPC',
      safeOnly,
      pod(['kernel.shm_rmid_forced'], { hostIPC: true }),
      forbidden('"kernel.shm_rmid_forced" not allowed with host IPC enabled'),
    ],
    [
      'a network sysctl with hostNetwork',
      safeOnly,
      pod(['net.ipv4.tcp_syncookies'], { hostNetwork: true }),
      forbidden('"net.ipv4.tcp_syncookies" not allowed with host Net enabled'),
    ],
  ])('%s', (_what, list, p, want) => {
    expect(list.admit(p)).toEqual(want);
  });

  it("admits a user namespace's sysctls only to a pod with hostUsers: false", () => {
    const users = new SysctlAllowlist(['user.max_user_namespaces'], '6.1.0');
    expect(users.admit(pod(['user.max_user_namespaces']))).toEqual(
      forbidden('"user.max_user_namespaces" not allowed with host User enabled'),
    );
    expect(users.admit(pod(['user.max_user_namespaces'], { hostUsers: false }))).toEqual({ admit: true });
  });

  it('leaves out the safe sysctls an older kernel does not namespace', () => {
    const old = new SysctlAllowlist([], '4.4.0-210-generic');
    expect(old.admit(pod(['net.ipv4.ip_local_reserved_ports']))).toEqual({ admit: true });
    expect(old.admit(pod(['net.ipv4.tcp_keepalive_time']))).toEqual(forbidden('"net.ipv4.tcp_keepalive_time" not allowlisted'));
    expect(new SysctlAllowlist([], '4.5.0').admit(pod(['net.ipv4.tcp_keepalive_time']))).toEqual({ admit: true });
  });

  it("refuses a pattern that is malformed or names no namespaced sysctl, with the kubelet's message", () => {
    expect(() => new SysctlAllowlist(['kernel.pid_max'])).toThrow('the sysctls "kernel.pid_max" are not known to be namespaced');
    expect(() => new SysctlAllowlist(['Kernel.Msgmax'])).toThrow('sysctl "Kernel.Msgmax" must have at most 253 characters and match regex');
    expect(() => new SysctlAllowlist(['kernel.*.x'])).toThrow('must have at most 253 characters');
  });
});
