// A pod's port mappings (PodSandboxConfig.port_mappings), as CNI's portmap
// plugin gives them: a hostPort gets a listener of the runtime's own, which
// relays each TCP connection, or each UDP client's datagrams, to the
// containerPort on the pod's IP. On the host's network a mapping whose two
// ports are the same needs nothing: the container listens there itself.
// SCTP is refused.
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { connect, createServer, type Server } from 'node:net';

/** One mapping the runtime relays (the record keeps them, so a restarted runtime opens them again). */
export interface HostPortMapping {
  protocol: 'TCP' | 'UDP';
  hostPort: number;
  containerPort: number;
  /** Where it listens: empty for every address. */
  hostIp: string;
}

/** A mapping the runtime cannot relay (INVALID_ARGUMENT). */
export class PortMappingError extends Error {}

/** How long a UDP client's relay socket lives without traffic. */
const UDP_IDLE_MS = 30_000;

/** The mappings that need a relay; throws PortMappingError for one that cannot have one. */
export function relayedMappings(
  mappings: readonly { protocol: string; containerPort: number; hostPort: number; hostIp: string }[],
  all = false,
): HostPortMapping[] {
  const relayed: HostPortMapping[] = [];
  for (const m of mappings) {
    if (m.hostPort <= 0 || (m.hostPort === m.containerPort && !all)) continue;
    if (m.protocol !== 'TCP' && m.protocol !== 'UDP')
      throw new PortMappingError(
        `port mapping ${m.hostPort} -> ${m.containerPort}: protocol ${m.protocol} is not supported by the embedded runtime (TCP and UDP are)`,
      );
    if (m.containerPort <= 0 || m.containerPort > 65535 || m.hostPort > 65535)
      throw new PortMappingError(`port mapping ${m.hostPort} -> ${m.containerPort}: a port is out of range`);
    relayed.push({ protocol: m.protocol, hostPort: m.hostPort, containerPort: m.containerPort, hostIp: m.hostIp });
  }
  return relayed;
}

interface Relay {
  close(): void;
}

export class HostPorts {
  private readonly relays = new Map<string, Relay[]>();

  /** Listens for each mapping of `sandboxId`, relaying to `podIp`; on a failure closes what it opened and rejects. */
  async open(sandboxId: string, mappings: readonly HostPortMapping[], podIp: string): Promise<void> {
    this.close(sandboxId);
    const opened: Relay[] = [];
    try {
      for (const m of mappings) opened.push(m.protocol === 'TCP' ? await tcpRelay(m, podIp) : await udpRelay(m, podIp));
    } catch (err) {
      for (const relay of opened) relay.close();
      throw err;
    }
    if (opened.length > 0) this.relays.set(sandboxId, opened);
  }

  close(sandboxId: string): void {
    for (const relay of this.relays.get(sandboxId) ?? []) relay.close();
    this.relays.delete(sandboxId);
  }

  closeAll(): void {
    for (const id of [...this.relays.keys()]) this.close(id);
  }
}

function listenError(m: HostPortMapping, err: Error): Error {
  return new Error(
    `cannot listen on host port ${m.hostIp || '0.0.0.0'}:${m.hostPort}/${m.protocol} for container port ${m.containerPort}: ${err.message}`,
  );
}

function tcpRelay(m: HostPortMapping, podIp: string): Promise<Relay> {
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect({ host: podIp, port: m.containerPort });
    sockets.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  return new Promise((resolve, reject) => {
    server.once('error', (err) => reject(listenError(m, err)));
    server.listen({ port: m.hostPort, host: m.hostIp || undefined }, () => {
      server.on('error', () => {});
      resolve({
        close: () => {
          server.close();
          for (const s of sockets) s.destroy();
        },
      });
    });
  });
}

function udpRelay(m: HostPortMapping, podIp: string): Promise<Relay> {
  const family = m.hostIp.includes(':') ? 'udp6' : 'udp4';
  const server: Socket = createSocket(family);
  // One socket towards the container per client, so that its answers find their way back.
  const clients = new Map<string, { socket: Socket; idle: NodeJS.Timeout }>();
  const forget = (key: string) => {
    const client = clients.get(key);
    if (!client) return;
    clearTimeout(client.idle);
    client.socket.close();
    clients.delete(key);
  };
  server.on('message', (msg: Buffer, from: RemoteInfo) => {
    const key = `${from.address}:${from.port}`;
    let client = clients.get(key);
    if (!client) {
      const socket = createSocket(podIp.includes(':') ? 'udp6' : 'udp4');
      socket.on('message', (answer) => server.send(answer, from.port, from.address));
      socket.on('error', () => forget(key));
      client = { socket, idle: setTimeout(() => forget(key), UDP_IDLE_MS).unref() };
      clients.set(key, client);
    }
    client.idle.refresh();
    client.socket.send(msg, m.containerPort, podIp);
  });
  return new Promise((resolve, reject) => {
    server.once('error', (err) => reject(listenError(m, err)));
    server.bind({ port: m.hostPort, address: m.hostIp || undefined }, () => {
      server.on('error', () => {});
      resolve({
        close: () => {
          for (const key of [...clients.keys()]) forget(key);
          server.close();
        },
      });
    });
  });
}
