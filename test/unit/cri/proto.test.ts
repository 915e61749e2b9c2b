import * as protoLoader from '@grpc/proto-loader';
import type protobuf from 'protobufjs/light.js';
import { describe, expect, it } from 'vitest';
import { loaderOptions, protoFile, serviceDefinition } from '../../../src/cri/proto.js';
import { prng } from '../../helpers/prng.js';

// knode builds its gRPC services from descriptors parsed at build time
// (src/cri/proto.ts); @grpc/proto-loader, which parses the .proto files at
// run time, is the oracle: the same paths, and byte for byte the same
// messages both ways, for every method's request and response.

type Definitions = Record<string, Record<string, protoLoader.MethodDefinition<object, object>>>;

const SERVICES = [
  ['runtime/v1/api.proto', 'runtime.v1.RuntimeService'],
  ['runtime/v1/api.proto', 'runtime.v1.ImageService'],
  ['knode/v1/images.proto', 'knode.v1.Images'],
  ['grpc/health/v1/health.proto', 'grpc.health.v1.Health'],
] as const;

const TEXT = ['', 'a', 'Z0-./', 'é字😀', 'io.kubernetes.pod.name'];
const INT64 = [0, 1, -1, 1_795_000_000_123_456_000, 2 ** 40 + 3, -1_000_000_007];
const INT32 = [0, 1, -1, 2 ** 31 - 1, 65_535];

/** A value for one scalar or enum or message field, from the type's own reflection. */
function value(field: protobuf.Field, rand: () => number, depth: number): unknown {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const resolved = field.resolvedType;
  if (resolved && 'values' in resolved) return pick(Object.keys((resolved as protobuf.Enum).values));
  if (resolved) return message(resolved as protobuf.Type, rand, depth + 1);
  switch (field.type) {
    case 'string':
      return pick(TEXT);
    case 'bool':
      return rand() < 0.5;
    case 'bytes':
      return Buffer.from(pick(TEXT));
    case 'int64':
    case 'sint64':
    case 'sfixed64':
      return pick(INT64);
    case 'uint64':
    case 'fixed64':
      return Math.abs(pick(INT64));
    case 'uint32':
    case 'fixed32':
      return Math.abs(pick(INT32));
    case 'double':
    case 'float':
      return pick([0, 0.5, -2.25]);
    default:
      return pick(INT32);
  }
}

function message(type: protobuf.Type, rand: () => number, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (depth > 4) return out;
  for (const field of type.fieldsArray) {
    field.resolve();
    if (rand() < 0.3) continue;
    if (field.map) {
      out[field.name] = Object.fromEntries([...Array(Math.floor(rand() * 3)).keys()].map((i) => [`k${i}`, value(field, rand, depth)]));
    } else if (field.repeated) {
      out[field.name] = [...Array(Math.floor(rand() * 3)).keys()].map(() => value(field, rand, depth));
    } else out[field.name] = value(field, rand, depth);
  }
  return out;
}

describe('the services built from the build-time descriptors', () => {
  it.each(SERVICES)('%s %s: the methods proto-loader gives, with the same paths and streams', (file, name) => {
    const oracle = (protoLoader.loadSync(file, loaderOptions) as Definitions)[name];
    const ours = serviceDefinition(protoFile(file), name);
    expect(Object.keys(ours).sort()).toEqual(Object.keys(oracle).sort());
    for (const [method, def] of Object.entries(oracle)) {
      const { path, requestStream, responseStream, originalName } = ours[method];
      expect({ path, requestStream, responseStream, originalName }, method).toEqual({
        path: def.path,
        requestStream: def.requestStream,
        responseStream: def.responseStream,
        originalName: def.originalName,
      });
    }
  });

  it.each(SERVICES)('%s %s: every request and response encodes and decodes as proto-loader does', (file, name) => {
    const oracle = (protoLoader.loadSync(file, loaderOptions) as Definitions)[name];
    const ours = serviceDefinition(protoFile(file), name);
    const service = protoFile(file).lookupService(name);
    const rand = prng(41);
    let compared = 0;
    for (const method of service.methodsArray) {
      method.resolve();
      for (const [side, type] of [
        ['request', method.resolvedRequestType!],
        ['response', method.resolvedResponseType!],
      ] as const) {
        const serialize = side === 'request' ? 'requestSerialize' : 'responseSerialize';
        const deserialize = side === 'request' ? 'requestDeserialize' : 'responseDeserialize';
        for (let i = 0; i < 20; i++) {
          const sample = message(type, rand);
          const bytes = oracle[method.name][serialize](sample);
          expect(Buffer.from(ours[method.name][serialize](sample)), `${method.name} ${side} #${i}`).toEqual(Buffer.from(bytes));
          expect(ours[method.name][deserialize](bytes), `${method.name} ${side} #${i}`).toEqual(oracle[method.name][deserialize](bytes));
          compared++;
        }
      }
    }
    expect(compared).toBe(service.methodsArray.length * 40);
  });
});
