import * as protoLoader from '@grpc/proto-loader';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type protobuf from 'protobufjs/light.js';
import { describe, expect, it } from 'vitest';
import { conversionOptions, loaderOptions, messageCoder, protoFile, serviceDefinition } from '../../../src/cri/proto.js';
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

describe('the build-time coders on their own', () => {
  it.each(SERVICES)('%s %s: named by file, the same service as named by its root', (file, name) => {
    const byRoot = serviceDefinition(protoFile(file), name);
    const byFile = serviceDefinition(file, name);
    expect(Object.keys(byFile)).toEqual(Object.keys(byRoot));
    const rand = prng(7);
    for (const method of protoFile(file).lookupService(name).methodsArray) {
      const sample = message(method.resolvedRequestType!, rand);
      expect(Buffer.from(byFile[method.name].requestSerialize(sample))).toEqual(Buffer.from(byRoot[method.name].requestSerialize(sample)));
    }
  });

  it('a root without the service, or an unknown service, is refused by name', () => {
    expect(() => serviceDefinition(protoFile('knode/v1/images.proto'), 'grpc.health.v1.Health')).toThrow(/grpc\.health\.v1\.Health/);
    expect(() => serviceDefinition('runtime/v1/api.proto', 'runtime.v1.NoSuchService')).toThrow(/no service runtime\.v1\.NoSuchService/);
    expect(() => serviceDefinition('knode/v1/images.proto', 'runtime.v1.RuntimeService')).toThrow(
      /runtime\.v1\.RuntimeService is declared in runtime\/v1\/api\.proto, not knode\/v1\/images\.proto/,
    );
    expect(() => messageCoder('runtime.v1.NoSuchMessage')).toThrow(/no message runtime\.v1\.NoSuchMessage/);
  });

  it.each(['Container', 'PodSandbox'])('messageCoder runtime.v1.%s: the bytes and objects of the reflected type', (name) => {
    const type = protoFile('runtime/v1/api.proto').lookupType(`runtime.v1.${name}`);
    const coder = messageCoder(`runtime.v1.${name}`);
    const rand = prng(11);
    for (let i = 0; i < 30; i++) {
      const sample = message(type, rand);
      const bytes = type.encode(type.fromObject(sample)).finish();
      expect(Buffer.from(coder.encode(coder.fromObject(sample)).finish()), `#${i}`).toEqual(Buffer.from(bytes));
      expect(coder.toObject(coder.decode(bytes), conversionOptions)).toEqual(type.toObject(type.decode(bytes), conversionOptions));
    }
  });

  it('a CRI round trip generates no code at run time (node --disallow-code-generation-from-strings) nor loads reflection', () => {
    const proto = fileURLToPath(new URL('../../../src/cri/proto.ts', import.meta.url));
    const services = fileURLToPath(new URL('../../../src/cri/grpc-services.ts', import.meta.url));
    const script = [
      `const { criClientMethods, serviceDefinition, messageCoder } = await import(${JSON.stringify(proto)});`,
      `const { loadCri, loadKnode } = await import(${JSON.stringify(services)});`,
      `loadCri(); loadKnode(); criClientMethods();`,
      `const run = serviceDefinition('runtime/v1/api.proto', 'runtime.v1.RuntimeService').RunPodSandbox;`,
      `const sent = { config: { metadata: { name: 'a', namespace: 'b', uid: 'c', attempt: 1 }, labels: { x: 'y' } } };`,
      `const back = run.requestDeserialize(run.requestSerialize(sent));`,
      `const health = serviceDefinition('grpc/health/v1/health.proto', 'grpc.health.v1.Health').Check;`,
      `const status = health.responseDeserialize(health.responseSerialize({ status: 'SERVING' })).status;`,
      `const container = messageCoder('runtime.v1.Container').encode({ id: 'x' }).finish().length;`,
      // Nor does it load protobufjs's reflection (light.js), only its minimal runtime.
      `const { createRequire } = await import('node:module');`,
      `const reflection = Object.keys(createRequire(import.meta.url).cache).filter((p) => /protobufjs[\\/](light|index)\\.js$/.test(p));`,
      `console.log(JSON.stringify([back.config.metadata, back.config.labels, status, container, reflection]));`,
    ].join('\n');
    const out = execFileSync(
      process.execPath,
      ['--disallow-code-generation-from-strings', '--import', 'tsx', '--input-type=module', '-e', script],
      {
        encoding: 'utf8',
      },
    );
    expect(JSON.parse(out)).toEqual([{ name: 'a', uid: 'c', namespace: 'b', attempt: 1 }, { x: 'y' }, 'SERVING', 3, []]);
  });
});
