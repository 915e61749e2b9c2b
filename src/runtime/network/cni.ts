// CNI (the Container Network Interface, spec 1.0) as a runtime calls it:
// the network configuration list a directory holds (the first file by name,
// as containerd and libcni pick it), and its plugins run one after another
// as programs, each reading its configuration on stdin (the list's name and
// version, the result of the plugin before it, the runtime's capabilities
// such as port mappings) and told what to do through CNI_* variables.
import { execFile } from 'node:child_process';
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One plugin's configuration in a list: its `type` names the program. */
export interface PluginConf {
  type: string;
  capabilities?: Record<string, boolean>;
  [key: string]: unknown;
}

export interface NetworkConfList {
  cniVersion: string;
  name: string;
  plugins: PluginConf[];
  /** The file it was read from. */
  file: string;
}

/** What a plugin chain answers to ADD (the parts used here). */
export interface CniResult {
  cniVersion?: string;
  interfaces?: { name: string; mac?: string; sandbox?: string }[];
  ips?: { address: string; gateway?: string; interface?: number }[];
  [key: string]: unknown;
}

/** Why a network cannot be set up or taken down: the plugin, and what it said. */
export class CniError extends Error {}

/** The extensions libcni reads, in a directory whose files are taken by name. */
const EXTENSIONS = ['.conf', '.conflist', '.json'];

/** How long one plugin may take. */
const PLUGIN_TIMEOUT_MS = 60_000;

/**
 * The network to use from DIR: its first configuration file by name; a
 * single plugin's (`.conf`) is a list of one. Undefined when DIR has none;
 * throws, naming the file and the field, for one that is malformed.
 */
export function loadConfList(dir: string): NetworkConfList | undefined {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => EXTENSIONS.some((e) => n.endsWith(e)) && !n.startsWith('.'))
      .sort();
  } catch {
    return undefined;
  }
  if (names.length === 0) return undefined;
  const file = join(dir, names[0]);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new CniError(`${file}: not a CNI network configuration: ${(err as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new CniError(`${file}: not a CNI network configuration: not a JSON object`);
  const conf = raw as Record<string, unknown>;
  const plugins = Array.isArray(conf.plugins) ? conf.plugins : conf.type !== undefined ? [conf] : undefined;
  if (!plugins || plugins.length === 0) throw new CniError(`${file}: plugins: a network configuration list needs at least one plugin`);
  if (typeof conf.name !== 'string' || conf.name === '') throw new CniError(`${file}: name: required`);
  if (typeof conf.cniVersion !== 'string' || conf.cniVersion === '') throw new CniError(`${file}: cniVersion: required`);
  plugins.forEach((p: unknown, i) => {
    if (
      typeof p !== 'object' ||
      p === null ||
      typeof (p as PluginConf).type !== 'string' ||
      !/^[A-Za-z0-9._-]+$/.test((p as PluginConf).type)
    ) {
      throw new CniError(`${file}: plugins[${i}].type: required, a program's name`);
    }
  });
  return { cniVersion: conf.cniVersion, name: conf.name, plugins: plugins as PluginConf[], file };
}

/** Where a plugin's program is: the first of the directories that has it. */
export function findPlugin(type: string, binDirs: readonly string[]): string | undefined {
  for (const dir of binDirs) {
    const path = join(dir, type);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not in this one
    }
  }
  return undefined;
}

/** The sandbox a network is set up for, as CNI_* variables and CNI_ARGS tell the plugins. */
export interface CniAttachment {
  containerId: string;
  netns: string;
  ifName: string;
  /** K8S_POD_NAMESPACE, K8S_POD_NAME ... (CNI_ARGS), as the kubelet's runtimes pass them. */
  args: Record<string, string>;
  /** runtimeConfig entries, each given to the plugins whose capabilities ask for it. */
  runtimeConfig?: Record<string, unknown>;
}

/**
 * Runs the list's ADD, plugin after plugin, each given the result of the one
 * before; returns the last one's. A plugin that fails ends it (the caller
 * runs DEL to undo what the others did).
 */
