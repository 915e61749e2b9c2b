import type * as grpc from '@grpc/grpc-js';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type protobuf from 'protobufjs/light.js';
import { packageRoot } from '../util/install-paths.js';
import { messages, serviceFiles, services, type MessageCoder } from './gen/coders.js';
export type { MessageCoder } from './gen/coders.js';
import { descriptors } from './gen/descriptors.js';
import { plain } from './gen/plain.js';

/** Where knode's CRI subset lives. */
export const protoRoot = join(packageRoot(), 'proto');

/**
 * How protobufjs's reflected coders turn messages into objects: the reference
 * the one-pass coders of gen/plain.ts are held to in the tests and the bench.
 * They must match the flags in scripts/gen-cri-types.js: 64-bit integers as
 * numbers (nanosecond timestamps lose sub-microsecond digits, which nothing
 * reads), enums as their names, and defaults for absent fields. Field names
 * are lowerCamelCase (the descriptors were parsed without keepCase).
 */
export const conversionOptions: protobuf.IConversionOptions = { longs: Number, enums: String, defaults: true };

/**
 * What scripts/gen-cri-types.js tells @grpc/proto-loader, whose objects the
 * types describe: the oracle the tests hold conversionOptions to.
 */
export const loaderOptions = { keepCase: false, longs: Number, enums: String, defaults: true, includeDirs: [protoRoot] };

/** The protos of proto/ knode builds services from. */
export type ProtoFile = 'runtime/v1/api.proto' | 'knode/v1/images.proto' | 'grpc/health/v1/health.proto';

const roots = new Map<string, protobuf.Root>();
let reflection: typeof protobuf | undefined;

/**
 * One proto of proto/ for reflection, from the descriptors parsed at build
 * time (scripts/gen-cri-types.js). No CRI call needs it (the services use the
 * build-time coders); tests walk it to make messages.
 */
export function protoFile(file: ProtoFile): protobuf.Root {
  let root = roots.get(file);
  if (!root) {
    // Required here, not imported: protobufjs's reflection costs a process 15-20 ms to load, and no CRI call needs it.
    reflection ??= createRequire(import.meta.url)('protobufjs/light.js') as typeof protobuf;
    root = reflection.Root.fromJSON(descriptors(file) as protobuf.INamespace);
    roots.set(file, root);
  }
  return root;
}

/** A message's build-time coders by its full name (runtime.v1.Container). */
export function messageCoder(name: string): MessageCoder {
  const coder = messages[name];
  if (!coder) throw new Error(`messageCoder: no message ${name} in the build-time coders (src/cri/gen/coders.ts)`);
  return coder;
}

/**
 * A service as gRPC wants it: each method's path and its (de)serializers,
 * taking and giving the objects @grpc/proto-loader's would, without the
 * descriptors it adds for reflection, which knode never serves and which cost
 * most of its load time. The coders are written at build time
 * (src/cri/gen/plain.ts, scripts/gen-plain-coders.js), each one pass over the
 * bytes where protobufjs's take two and build messages between them: nothing
 * is parsed or generated at run time. The service is named in `proto`, a file of
 * proto/ or its reflection root; given a root (tests do), the build-time
 * methods are checked against it.
 */
export function serviceDefinition(proto: ProtoFile | protobuf.Root, name: string): Record<string, grpc.MethodDefinition<object, object>> {
  const methods = services[name];
  if (!methods) throw new Error(`serviceDefinition: no service ${name} in the build-time coders (src/cri/gen/coders.ts)`);
  if (typeof proto !== 'string') checkAgainst(proto, name);
  else if (serviceFiles[name] !== proto) throw new Error(`serviceDefinition: ${name} is declared in ${serviceFiles[name]}, not ${proto}`);
  const definition: Record<string, grpc.MethodDefinition<object, object>> = {};
  for (const [method, { requestType, responseType, requestStream, responseStream }] of Object.entries(methods)) {
    const request = plainCoder(requestType);
    const response = plainCoder(responseType);
    definition[method] = {
      path: `/${name}/${method}`,
      requestStream,
      responseStream,
      requestSerialize: request.encode,
      requestDeserialize: request.decode,
      responseSerialize: response.encode,
      responseDeserialize: response.decode,
      originalName: method.charAt(0).toLowerCase() + method.slice(1),
    };
  }
  return definition;
}

/** Fails unless the build-time methods of `name` are the root's: the same names and streams, in order. */
function checkAgainst(root: protobuf.Root, name: string): void {
  const service = root.lookupService(name);
  const ours = Object.entries(services[name]).map(([method, m]) => [method, m.requestStream, m.responseStream]);
  const theirs = service.methodsArray.map((m) => [m.name, m.requestStream === true, m.responseStream === true]);
  if (JSON.stringify(ours) !== JSON.stringify(theirs)) {
    throw new Error(`serviceDefinition: ${name}'s build-time methods differ from its descriptors: run \`npm run gen\``);
  }
}

let clientMethods: Record<string, grpc.MethodDefinition<object, object>> | undefined;

/** A message's one-pass coders: from and to the objects proto-loader gives. */
export interface PlainCoder {
  encode(value: object): Buffer;
  decode(bytes: Buffer): object;
}

/** A message's one-pass coders (src/cri/gen/plain.ts) by its full name. */
export function plainCoder(name: string): PlainCoder {
  const coder = (plain as Record<string, PlainCoder | undefined>)[name];
  if (!coder) throw new Error(`plainCoder: no coder for ${name} in src/cri/gen/plain.ts: run \`npm run gen\``);
  return coder;
}

/** runtime.v1's methods by name (Version, ListContainers...), both services, for the CRI client; made once per process. */
export function criClientMethods(): Record<string, grpc.MethodDefinition<object, object>> {
  clientMethods ??= { ...criRuntimeService(), ...serviceDefinition('runtime/v1/api.proto', 'runtime.v1.ImageService') };
  return clientMethods;
}

/** runtime.v1.RuntimeService. */
export function criRuntimeService(): Record<string, grpc.MethodDefinition<object, object>> {
  return serviceDefinition('runtime/v1/api.proto', 'runtime.v1.RuntimeService');
}
