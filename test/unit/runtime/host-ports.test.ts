// Which port mappings the embedded runtime relays itself.
import { describe, expect, it } from 'vitest';
import { relayedMappings } from '../../../src/runtime/host-ports.js';

describe('relayedMappings', () => {
  it('relays a hostPort that is not its containerPort; the same port, or none, needs nothing', () => {
    expect(
      relayedMappings([
        { protocol: 'TCP', containerPort: 80, hostPort: 8080, hostIp: '' },
        { protocol: 'UDP', containerPort: 53, hostPort: 5353, hostIp: '127.0.0.1' },
        { protocol: 'TCP', containerPort: 443, hostPort: 443, hostIp: '' },
        { protocol: 'TCP', containerPort: 9000, hostPort: 0, hostIp: '' },
      ]),
    ).toEqual([
      { protocol: 'TCP', containerPort: 80, hostPort: 8080, hostIp: '' },
      { protocol: 'UDP', containerPort: 53, hostPort: 5353, hostIp: '127.0.0.1' },
    ]);
  });

  it('refuses SCTP and ports out of range, naming the mapping', () => {
    expect(() => relayedMappings([{ protocol: 'SCTP', containerPort: 1, hostPort: 2, hostIp: '' }])).toThrow(
      'port mapping 2 -> 1: protocol SCTP is not supported',
    );
    expect(() => relayedMappings([{ protocol: 'TCP', containerPort: 70000, hostPort: 2, hostIp: '' }])).toThrow(
      'port mapping 2 -> 70000: a port is out of range',
    );
  });
});
