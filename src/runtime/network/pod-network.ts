// A network of its own for each pod not on the host's network, as containerd
// gives one: a network namespace kept by a bind mount (so it outlives its
// processes and a restart of the runtime), its loopback brought up, and the
// CNI network configured in the runtime's CNI directory attached to it as
// eth0. The pod's holder joins it, and every container and exec with it.
import { execFile } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { whichSystem } from '../executables.js';
import {
  addNetwork,
  CniError,
  delNetwork,
  loadConfList,
  resultIps,
  type CniAttachment,
  type CniResult,
  type NetworkConfList,
} from './cni.js';

/** A pod's attachment to the network, kept in its sandbox's record so that a restarted runtime can take it down. */
export interface PodNetworkRecord {
  /** The bind mount that keeps the pod's network namespace. */
  netns: string;
  /** The network as it was at ADD, and the runtime's part given to its plugins (DEL runs them so, whatever the file says now). */
  list: NetworkConfList;
  runtimeConfig?: Record<string, unknown>;
  /** What ADD answered (DEL is given it). */
  result?: CniResult;
  /** Set once DEL has run and the namespace is gone. */
  removed?: boolean;
}

export interface PodNetworkOptions {
  /** Where the CNI network configuration is (the first file by name); none: pods share the host's network. */
  confDir?: string;
  /** Where the plugins' programs are, searched in order. */
  binDirs: readonly string[];
  /** Where the pods' network namespaces are bind-mounted. */
  netnsDir: string;
}

/** The pod a network is set up for, as the plugins are told. */
export interface PodIdentity {
  sandboxId: string;
  name: string;
  namespace: string;
  uid: string;
}

const IF_NAME = 'eth0';
/** statfs's f_type of a namespace file (a bind mount of one). */
const NSFS_MAGIC = 0x6e736673;
const LOOPBACK: NetworkConfList = {
  cniVersion: '1.0.0',
  name: 'cni-loopback',
  plugins: [{ type: 'loopback' }],
  file: 'the runtime (loopback)',
};

export class PodNetwork {
  private readonly unshare = whichSystem('unshare');

  constructor(readonly options: PodNetworkOptions) {}

  /**
   * The network pods get: undefined when the CNI directory has no
   * configuration (pods share the host's network); throws for one that is
   * broken, or that this runtime cannot use.
   */
  configured(): NetworkConfList | undefined {
    const list = this.options.confDir === undefined ? undefined : loadConfList(this.options.confDir);
    if (!list) return undefined;
    if (process.getuid?.() !== 0) throw new CniError(`${list.file}: a pod network needs the runtime to run as root`);
    if (!this.unshare) throw new CniError(`${list.file}: a pod network needs util-linux's unshare, which is not on PATH`);
    return list;
  }

  /** What Status says of the network: ready, with the network's name (NETWORK, when pods get one) or why not. */
  condition(): { ready: boolean; reason: string; message: string; network?: string } {
    try {
      const list = this.configured();
      if (!list)
        return {
          ready: true,
          reason: '',
          message: `pods share the host network${this.options.confDir ? ` (no CNI configuration in ${this.options.confDir})` : ''}`,
        };
      return {
        ready: true,
        reason: '',
        message: `pods get their own network: CNI network "${list.name}" from ${list.file}`,
        network: list.name,
      };
    } catch (err) {
      return { ready: false, reason: 'NetworkPluginNotReady', message: (err as Error).message };
    }
  }

  /**
   * Makes the pod's network namespace and attaches LIST to it; returns the
   * record and the pod's IPs. A failure undoes what was done and throws.
   */
  async setUp(list: NetworkConfList, pod: PodIdentity, portMappings: unknown[]): Promise<{ record: PodNetworkRecord; ips: string[] }> {
    mkdirSync(this.options.netnsDir, { recursive: true, mode: 0o700 });
    const netns = join(this.options.netnsDir, pod.sandboxId);
    await this.makeNamespace(netns);
    const record: PodNetworkRecord = { netns, list, runtimeConfig: portMappings.length > 0 ? { portMappings } : undefined };
    try {
      // Side by side: the loopback plugin touches lo alone (each plugin is a program of its own, slow to run).
      [, record.result] = await Promise.all([
        addNetwork(LOOPBACK, { ...this.attachment(netns, pod), ifName: 'lo' }, this.options.binDirs),
        addNetwork(list, { ...this.attachment(netns, pod), runtimeConfig: record.runtimeConfig }, this.options.binDirs),
      ]);
      const ips = resultIps(record.result, IF_NAME);
      if (ips.length === 0) throw new CniError(`CNI network "${list.name}" (${list.file}) gave the pod no IP address`);
      return { record, ips };
    } catch (err) {
      await this.tearDown(record, pod, { force: true }).catch(() => {});
      throw err;
    }
  }

  /**
   * Detaches the pod from its network (DEL) and removes its namespace; once
   * done, does nothing. A DEL that fails leaves both for a retry, unless FORCE.
   */
  async tearDown(record: PodNetworkRecord, pod: PodIdentity, options: { force: boolean }): Promise<void> {
    if (record.removed) return;
    // A namespace lost (a reboot) leaves its file empty: gone, the plugins' DEL takes it for a namespace gone and cleans up the rest.
    if (!this.isKept(record)) rmSync(record.netns, { force: true });
    try {
      // With the network the pod was attached to, as libcni keeps it: the file may have changed or gone since.
      await delNetwork(
        record.list,
        { ...this.attachment(record.netns, pod), runtimeConfig: record.runtimeConfig },
        this.options.binDirs,
        record.result,
      );
    } catch (err) {
      if (!options.force) throw err;
    }
    await run('umount', [record.netns]).catch(() => {});
    rmSync(record.netns, { force: true });
    record.removed = true;
  }

  /** Whether the pod's namespace is still kept at its path (a reboot, or an unmount, loses it: the file stays, empty). */
  isKept(record: PodNetworkRecord): boolean {
    try {
      return statfsSync(record.netns).type === NSFS_MAGIC;
    } catch {
      return false;
    }
  }

  private attachment(netns: string, pod: PodIdentity): CniAttachment {
    return {
      containerId: pod.sandboxId,
      netns,
      ifName: IF_NAME,
      args: { K8S_POD_NAMESPACE: pod.namespace, K8S_POD_NAME: pod.name, K8S_POD_INFRA_CONTAINER_ID: pod.sandboxId, K8S_POD_UID: pod.uid },
    };
  }

  /** A new network namespace, kept by a bind mount at PATH (util-linux's unshare makes both). */
  private async makeNamespace(path: string): Promise<void> {
    closeSync(openSync(path, 'w'));
    try {
      await run(this.unshare!, [`--net=${path}`, 'true']);
    } catch (err) {
      rmSync(path, { force: true });
      throw new CniError(`cannot make the pod's network namespace: ${(err as Error).message}`);
    }
  }
}

function run(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 10_000, encoding: 'utf8' }, (err, _stdout, stderr) =>
      err ? reject(new Error(stderr.trim() || err.message)) : resolve(),
    );
  });
}
