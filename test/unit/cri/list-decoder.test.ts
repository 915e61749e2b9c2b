import * as protoLoader from '@grpc/proto-loader';
import { describe, expect, it } from 'vitest';
import { decodeListContainersResponse, decodeListPodSandboxResponse } from '../../../src/cri/list-decoder.js';
import { loaderOptions } from '../../../src/cri/proto.js';
import { prng } from '../../helpers/prng.js';

const definition = protoLoader.loadSync('runtime/v1/api.proto', loaderOptions) as Record<
  string,
  Record<string, protoLoader.MethodDefinition<object, object>>
>;
const service = definition['runtime.v1.RuntimeService'];
const listContainers = service.ListContainers;
const listSandboxes = service.ListPodSandbox;

const ALPHABET = ['a', 'Z', '0', '-', '.', '/', 'é', 'ß', '字', '😀', ' ', '"', '\n'];

function text(rand: () => number, max: number): string {
  let s = '';
  const n = Math.floor(rand() * max);
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(rand() * ALPHABET.length)];
  return s;
}

function map(rand: () => number, keys: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of keys) if (rand() < 0.7) out[k] = text(rand, 20);
  if (rand() < 0.3) out[text(rand, 12)] = text(rand, 40);
  return out;
}

const LABEL_KEYS = [
  'io.kubernetes.pod.name',
  'io.kubernetes.pod.namespace',
  'io.kubernetes.pod.uid',
  'io.kubernetes.container.name',
  'knode.io/node-name',
];
const CONTAINER_STATES = ['CONTAINER_CREATED', 'CONTAINER_RUNNING', 'CONTAINER_EXITED', 'CONTAINER_UNKNOWN'];
const CREATED = [0, 1, 1_795_000_000_123_456_000, -1, -1_000_000_007, 2 ** 40 + 3];

function container(rand: () => number): object {
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)];
  return {
    ...(rand() < 0.9 && { id: text(rand, 70) }),
    ...(rand() < 0.9 && { podSandboxId: text(rand, 70) }),
    ...(rand() < 0.8 && { metadata: { name: text(rand, 10), attempt: Math.floor(rand() * 2 ** 32) } }),
    ...(rand() < 0.8 && {
      image: { image: text(rand, 30), annotations: map(rand, ['a.b/c']), userSpecifiedImage: text(rand, 5), runtimeHandler: text(rand, 5) },
    }),
    ...(rand() < 0.8 && { imageRef: text(rand, 70) }),
    ...(rand() < 0.9 && { state: pick(CONTAINER_STATES) }),
    ...(rand() < 0.9 && { createdAt: pick(CREATED) }),
    labels: map(rand, LABEL_KEYS),
    annotations: map(rand, ['io.kubernetes.container.hash', 'io.kubernetes.container.restartCount']),
    ...(rand() < 0.5 && { imageId: text(rand, 70) }),
  };
}

function sandbox(rand: () => number): object {
  return {
    ...(rand() < 0.9 && { id: text(rand, 70) }),
    ...(rand() < 0.8 && {
      metadata: { name: text(rand, 20), uid: text(rand, 36), namespace: text(rand, 10), attempt: Math.floor(rand() * 5) },
    }),
    ...(rand() < 0.9 && { state: rand() < 0.5 ? 'SANDBOX_READY' : 'SANDBOX_NOTREADY' }),
    ...(rand() < 0.9 && { createdAt: CREATED[Math.floor(rand() * CREATED.length)] }),
    labels: map(rand, LABEL_KEYS),
    annotations: map(rand, ['kubernetes.io/config.source']),
    ...(rand() < 0.3 && { runtimeHandler: text(rand, 8) }),
  };
}

