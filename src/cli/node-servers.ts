import { connectCluster, type ClusterClient, type ConnectedCluster } from '../engine/cluster/client.js';
import type { Clock } from '../util/clock.js';
import { nodeKubeConfig, signedServingPair, startServingRotation } from './node-credentials.js';
import type { KubeletConfiguration } from '../engine/config/kubelet-config.js';
import type { Kubelet } from '../engine/kubelet.js';
import { KubeletServer } from '../engine/server/kubelet-server.js';
import { isLoopback, NodeServer } from '../engine/server/node-server.js';
import { rootPaths } from '../util/paths.js';
import { UserError } from '../util/user-error.js';

/** The node's API servers that `knode run` starts: the read-only API, and the kubelet API when the node joined a cluster. */
export interface NodeServers {
  /** The read-only API's TCP address, when it listens on one (otherwise only its unix socket). */
  readonly api: string;
  stop(): Promise<void>;
}

/**
 * Starts the read-only API (its socket under the root dir, and `address:readOnlyPort`)
 * and, for a node of a cluster with a `port`, the kubelet API. A listener that
 * cannot start is a usage error naming the flag to change.
 */
export async function startNodeServers(
  kubelet: Kubelet,
  config: KubeletConfiguration,
  rootDir: string,
  cluster: ClusterClient | undefined,
  warn: (message: string) => void,
): Promise<NodeServers> {
  const socketPath = rootPaths(rootDir).nodeSocket;
  if (!isLoopback(config.address)) warn(`the read-only API listens on ${config.address}:${config.readOnlyPort}, beyond this machine`);
  const server = new NodeServer(kubelet, { socketPath, address: config.address, port: config.readOnlyPort, warn });
  try {
    await server.start();
  } catch (err) {
    throw new UserError('usage', (err as Error).message);
  }
  const kubeletServer = cluster && config.port > 0 ? await serveKubeletApi(kubelet, cluster, config) : undefined;
  return {
    api: server.tcpAddress ? `http://${server.tcpAddress.address}:${server.tcpAddress.port}` : socketPath,
    async stop() {
      await server.stop();
      await kubeletServer?.stop();
    },
  };
}

async function serveKubeletApi(kubelet: Kubelet, client: ClusterClient, config: KubeletConfiguration): Promise<{ stop(): Promise<void> }> {
  const server = new KubeletServer(kubelet, {
    address: kubelet.hostIP,
    port: config.port,
    certFile: config.tlsCertFile,
    keyFile: config.tlsPrivateKeyFile,
    certDir: config.certDirectory,
    clientCAFile: config.clientCAFile,
    nodeName: config.nodeName,
    client,
    clock: kubelet.clock,
    signedPair: config.serverTLSBootstrap ? () => signedServingPair(config, kubelet.clock) : undefined,
  });
  try {
    await server.start();
  } catch (err) {
    throw new UserError(
      'usage',
      `the kubelet API cannot listen on ${kubelet.hostIP}:${config.port}: ${(err as Error).message}`,
      'give another --port (0 turns it off), or --node-ip',
    );
  }
  const rotation = config.serverTLSBootstrap ? startServingRotation(kubelet, config, (pair) => server.useCertificate(pair)) : undefined;
  return {
    async stop() {
      rotation?.stop();
      await server.stop();
    },
  };
}

/**
 * The cluster of `--kubeconfig`, connected as this node (through the
 * certificate store when the client certificate rotates); a kubeconfig that
 * cannot be used is a usage error.
 */
export async function joinCluster(config: KubeletConfiguration, clock: Clock): Promise<{ cluster: ConnectedCluster; rotates: boolean }> {
  const path = config.kubeconfig!;
  try {
    const { kc, rotates } = await nodeKubeConfig(config, clock);
    return { cluster: await connectCluster(kc), rotates };
  } catch (err) {
    throw new UserError(
      'usage',
      `--kubeconfig ${path}: ${(err as Error).message}`,
      'give a kubeconfig whose user is this node (CN=system:node:<node-name>, O=system:nodes), or --bootstrap-kubeconfig to make one; see docs/cluster.md',
    );
  }
}
