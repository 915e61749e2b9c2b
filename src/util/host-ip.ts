import { networkInterfaces } from 'node:os';

/** The node's first non-internal IPv4 address, or loopback on a machine without one. */
export function hostIp(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}