export async function addNetwork(list: NetworkConfList, at: CniAttachment, binDirs: readonly string[]): Promise<CniResult> {
  let result: CniResult | undefined;
  for (const plugin of list.plugins) result = await runPlugin('ADD', list, plugin, at, binDirs, result);
  return result ?? {};
}

/**
 * Runs the list's DEL, last plugin first, each given the result ADD made;
 * goes on past a plugin that fails and throws the first failure at the end.
 */
export async function delNetwork(
  list: NetworkConfList,
  at: CniAttachment,
  binDirs: readonly string[],
  prevResult?: CniResult,
): Promise<void> {
  let first: Error | undefined;
  for (const plugin of [...list.plugins].reverse()) {
    await runPlugin('DEL', list, plugin, at, binDirs, prevResult).catch((err: Error) => (first ??= err));
  }
  if (first) throw first;
}

function runPlugin(
  command: 'ADD' | 'DEL',
  list: NetworkConfList,
  plugin: PluginConf,
  at: CniAttachment,
  binDirs: readonly string[],
  prevResult?: CniResult,
): Promise<CniResult> {
  const program = findPlugin(plugin.type, binDirs);
  if (!program) return Promise.reject(new CniError(`CNI plugin "${plugin.type}" (${list.file}) is in none of ${binDirs.join(', ')}`));
  const conf: Record<string, unknown> = { ...plugin, cniVersion: list.cniVersion, name: list.name };
  delete conf.capabilities;
  if (prevResult) conf.prevResult = prevResult;
  const runtimeConfig = Object.fromEntries(Object.entries(at.runtimeConfig ?? {}).filter(([key]) => plugin.capabilities?.[key] === true));
  if (Object.keys(runtimeConfig).length > 0) conf.runtimeConfig = runtimeConfig;
  const env = {
    PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
    CNI_COMMAND: command,
    CNI_CONTAINERID: at.containerId,
    CNI_NETNS: at.netns,
    CNI_IFNAME: at.ifName,
    CNI_PATH: binDirs.join(':'),
    CNI_ARGS: ['IgnoreUnknown=1', ...Object.entries(at.args).map(([k, v]) => `${k}=${v}`)].join(';'),
  };
  return new Promise((resolve, reject) => {
    const child = execFile(
      program,
      [],
      { env, timeout: PLUGIN_TIMEOUT_MS, maxBuffer: 4 << 20, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (err) {
          reject(new CniError(`CNI plugin ${plugin.type} ${command}: ${pluginError(stdout) ?? (stderr.trim() || err.message)}`));
          return;
        }
        if (command === 'DEL' || stdout.trim() === '') {
          resolve(prevResult ?? {});
          return;
        }
        try {
          resolve(JSON.parse(stdout) as CniResult);
        } catch {
          reject(new CniError(`CNI plugin ${plugin.type} ${command}: its answer is not JSON: ${stdout.slice(0, 200)}`));
        }
      },
    );
    child.stdin?.end(JSON.stringify(conf));
  });
}

/** The message of a CNI error answer ({"code": N, "msg": ..., "details": ...}), if STDOUT is one. */
function pluginError(stdout: string): string | undefined {
  try {
    const e = JSON.parse(stdout) as { code?: number; msg?: string; details?: string };
    if (typeof e.msg !== 'string') return undefined;
    return `${e.msg}${e.details ? `: ${e.details}` : ''}${e.code !== undefined ? ` (code ${e.code})` : ''}`;
  } catch {
    return undefined;
  }
}

/** The addresses of RESULT on the interface named IFNAME (or any, if no interface is named), without their prefix length; IPv4 first. */
export function resultIps(result: CniResult, ifName: string): string[] {
  const ifIndex = (result.interfaces ?? []).findIndex((i) => i.name === ifName && i.sandbox);
  const ips = (result.ips ?? [])
    .filter((ip) => ip.interface === undefined || ifIndex < 0 || ip.interface === ifIndex)
    .map((ip) => ip.address.split('/')[0]);
  return [...ips.filter((ip) => !ip.includes(':')), ...ips.filter((ip) => ip.includes(':'))];
}
