import { createServer, type Server, type Socket } from 'node:net';

/** One LOCAL:REMOTE pair as kubectl port-forward takes it (LOCAL 0: any free port). */
export interface PortPair {
  local: number;
  remote: number;
  /** The remote port as given (a number, or a container port's name). */
  spec: string;
}

/** Parses `8080:80`, `80` (the same port here) and `:80` (any free port here), as kubectl; `names` resolves named ports. */
export function parsePortPair(text: string, names: (name: string) => number | undefined): PortPair {
  const parts = text.split(':');
  if (parts.length > 2) throw new Error(`invalid port format '${text}'`);
  const [localText, remoteText] = parts.length === 1 ? [parts[0], parts[0]] : parts;
  const number = (t: string) => (/^\d+$/.test(t) && Number(t) <= 65535 ? Number(t) : undefined);
  const remote = number(remoteText) ?? names(remoteText);
  if (remote === undefined) throw new Error(`Error parsing remote port '${remoteText}': invalid port`);
  if (remote === 0) throw new Error('Remote port must be > 0');
  const local = localText === '' ? 0 : number(localText);
  if (local === undefined) throw new Error(`Error parsing local port '${localText}': invalid port`);
  return { local: parts.length === 1 && !/^\d+$/.test(localText) ? remote : local, remote, spec: remoteText };
}

/** The hosts to listen on for --address values: localhost is 127.0.0.1 and ::1, as kubectl. */
export function listenHosts(addresses: string[]): { host: string; required: boolean }[] {
  return addresses.flatMap((a): { host: string; required: boolean }[] =>
    a === 'localhost'
      ? [
          { host: '127.0.0.1', required: false },
          { host: '::1', required: false },
        ]
      : [{ host: a, required: true }],
  );
}

export interface Bound {
  servers: Server[];
  /** The local port as bound (the one chosen when 0 was asked). */
  port: number;
  /** "127.0.0.1:8080", "[::1]:8080": where it listens, for the Forwarding lines. */
  addresses: string[];
  /** Why listeners failed, for kubectl's "Unable to listen on port" line. */
  failures: string[];
}

/**
 * Listens on `port` at each host (the first bound fixes the port when 0 was
 * asked); `accept` gets each connection. Hosts that are not required
 * (localhost's two) may fail as long as one binds.
 */
export async function listenAll(hosts: { host: string; required: boolean }[], port: number, accept: (s: Socket) => void): Promise<Bound> {
  const bound: Bound = { servers: [], port, addresses: [], failures: [] };
  let missing = false;
  for (const { host, required } of hosts) {
    const server = createServer(accept);
    const family = host.includes(':') ? 'tcp6' : 'tcp4';
    const shown = host.includes(':') ? `[${host}]` : host;
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host, port: bound.port, exclusive: true }, () => resolve());
      });
      bound.port = (server.address() as { port: number }).port;
      bound.servers.push(server);
      bound.addresses.push(`${shown}:${bound.port}`);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      const why =
        e.code === 'EADDRINUSE'
          ? 'bind: address already in use'
          : e.code === 'EADDRNOTAVAIL'
            ? 'bind: cannot assign requested address'
            : e.message;
      missing ||= required;
      bound.failures.push(`unable to create listener: Error listen ${family} ${shown}:${bound.port}: ${why}`);
    }
  }
  if (missing || bound.servers.length === 0) {
    for (const s of bound.servers) s.close();
    bound.servers = [];
    bound.addresses = [];
  }
  return bound;
}
