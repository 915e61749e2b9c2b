// A small cluster DNS server for tests, in CoreDNS's kubernetes plugin's
// shape: `<service>.<namespace>.svc.<domain>` answers the Service's
// clusterIP, read from the apiserver at each query; other names in the
// domain are NXDOMAIN, and nothing is forwarded.
import { createSocket, type Socket } from 'node:dgram';
import * as packet from 'dns-packet';

export interface ClusterDns {
  /** Names asked, in order (`web.default.svc.cluster.local A`). */
  readonly queries: string[];
  stop(): Promise<void>;
}

/** Serves on `address`:53 (UDP); `clusterIP` looks a Service up (undefined: no such Service). */
export async function startClusterDns(
  address: string,
  domain: string,
  clusterIP: (namespace: string, name: string) => Promise<string | undefined>,
): Promise<ClusterDns> {
  const socket: Socket = createSocket('udp4');
  const queries: string[] = [];
  socket.on('message', (message, remote) => {
    void answer(message)
      .then((reply) => socket.send(reply, remote.port, remote.address))
      .catch(() => {});
  });
  async function answer(message: Buffer): Promise<Buffer> {
    const query = packet.decode(message);
    const question = query.questions?.[0];
    const reply = (rcode: 'NOERROR' | 'NXDOMAIN', answers: packet.Answer[] = []) =>
      packet.encode({
        id: query.id,
        type: 'response',
        flags: packet.AUTHORITATIVE_ANSWER | ((query.flags ?? 0) & packet.RECURSION_DESIRED),
        rcode,
        questions: query.questions,
        answers,
      } as packet.Packet);
    if (!question) return reply('NXDOMAIN');
    queries.push(`${question.name} ${question.type}`);
    const match = new RegExp(`^([^.]+)\\.([^.]+)\\.svc\\.${domain.replace(/\./g, '\\.')}$`).exec(question.name.toLowerCase());
    const ip = match ? await clusterIP(match[2]!, match[1]!) : undefined;
    if (!ip) return reply('NXDOMAIN');
    if (question.type !== 'A') return reply('NOERROR');
    return reply('NOERROR', [{ name: question.name, type: 'A', class: 'IN', ttl: 5, data: ip }]);
  }
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(53, address, () => resolve());
  });
  return { queries, stop: () => new Promise((resolve) => socket.close(() => resolve())) };
}