/** Bytes of fields a newer runtime might send: varint, fixed64, length-delimited and fixed32, numbered past what knode knows. */
const UNKNOWN = Buffer.from([
  0xa8,
  0x06,
  0x96,
  0x01, // field 101, varint 150
  0xb1,
  0x06,
  1,
  2,
  3,
  4,
  5,
  6,
  7,
  8, // field 102, fixed64
  0xba,
  0x06,
  0x03,
  0x61,
  0x62,
  0x63, // field 103, "abc"
  0xc5,
  0x06,
  9,
  9,
  9,
  9, // field 104, fixed32
]);

/** A list answer whose every item carries UNKNOWN too, framed by hand (field 1, length-delimited). */
function withUnknownFields(items: Buffer[]): Buffer {
  const parts: Buffer[] = [];
  for (const item of items) {
    const body = Buffer.concat([item, UNKNOWN]);
    parts.push(Buffer.from([0x0a]), varint(body.length), body);
  }
  parts.push(UNKNOWN);
  return Buffer.concat(parts);
}

/** The one item of a one-item list answer: past its tag and length. */
function onlyItem(list: Buffer): Buffer {
  let pos = 1;
  while (list[pos] & 0x80) pos++;
  return list.subarray(pos + 1);
}

function varint(n: number): Buffer {
  const bytes: number[] = [];
  while (n >= 0x80) {
    bytes.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  bytes.push(n);
  return Buffer.from(bytes);
}

describe('the list answers decoder', () => {
  it.each([
    [
      'ListContainers',
      listContainers,
      (rand: () => number) => ({ containers: Array.from({ length: Math.floor(rand() * 5) }, () => container(rand)) }),
      decodeListContainersResponse,
      7,
    ],
    [
      'ListPodSandbox',
      listSandboxes,
      (rand: () => number) => ({ items: Array.from({ length: Math.floor(rand() * 5) }, () => sandbox(rand)) }),
      decodeListPodSandboxResponse,
      11,
    ],
  ] as const)('gives what proto-loader gives for %s, over a thousand seeded answers', (_name, method, answer, decode, seed) => {
    const rand = prng(seed);
    for (let i = 0; i < 1000; i++) {
      const bytes = method.responseSerialize(answer(rand));
      expect(decode(bytes)).toStrictEqual(method.responseDeserialize(bytes));
    }
  });

  it('skips fields it does not know, as proto-loader does', () => {
    const rand = prng(3);
    const containers = Array.from({ length: 20 }, () => container(rand));
    const bytes = withUnknownFields(containers.map((c) => onlyItem(listContainers.responseSerialize({ containers: [c] }))));
    const decoded = decodeListContainersResponse(bytes);
    expect(decoded.containers).toHaveLength(20);
    expect(decoded).toStrictEqual(listContainers.responseDeserialize(bytes));
  });

  it('names an enum value it does not know by its number, as proto-loader does', () => {
    // Container { state = 6: 7 }
    const bytes = Buffer.from([0x0a, 0x02, 0x30, 0x07]);
    expect(decodeListContainersResponse(bytes).containers[0].state).toBe(7);
    expect(decodeListContainersResponse(bytes)).toStrictEqual(listContainers.responseDeserialize(bytes));
    // state = -2, and metadata { attempt = 2^32 + 5 }: ten-byte and five-byte varints, cut to 32 bits.
    const wide = Buffer.from([
      0x0a, 0x13, 0x30, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x1a, 0x06, 0x10, 0x85, 0x80, 0x80, 0x80, 0x10,
    ]);
    expect(decodeListContainersResponse(wide)).toStrictEqual(listContainers.responseDeserialize(wide));
    expect(decodeListContainersResponse(wide).containers[0].state).toBe(-2);
  });

  it('refuses a truncated answer rather than return part of it', () => {
    const rand = prng(5);
    const bytes = listContainers.responseSerialize({ containers: [container(rand), container(rand)] });
    for (const cut of [1, 7, bytes.length >> 1, bytes.length - 1]) {
      expect(() => decodeListContainersResponse(bytes.subarray(0, cut))).toThrow(RangeError);
    }
  });
});
