import { describe, expect, it } from 'vitest';
import { ALL_CAPABILITIES, containerCapabilities, DEFAULT_CAPABILITIES } from '../../../../src/runtime/sandbox/capabilities.js';

describe("the capabilities a sandboxed container keeps (containerd's rules)", () => {
  it.each([
    ['nothing asked: the default set', false, [], [], [...DEFAULT_CAPABILITIES].sort()],
    [
      'one added, one dropped, with and without CAP_',
      false,
      ['NET_ADMIN'],
      ['CAP_KILL'],
      [...DEFAULT_CAPABILITIES.filter((c) => c !== 'kill'), 'net_admin'].sort(),
    ],
    ['ALL dropped, then one added', false, ['CHOWN'], ['ALL'], ['chown']],
    ['ALL dropped', false, [], ['all'], []],
    ['ALL added, one dropped', false, ['ALL'], ['SYS_ADMIN'], ALL_CAPABILITIES.filter((c) => c !== 'sys_admin').sort()],
  ])('%s', (_what, privileged, add, drop, expected) => {
    expect(containerCapabilities(privileged, add, drop)?.slice().sort()).toEqual(expected);
  });

  it('keeps them all (undefined) when privileged or when ALL is added and nothing dropped', () => {
    expect(containerCapabilities(true, [], ['ALL'])).toBeUndefined();
    expect(containerCapabilities(false, ['ALL'], [])).toBeUndefined();
  });

  it("lists them in the kernel's order, and refuses a name Linux does not have", () => {
    expect(containerCapabilities(false, ['SYS_ADMIN'], ['ALL'])).toEqual(['sys_admin']);
    expect(containerCapabilities(false, ['setuid', 'chown'], ['ALL'])).toEqual(['chown', 'setuid']);
    expect(() => containerCapabilities(false, ['FLY'], [])).toThrow('unknown capability "FLY"');
    expect(ALL_CAPABILITIES).toHaveLength(41);
  });
});
