import type protobuf from 'protobufjs/light.js';
import { describe, expect, it } from 'vitest';
import { plain } from '../../../src/cri/gen/plain.js';
import { conversionOptions, protoFile, type ProtoFile } from '../../../src/cri/proto.js';
import { prng } from '../../helpers/prng.js';

// The one-pass coders (src/cri/gen/plain.ts) held to protobufjs's reflection,
// which @grpc/proto-loader runs: the same bytes from the same object
// (fromObject then encode), the same object from the same bytes (decode then
// toObject with knode's conversion options), for every message, over seeded
// random objects of every kind of field.

const FILES: ProtoFile[] = ['runtime/v1/api.proto', 'knode/v1/images.proto', 'grpc/health/v1/health.proto'];
type Coder = { encode(value: object): Buffer; decode(bytes: Uint8Array): object };
const coders = plain as Record<string, Coder>;

function typesOf(ns: protobuf.NamespaceBase, out = new Map<string, protobuf.Type>()): Map<string, protobuf.Type> {
  for (const nested of ns.nestedArray) {
    if ('fieldsArray' in nested) out.set(nested.fullName.slice(1), nested as protobuf.Type);
    if ('nestedArray' in nested) typesOf(nested as protobuf.NamespaceBase, out);
  }
  return out;
}

const types = new Map<string, protobuf.Type>();
for (const file of FILES) for (const [name, type] of typesOf(protoFile(file))) types.set(name, type);

const ALPHABET = ['a', 'Z', '0', '-', '.', '/', 'é', 'ß', '字', '😀', ' ', '"', '\n'];
const INT32 = [0, 1, -1, 127, 128, 300, 2 ** 31 - 1, -(2 ** 31)];
const UINT32 = [0, 1, 127, 128, 16384, 2 ** 32 - 1];
const INT64: unknown[] = [0, 1, -1, 2 ** 40 + 3, -1_000_000_007, 1_795_000_000_123_456_000, 2 ** 53 - 1, '123456789012', '-5'];
const UINT64: unknown[] = [0, 1, 2 ** 32, 2 ** 53 - 1, '18446744073709551615', '42'];

type Rand = () => number;
const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];

function text(rand: Rand): string {
  // Mostly short; now and then past the 127 bytes a one-byte length holds.
  const n = rand() < 0.1 ? 40 + Math.floor(rand() * 200) : Math.floor(rand() * 20);
  let s = '';
  for (let i = 0; i < n; i++) s += pick(rand, ALPHABET);
  return s;
}

function scalar(rand: Rand, field: protobuf.Field, depth: number): unknown {
  const resolved = field.resolvedType;
  if (resolved && 'values' in resolved) {
    const names = Object.keys((resolved as protobuf.Enum).values);
    const r = rand();
    return r < 0.7 ? pick(rand, names) : r < 0.85 ? Math.floor(rand() * names.length) : r < 0.95 ? 99 : 'NOT_A_NAME';
  }
  if (resolved) return message(rand, resolved as protobuf.Type, depth + 1);
  switch (field.type) {
    case 'string':
      return text(rand);
    case 'bool':
      return rand() < 0.5;
    case 'int32':
      return pick(rand, INT32);
    case 'uint32':
      return pick(rand, UINT32);
    case 'int64':
      return pick(rand, INT64);
    case 'uint64':
      return pick(rand, UINT64);
    case 'bytes':
      return rand() < 0.2 ? Buffer.from(text(rand)).toString('base64') : Buffer.from(text(rand));
  }
  throw new Error(`no random ${field.type}`);
}

/** A random plain object of TYPE: fields left out, null, or set; lists and maps of 0-3. */
function message(rand: Rand, type: protobuf.Type, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const r = rand();
    if (r < 0.3 || (depth > 3 && field.resolvedType && !('values' in field.resolvedType))) continue;
    if (r < 0.35) out[field.name] = null;
    else if (field.map)
      out[field.name] = Object.fromEntries(Array.from({ length: Math.floor(rand() * 4) }, () => [text(rand), text(rand)]));
    else if (field.repeated) out[field.name] = Array.from({ length: Math.floor(rand() * 4) }, () => scalar(rand, field, depth));
    else out[field.name] = scalar(rand, field, depth);
  }
  return out;
}

const oracleEncode = (type: protobuf.Type, value: object) => Buffer.from(type.encode(type.fromObject(value)).finish());
const oracleDecode = (type: protobuf.Type, bytes: Uint8Array) => type.toObject(type.decode(bytes), conversionOptions);

