// What the validation differential's mutations are made of (mutations-pod.ts,
// mutations-container.ts): DELETE, the shape of a mutation, and value lists
// several fields share.
export const DELETE = Symbol('delete');
export type Value = unknown;

export interface FieldMutation {
  at: string;
  values: readonly Value[];
}

export const INT32_OUT = [2147483648, -2147483649, 1e12];
export const NAMES = ['ok-name', '', 'UPPER', 'a'.repeat(64), 'a.b', '-lead', 'trail-', 'a_b', 'x'.repeat(253), 'x'.repeat(254)];
export const PORTS = [1, 80, 65535, 0, -1, 65536, 99999, '8080', 'http', 'HTTP', 'a'.repeat(16), 'web--1', '123', 1.5];
export const PORT_NAMES = ['http', 'a'.repeat(15), 'a'.repeat(16), 'HTTP', '80', 'a--b', '-a', 'a-', 'web_1', ''];
export const QUANTITIES = ['100m', '1', '0', '1Gi', '1.5', '-1', 'abc', '1e3', '500Mi', 12, 0.5, '1Ki', '01'];
export const SECONDS = [0, 1, 30, -1, 2147483647, ...INT32_OUT, '10', 1.5];
export const C = 'spec.containers.0';
export const I = 'spec.initContainers.0';
