// Which of a pod's sysctls the embedded runtime's sandboxes can set: those of
// the pod's own IPC, UTS and network namespaces, as runc allows them.
import { describe, expect, it } from 'vitest';
import { sysctlFiles } from '../../../../src/runtime/sandbox/sysctls.js';
import { normalizeSysctlName } from '../../../../src/util/sysctl-name.js';

const own = { ipc: true, uts: true };

describe('normalizeSysctlName', () => {
  it("writes names with dots between parts, as the kubelet's NormalizeName", () => {
    expect(normalizeSysctlName('kernel.shm_rmid_forced')).toBe('kernel.shm_rmid_forced');
    expect(normalizeSysctlName('fs/mqueue/msg_max')).toBe('fs.mqueue.msg_max');
    expect(normalizeSysctlName('net/ipv4/conf/eth0.100/forwarding')).toBe('net.ipv4.conf.eth0/100.forwarding');
    expect(normalizeSysctlName('net.ipv4.conf.eth0/100.forwarding')).toBe('net.ipv4.conf.eth0/100.forwarding');
  });
});

describe('sysctlFiles', () => {
  it('takes network sysctls in a network namespace of its own (a pod network)', () => {
    expect(
      sysctlFiles({ 'net.ipv4.ip_unprivileged_port_start': '80', 'net/ipv4/conf/eth0.100/forwarding': '1' }, { ...own, net: true }),
    ).toEqual([
      ['net/ipv4/ip_unprivileged_port_start', '80'],
      ['net/ipv4/conf/eth0.100/forwarding', '1'],
    ]);
  });

  it('takes IPC and UTS sysctls, dotted or slashed, as files under /proc/sys in the order given', () => {
    expect(
      sysctlFiles(
        { 'kernel.shm_rmid_forced': '1', 'fs.mqueue.msg_max': '100', 'kernel/sem': '250 32000 32 128', 'kernel.domainname': 'example' },
        own,
      ),
    ).toEqual([
      ['kernel/shm_rmid_forced', '1'],
      ['fs/mqueue/msg_max', '100'],
      ['kernel/sem', '250 32000 32 128'],
      ['kernel/domainname', 'example'],
    ]);
  });

  it.each([
    ['a host-wide sysctl', { 'kernel.pid_max': '4096' }, own, 'sysctl "kernel.pid_max" is not in a separate kernel namespace'],
    [
      'a network sysctl (no network namespace)',
      { 'net.ipv4.ip_local_port_range': '1024 65000' },
      own,
      'sysctl "net.ipv4.ip_local_port_range" is not allowed in the host\'s network namespace',
    ],
    [
      "a UTS sysctl in the host's UTS namespace (a host-network pod)",
      { 'kernel.domainname': 'x' },
      { ipc: true, uts: false },
      'sysctl "kernel.domainname" is not allowed in the host\'s UTS namespace',
    ],
    [
      "an IPC sysctl with the host's IPC namespace",
      { 'kernel.shmmax': '1' },
      { ipc: false, uts: true },
      'sysctl "kernel.shmmax" is not allowed in the host\'s IPC namespace',
    ],
    ['a name that climbs out of /proc/sys', { 'kernel/../../etc/passwd': 'x' }, own, 'not a sysctl name'],
    ['a name with a space', { 'kernel.shm rmid': '1' }, own, 'not a sysctl name'],
    ['an empty component', { 'kernel..shmmax': '1' }, own, 'not a sysctl name'],
    ['a value with a newline', { 'kernel.shmmax': '1\n2' }, own, 'its value has a newline or a NUL'],
  ])('refuses %s', (_what, sysctls, namespaces, message) => {
    expect(() => sysctlFiles(sysctls, namespaces)).toThrow(message);
  });
});
