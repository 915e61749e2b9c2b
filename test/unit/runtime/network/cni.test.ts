// The CNI side of the embedded runtime's pod network: which configuration a
// directory gives, and how the plugins of a list are run (with plugins that
// are small shell scripts writing down what they were given).
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addNetwork, delNetwork, loadConfList, resultIps, type CniAttachment } from '../../../../src/runtime/network/cni.js';

const scratch = mkdtempSync(join(tmpdir(), 'knode-cni-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let dirs = 0;
function confDir(files: Record<string, string>): string {
  const dir = join(scratch, `conf-${dirs++}`);
  mkdirSync(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe('loadConfList', () => {
  it('takes the first configuration file by name, skipping other files and hidden ones', () => {
    const dir = confDir({
      '.00-hidden.conflist': '{}',
      '05-notes.txt': 'not a configuration',
      '20-second.conflist': JSON.stringify({ cniVersion: '1.0.0', name: 'second', plugins: [{ type: 'bridge' }] }),
      '10-first.conflist': JSON.stringify({
        cniVersion: '1.0.0',
        name: 'first',
        plugins: [{ type: 'bridge' }, { type: 'portmap', capabilities: { portMappings: true } }],
      }),
    });
    expect(loadConfList(dir)).toEqual({
      cniVersion: '1.0.0',
      name: 'first',
      plugins: [{ type: 'bridge' }, { type: 'portmap', capabilities: { portMappings: true } }],
      file: join(dir, '10-first.conflist'),
    });
  });

  it("reads a single plugin's .conf as a list of one", () => {
    const dir = confDir({ '10-one.conf': JSON.stringify({ cniVersion: '0.4.0', name: 'one', type: 'ptp', ipMasq: true }) });
    expect(loadConfList(dir)?.plugins).toEqual([{ cniVersion: '0.4.0', name: 'one', type: 'ptp', ipMasq: true }]);
  });

  it('gives nothing for a directory that is missing or holds no configuration', () => {
    expect(loadConfList(join(scratch, 'missing'))).toBeUndefined();
    expect(loadConfList(confDir({ README: 'nothing here' }))).toBeUndefined();
  });

  it('names the file and the field of a configuration it cannot use', () => {
    const bad = (text: string) => {
      const dir = confDir({ '10-bad.conflist': text });
      try {
        loadConfList(dir);
      } catch (err) {
        return (err as Error).message.replace(`${dir}/`, '');
      }
      return 'accepted';
    };
    expect(bad('{"cniVersion": "1.0.0", "name": "x", "plugins": [{"type": "bridge"}')).toMatch(
      /^10-bad\.conflist: not a CNI network configuration: /,
    );
    expect(bad('[1, 2]')).toBe('10-bad.conflist: not a CNI network configuration: not a JSON object');
    expect(bad('{"cniVersion": "1.0.0", "name": "x", "plugins": []}')).toBe(
      '10-bad.conflist: plugins: a network configuration list needs at least one plugin',
    );
    expect(bad('{"cniVersion": "1.0.0", "plugins": [{"type": "bridge"}]}')).toBe('10-bad.conflist: name: required');
    expect(bad('{"name": "x", "plugins": [{"type": "bridge"}]}')).toBe('10-bad.conflist: cniVersion: required');
    expect(bad('{"cniVersion": "1.0.0", "name": "x", "plugins": [{"type": "bridge"}, {"type": "../../bin/sh"}]}')).toBe(
      "10-bad.conflist: plugins[1].type: required, a program's name",
    );
  });
});

describe('running a list', () => {
  const bin = join(scratch, 'bin');
  const calls = join(scratch, 'calls');
  mkdirSync(bin);
  /** A plugin that appends its command, variables and stdin to CALLS, and answers ANSWER (or fails with FAIL). */
  const plugin = (type: string, answer: string, fail?: string) => {
    const path = join(bin, type);
    const onFail = fail ? `echo '${fail}'; exit 1` : '';
    writeFileSync(
      path,
      `#!/bin/sh\nin=$(cat)\nprintf '%s %s %s %s %s %s\\n%s\\n' "$CNI_COMMAND" "$CNI_CONTAINERID" "$CNI_NETNS" "$CNI_IFNAME" "$CNI_ARGS" "$CNI_PATH" "$in" >> ${calls}\n${onFail}\n[ "$CNI_COMMAND" = ADD ] && echo '${answer}'\nexit 0\n`,
    );
    chmodSync(path, 0o755);
  };
  const at: CniAttachment = {
    containerId: 'sb1',
    netns: '/run/netns/sb1',
    ifName: 'eth0',
    args: { K8S_POD_NAME: 'web', K8S_POD_NAMESPACE: 'default' },
    runtimeConfig: { portMappings: [{ hostPort: 8080, containerPort: 80, protocol: 'tcp' }] },
  };
  const recorded = () =>
    readFileSync(calls, 'utf8')
      .trim()
      .split('\n')
      .reduce<{ env: string; conf: Record<string, unknown> }[]>(
        (out, line, i, all) => (i % 2 === 0 ? [...out, { env: line, conf: JSON.parse(all[i + 1]) as Record<string, unknown> }] : out),
        [],
      );

  it("runs ADD plugin after plugin, each given the one before's result, the runtime config it asks for, and the pod in CNI_ARGS", async () => {
    writeFileSync(calls, '');
    const firstAnswer =
      '{"cniVersion":"1.0.0","ips":[{"address":"10.1.0.5/24","interface":0}],"interfaces":[{"name":"eth0","sandbox":"/run/netns/sb1"}]}';
    plugin('first', firstAnswer);
    plugin(
      'second',
      '{"cniVersion":"1.0.0","ips":[{"address":"10.1.0.5/24","interface":0}],"interfaces":[{"name":"eth0","sandbox":"/run/netns/sb1"}],"dns":{}}',
    );
    const list = {
      cniVersion: '1.0.0',
      name: 'net',
      file: 'f',
      plugins: [
        { type: 'first', mtu: 1400 },
        { type: 'second', capabilities: { portMappings: true } },
      ],
    };
    const result = await addNetwork(list, at, ['/nowhere', bin]);
    expect(result.dns).toEqual({});
    const [one, two] = recorded();
    expect(one.env).toBe(`ADD sb1 /run/netns/sb1 eth0 IgnoreUnknown=1;K8S_POD_NAME=web;K8S_POD_NAMESPACE=default /nowhere:${bin}`);
    expect(one.conf).toEqual({ type: 'first', mtu: 1400, cniVersion: '1.0.0', name: 'net' });
    // Only the plugin whose capabilities ask for port mappings gets them; capabilities are not passed on.
    expect(two.conf).toEqual({
      type: 'second',
      cniVersion: '1.0.0',
      name: 'net',
      prevResult: JSON.parse(firstAnswer),
      runtimeConfig: at.runtimeConfig,
    });

    writeFileSync(calls, '');
    await delNetwork(list, at, [bin], result);
    expect(recorded().map((c) => [c.env.split(' ')[0], c.conf.type, (c.conf.prevResult as { dns?: unknown }).dns])).toEqual([
      ['DEL', 'second', {}],
      ['DEL', 'first', {}],
    ]);
  });

  it("fails with the plugin's own error, and DEL goes on past a plugin that fails", async () => {
    plugin('broken', '', '{"cniVersion":"1.0.0","code":11,"msg":"failed to allocate","details":"range full"}');
    plugin('fine', '{}');
    const list = { cniVersion: '1.0.0', name: 'net', file: 'f', plugins: [{ type: 'fine' }, { type: 'broken' }] };
    await expect(addNetwork(list, at, [bin])).rejects.toThrow('CNI plugin broken ADD: failed to allocate: range full (code 11)');
    writeFileSync(calls, '');
    await expect(delNetwork(list, at, [bin])).rejects.toThrow('CNI plugin broken DEL: failed to allocate');
    expect(recorded().map((c) => c.conf.type)).toEqual(['broken', 'fine']);
    await expect(addNetwork({ ...list, plugins: [{ type: 'absent' }] }, at, [bin])).rejects.toThrow(
      `CNI plugin "absent" (f) is in none of ${bin}`,
    );
  });
});

describe('resultIps', () => {
  it("gives the addresses on the pod's interface, IPv4 first, without their prefix", () => {
    const result = {
      interfaces: [{ name: 'cni0' }, { name: 'veth1' }, { name: 'eth0', sandbox: '/run/netns/x' }],
      ips: [
        { address: 'fd00::5/64', interface: 2 },
        { address: '10.1.0.5/24', interface: 2 },
        { address: '10.9.9.9/24', interface: 0 },
      ],
    };
    expect(resultIps(result, 'eth0')).toEqual(['10.1.0.5', 'fd00::5']);
    expect(resultIps({ ips: [{ address: '10.2.0.7/16' }] }, 'eth0')).toEqual(['10.2.0.7']);
  });
});