describe('the one-pass CRI coders', () => {
  it('have a coder for every message of the protos', () => {
    expect(Object.keys(coders).sort()).toEqual([...types.keys()].sort());
  });

  it.each([...types.keys()])('%s: the same bytes and the same objects as protobufjs, over 200 seeded objects', (name) => {
    const type = types.get(name)!;
    const rand = prng([...name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7));
    for (let i = 0; i < 200; i++) {
      const value = message(rand, type);
      const bytes = oracleEncode(type, value);
      expect(coders[name].encode(value)).toEqual(bytes);
      const decoded = coders[name].decode(bytes);
      expect(decoded).toStrictEqual(oracleDecode(type, bytes));
      // toObject's key order too: JSON of a CRI object reads the same.
      expect(JSON.stringify(decoded)).toBe(JSON.stringify(oracleDecode(type, bytes)));
    }
  });

  it('skips fields it does not know, of every wire type, as protobufjs does', () => {
    const type = types.get('runtime.v1.ListContainersResponse')!;
    // field 101 varint 150, field 102 fixed64, field 103 "abc", field 104 fixed32, field 105 an empty group
    const unknown = Buffer.from([
      0xa8, 6, 0x96, 1, 0xb1, 6, 1, 2, 3, 4, 5, 6, 7, 8, 0xba, 6, 3, 0x61, 0x62, 0x63, 0xc5, 6, 9, 9, 9, 9, 0xcb, 6, 0xcc, 6,
    ]);
    const rand = prng(3);
    const item = oracleEncode(types.get('runtime.v1.Container')!, message(rand, types.get('runtime.v1.Container')!));
    const body = Buffer.concat([item, unknown]);
    const bytes = Buffer.concat([Buffer.from([0x0a]), varint(body.length), body, unknown]);
    expect(coders['runtime.v1.ListContainersResponse'].decode(bytes)).toStrictEqual(oracleDecode(type, bytes));
  });

  it('reads repeated numbers packed or one a field, as a reader must', () => {
    const type = types.get('runtime.v1.LinuxSandboxSecurityContext')!;
    // supplemental_groups (field 5, int64): packed [1, 300], then unpacked 7
    const bytes = Buffer.from([0x2a, 3, 1, 0xac, 2, 0x28, 7]);
    const decoded = coders['runtime.v1.LinuxSandboxSecurityContext'].decode(bytes) as { supplementalGroups: number[] };
    expect(decoded).toStrictEqual(oracleDecode(type, bytes));
    expect(decoded.supplementalGroups).toEqual([1, 300, 7]);
  });

  it('names an enum value it does not know by its number, and cuts wide varints to 32 bits, as protobufjs does', () => {
    const type = types.get('runtime.v1.ListContainersResponse')!;
    // Container { state = 6: 7 }
    const bytes = Buffer.from([0x0a, 0x02, 0x30, 0x07]);
    expect(coders[type.fullName.slice(1)].decode(bytes)).toStrictEqual(oracleDecode(type, bytes));
    // state = -2, and metadata { attempt = 2^32 + 5 }: ten-byte and five-byte varints.
    const wide = Buffer.from([
      0x0a, 0x13, 0x30, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x1a, 0x06, 0x10, 0x85, 0x80, 0x80, 0x80, 0x10,
    ]);
    const decoded = coders['runtime.v1.ListContainersResponse'].decode(wide) as { containers: { state: unknown }[] };
    expect(decoded).toStrictEqual(oracleDecode(type, wide));
    expect(decoded.containers[0].state).toBe(-2);
  });

  it('refuses a truncated message rather than return part of it', () => {
    const type = types.get('runtime.v1.ListContainersResponse')!;
    const rand = prng(5);
    const bytes = oracleEncode(type, { containers: [message(rand, types.get('runtime.v1.Container')!), { id: 'x'.repeat(200) }] });
    for (const cut of [1, 7, bytes.length >> 1, bytes.length - 1]) {
      expect(() => coders['runtime.v1.ListContainersResponse'].decode(bytes.subarray(0, cut))).toThrow(RangeError);
    }
  });

  it('refuses what fromObject refuses, in its words', () => {
    const encode = coders['runtime.v1.CreateContainerRequest'].encode;
    expect(() => encode({ config: 'x' })).toThrow('.runtime.v1.CreateContainerRequest.config: object expected');
    expect(() => encode({ config: { mounts: {} } })).toThrow('.runtime.v1.ContainerConfig.mounts: array expected');
    expect(() => encode({ config: { mounts: [null] } })).toThrow('.runtime.v1.ContainerConfig.mounts: object expected');
    expect(() => encode({ config: { labels: 'a' } })).toThrow('.runtime.v1.ContainerConfig.labels: object expected');
  });

  it('keeps a map key named __proto__ as a key', () => {
    const bytes = coders['runtime.v1.PodSandboxConfig'].encode(JSON.parse('{"labels": {"__proto__": "x", "a": "b"}}') as object);
    const decoded = coders['runtime.v1.PodSandboxConfig'].decode(bytes) as { labels: Record<string, string> };
    expect(Object.keys(decoded.labels)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(decoded.labels)).toBe(Object.prototype);
  });
});

function varint(n: number): Buffer {
  const bytes: number[] = [];
  while (n >= 0x80) {
    bytes.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  bytes.push(n);
  return Buffer.from(bytes);
}
